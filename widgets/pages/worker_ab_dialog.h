// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <QDialog>

class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace kwb::gui {

// File > New worker A/B: a study whose arms are one worker command (docs/worker-protocol.md) with
// different values of the worker's own parameters, the study `kwb new --worker CMD --param ...
// --vary ...` writes. The window runs nothing itself: Create asks kwb new, which starts the worker
// once to describe it and checks the parameters against its answer (the one owner of those rules);
// what it refuses is shown in kwb's own line and the dialog stays open. Describing a Triton worker
// takes seconds (imports, a first compile), so kwb runs as a child while the window keeps turning.
class KwbNewRun;

class WorkerAbDialog : public QDialog {
    Q_OBJECT
public:
    explicit WorkerAbDialog(QWidget* parent = nullptr);
    ~WorkerAbDialog() override;

    // The study Create made; meaningful once the dialog was accepted.
    const Study& study() const { return m_study; }
    // Why the last Create was refused; empty when it succeeded or was not pressed.
    QString lastError() const;
    bool isCreating() const;

public slots:
    void create();

signals:
    void createFinished(bool ok);

private:
    void refuse(const QString& why);

    QLineEdit* m_command;
    QLineEdit* m_cwd;
    QLineEdit* m_params;
    QLineEdit* m_vary;
    QSpinBox* m_runs;
    QLabel* m_error;
    QPushButton* m_create;
    KwbNewRun* m_kwb; // kwb new as a child: the worker described, the study read back
    QString m_lastError;
    Study m_study;
};

} // namespace kwb::gui
