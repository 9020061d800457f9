// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/kwb_new_dialog.h"

class QLineEdit;
class QSpinBox;

namespace kwb::gui {

// File > New worker A/B: a study whose arms are one worker command (docs/worker-protocol.md) with
// different values of the worker's own parameters, the study `kwb new --worker CMD --param ...
// --vary ...` writes. The window runs nothing itself: Create asks kwb new, which starts the worker
// once to describe it and checks the parameters against its answer (the one owner of those rules);
// what it refuses is shown in kwb's own line and the dialog stays open. Describing a Triton worker
// takes seconds (imports, a first compile), so kwb runs as a child while the window keeps turning.
class WorkerAbDialog : public KwbNewDialog {
    Q_OBJECT
public:
    explicit WorkerAbDialog(QWidget* parent = nullptr);
    ~WorkerAbDialog() override;

public slots:
    void create() override;

private:
    QLineEdit* m_command;
    QLineEdit* m_cwd;
    QLineEdit* m_params;
    QLineEdit* m_vary;
    QSpinBox* m_runs;
};

} // namespace kwb::gui
