// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QProcess>

namespace kwb::gui {

class StudyDocument;

// Phase 3's "Profile": runs `kwb profile STUDY` in a child process, as RunController runs
// `kwb run` (a faulting kernel costs the child, never the window), with the document locked
// while the child owns the file and reloaded when it exits, so the binding section the engine
// wrote is what the page shows. The call itself is the engine's (binding_classifier); this only
// drives the child and reports how it ended.
class ProfileController : public QObject {
    Q_OBJECT
public:
    explicit ProfileController(StudyDocument* document, QObject* parent = nullptr);
    ~ProfileController() override;

    void setProgram(const QString& program) { m_program = program; }
    QString program() const { return m_program; }
    // Extra arguments after STUDY (e.g. --experiment ID, --no-cupti).
    void setExtraArguments(const QStringList& args) { m_extra = args; }

    // Saves unsaved edits, then starts the child. False (with lastError()) when it cannot.
    bool start();
    bool isRunning() const { return m_process && m_process->state() != QProcess::NotRunning; }
    bool waitForFinished(int msecs);
    QString lastError() const { return m_lastError; }
    QString lastStatus() const { return m_lastStatus; } // done, failed; empty before a profile
    int lastExitCode() const { return m_lastExitCode; }
    QStringList arguments() const; // what start() passes, for tests and the status line

signals:
    void started();
    void finished(const QString& status); // after the document was reloaded

private:
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onProcessError(QProcess::ProcessError error);
    void fail(const QString& message);

    StudyDocument* m_document;
    QProcess* m_process = nullptr;
    QString m_program;
    QStringList m_extra;
    QString m_lastError;
    QString m_lastStatus;
    int m_lastExitCode = 0;
    bool m_done = true;
};

} // namespace kwb::gui
