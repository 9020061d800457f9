// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/profile_controller.h"

#include "models/run_controller.h"
#include "models/study_document.h"

namespace kwb::gui {

using namespace Qt::StringLiterals;

ProfileController::ProfileController(StudyDocument* document, QObject* parent)
    : QObject(parent)
    , m_document(document)
    , m_program(RunController::defaultProgram())
{
}

ProfileController::~ProfileController()
{
    // A profile is seconds long and saves once at its end: let it finish rather than kill it
    // with the study file half-owned.
    if (isRunning()) {
        m_process->disconnect(this);
        if (!m_process->waitForFinished(30000))
            m_process->kill();
        m_document->setLocked(false);
    }
}

QStringList ProfileController::arguments() const
{
    return QStringList {u"profile"_s, m_document->filePath()} + m_extra;
}

bool ProfileController::start()
{
    if (isRunning()) {
        m_lastError = tr("a profile is already in progress");
        return false;
    }
    if (m_document->isLocked()) {
        m_lastError = tr("the study is locked: a run owns it; profile when it has finished");
        return false;
    }
    if (m_document->filePath().isEmpty()) {
        m_lastError = tr("save the study to a file first: kwb profiles a study file");
        return false;
    }
    if (m_document->isModified() && !m_document->save()) {
        m_lastError = tr("cannot save before profiling: %1").arg(m_document->lastError());
        return false;
    }
    m_lastError.clear();
    m_lastStatus.clear();
    m_done = false;
    delete m_process;
    m_process = new QProcess(this);
    connect(m_process, &QProcess::finished, this, &ProfileController::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, &ProfileController::onProcessError);
    m_document->setLocked(true);
    m_process->start(m_program, arguments());
    emit started();
    return true;
}

bool ProfileController::waitForFinished(int msecs)
{
    if (m_process && !m_done)
        m_process->waitForFinished(msecs);
    return m_done;
}

void ProfileController::onFinished(int exitCode, QProcess::ExitStatus status)
{
    m_lastExitCode = exitCode;
    // kwb's last stderr line is its one-line reason (bad input, a failed workload).
    const auto lines = QString::fromUtf8(m_process->readAllStandardError()).split(u'\n', Qt::SkipEmptyParts);
    const QString last = lines.isEmpty() ? QString() : lines.last().trimmed();
    m_document->setLocked(false);
    if (status == QProcess::CrashExit)
        fail(tr("kwb profile crashed%1").arg(last.isEmpty() ? QString() : u": "_s + last));
    else if (exitCode != 0)
        fail(last.isEmpty() ? tr("kwb profile exited with status %1").arg(exitCode) : last);
    else
        m_lastStatus = u"done"_s;
    if (!m_document->reload() && m_lastError.isEmpty())
        fail(tr("cannot reload the study after profiling: %1").arg(m_document->lastError()));
    m_done = true;
    emit finished(m_lastStatus);
}

void ProfileController::onProcessError(QProcess::ProcessError error)
{
    if (error != QProcess::FailedToStart)
        return; // crashes arrive through finished() as well
    m_document->setLocked(false);
    fail(tr("cannot start %1: %2").arg(m_program, m_process->errorString()));
    m_done = true;
    emit finished(m_lastStatus);
}

void ProfileController::fail(const QString& message)
{
    m_lastStatus = u"failed"_s;
    m_lastError = message;
}

} // namespace kwb::gui
