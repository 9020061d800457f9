// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>

class QLabel;
class QPlainTextEdit;

namespace kwb::gui {

// One commit's build log, as kwb run's build cache kept it (study/git_cache_paths.h): the command,
// the worktree, the commit, everything the build printed in order, and how it ended. Read-only.
class BuildLogDialog : public QDialog {
    Q_OBJECT
public:
    BuildLogDialog(const QString& title, const QString& logPath, QWidget* parent = nullptr);

    QString logText() const;
    // Why there is no text ("no log at PATH: ..."); empty when the log was read.
    QString missingReason() const { return m_missing; }

private:
    QPlainTextEdit* m_text;
    QString m_missing;
};

} // namespace kwb::gui
