// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/kwb_new_dialog.h"

class QCheckBox;
class QComboBox;
class QLineEdit;
class QSpinBox;

namespace kwb::gui {

// File > New A/B from two commits (docs/git-arms.md): a study whose arms are two commits of one
// repository, each built by one build command in its own worktree and run there by one bench
// command (a command arm) or worker command. The window holds none of the rules: Create runs
// `kwb new --git-baseline ... --git-treatment ...` as a child (the refs resolved, a dirty tree
// refused unless Allow dirty, equal refs refused as an A/A), shows kwb's own line when it refuses
// and keeps the dialog open, else reads back the study kwb wrote.
class GitAbDialog : public KwbNewDialog {
    Q_OBJECT
public:
    explicit GitAbDialog(QWidget* parent = nullptr);
    ~GitAbDialog() override;

    // The arguments Create gives kwb new (after `new`, before --out).
    QStringList kwbArguments() const;

public slots:
    void create() override;

private:
    void browse();

    QLineEdit* m_repo;
    QLineEdit* m_baseline;
    QLineEdit* m_treatment;
    QLineEdit* m_build;
    QComboBox* m_kind;
    QLineEdit* m_program;
    QCheckBox* m_allowDirty;
    QSpinBox* m_runs;
};

} // namespace kwb::gui
