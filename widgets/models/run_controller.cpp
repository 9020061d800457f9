// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/run_controller.h"

#include "models/live_series.h"
#include "models/study_document.h"

#include <QCoreApplication>
#include <QDir>
#include <QJsonArray>

#ifdef Q_OS_UNIX
#include <signal.h>
#endif

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {
constexpr int kStoppedExitCode = 130;

QString formatSeconds(double s)
{
    if (s < 60)
        return QString::number(s, 'f', s < 10 ? 1 : 0) + u" s"_s;
    const int total = static_cast<int>(s + 0.5);
    return QStringLiteral("%1:%2 min").arg(total / 60).arg(total % 60, 2, 10, QChar(u'0'));
}
} // namespace

RunController::RunController(StudyDocument* document, LiveSeries* live, QObject* parent)
    : QObject(parent)
    , m_document(document)
    , m_live(live)
    , m_program(defaultProgram())
{
}

RunController::~RunController()
{
    // Closing the window mid-run: ask the child to save what it finished rather than killing it.
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        stop();
        if (!m_process->waitForFinished(10000))
            m_process->kill();
    }
}

QString RunController::defaultProgram()
{
    const QString fromEnv = qEnvironmentVariable("KWB_PROGRAM");
    if (!fromEnv.isEmpty())
        return fromEnv;
    return QDir(QCoreApplication::applicationDirPath()).filePath(u"kwb"_s);
}

bool RunController::start()
{
    if (isRunning()) {
        m_lastError = tr("a run is already in progress");
        return false;
    }
    if (m_document->filePath().isEmpty()) {
        m_lastError = tr("save the study to a file first: kwb runs a study file");
        return false;
    }
    // The child reads the file, so the user's edits must be on disk before it starts.
    if (m_document->isModified() && !m_document->save()) {
        m_lastError = tr("cannot save before running: %1").arg(m_document->lastError());
        return false;
    }

    m_lastError.clear();
    m_lastStderr.clear();
    m_lastStatus.clear();
    m_streamStatus.clear();
    m_done = m_planned = 0;
    m_eta = -1;
    m_parser.reset();
    m_live->clear();

    delete m_process;
    m_process = new QProcess(this);
    connect(m_process, &QProcess::readyReadStandardOutput, this, &RunController::readStdout);
    connect(m_process, &QProcess::readyReadStandardError, this, &RunController::readStderr);
    connect(m_process, &QProcess::finished, this, &RunController::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, &RunController::onProcessError);

    m_document->setLocked(true);
    m_clock.start();
    m_sinceProgress.start();
    setState(State::Running);
    m_process->start(m_program, {u"run"_s, m_document->filePath(), u"--json-progress"_s});
    return true;
}

void RunController::stop()
{
    if (!m_process || m_process->state() == QProcess::NotRunning)
        return;
#ifdef Q_OS_UNIX
    const qint64 pid = m_process->processId();
    if (pid > 0)
        ::kill(static_cast<pid_t>(pid), SIGINT);
#else
    m_process->terminate();
#endif
    if (m_state == State::Running)
        setState(State::Stopping);
}

double RunController::elapsedSeconds() const
{
    return m_clock.isValid() ? static_cast<double>(m_clock.elapsed()) / 1000.0 : 0.0;
}

double RunController::etaSeconds() const
{
    if (m_eta < 0)
        return -1;
    return std::max(0.0, m_eta - static_cast<double>(m_sinceProgress.elapsed()) / 1000.0);
}

QString RunController::progressText() const
{
    if (!isRunning()) {
        if (m_lastStatus.isEmpty())
            return {};
        return tr("last run %1: %2/%3 repetitions in %4")
            .arg(m_lastStatus)
            .arg(m_done)
            .arg(m_planned)
            .arg(formatSeconds(elapsedSeconds()));
    }
    const double eta = etaSeconds();
    QString text = tr("%1 %2/%3 repetitions · %4 elapsed")
                       .arg(m_state == State::Stopping ? tr("stopping after this repetition:") : tr("running:"))
                       .arg(m_done)
                       .arg(m_planned)
                       .arg(formatSeconds(elapsedSeconds()));
    text += eta >= 0 ? tr(" · ETA %1").arg(formatSeconds(eta)) : tr(" · ETA unknown");
    return text;
}

void RunController::readStdout()
{
    for (const auto& event : m_parser.feed(m_process->readAllStandardOutput()))
        handle(event);
}

void RunController::readStderr()
{
    // Keep the last non-empty line: when the child dies without an error line, it is the best
    // explanation there is.
    const auto lines = QString::fromUtf8(m_process->readAllStandardError()).split(u'\n', Qt::SkipEmptyParts);
    for (auto it = lines.crbegin(); it != lines.crend(); ++it) {
        if (!it->trimmed().isEmpty()) {
            m_lastStderr = it->trimmed();
            break;
        }
    }
}

void RunController::handle(const StreamEvent& event)
{
    const QJsonObject& o = event.object;
    switch (event.type) {
    case StreamEvent::Type::Start: {
        QStringList arms;
        const QJsonObject plan = o.value("plan"_L1).toObject();
        for (const auto& a : plan.value("arms"_L1).toArray())
            arms << a.toString();
        // A run of several experiments restarts the traces for each one; the study file keeps all.
        m_live->setPlan(arms, o.value("metric"_L1).toString(), o.value("unit"_L1).toString());
        m_planned = static_cast<int>(plan.value("order"_L1).toArray().size());
        if (m_planned == 0)
            m_planned = plan.value("runs_per_arm"_L1).toInt() * static_cast<int>(arms.size());
        emit progressChanged();
        break;
    }
    case StreamEvent::Type::Sample:
        m_live->addSample(o.value("arm"_L1).toString(), o.value("t_s"_L1).toDouble(), o.value("value"_L1).toDouble(),
            o.value("warmup"_L1).toBool(), o.value("duration_s"_L1).toDouble());
        break;
    case StreamEvent::Type::Metric:
        m_live->addLaneValue(o.value("name"_L1).toString(), o.value("unit"_L1).toString(), o.value("t_s"_L1).toDouble(),
            o.value("value"_L1).toDouble());
        break;
    case StreamEvent::Type::Progress:
        m_done = o.value("done"_L1).toInt();
        m_planned = o.value("planned"_L1).toInt(m_planned);
        m_eta = o.value("eta_s"_L1).isDouble() ? o.value("eta_s"_L1).toDouble() : -1.0;
        m_sinceProgress.restart();
        emit progressChanged();
        break;
    case StreamEvent::Type::Verdict:
        break; // the verdicts are read from the study file when the child exits
    case StreamEvent::Type::Error:
        reportError(o.value("message"_L1).toString());
        break;
    case StreamEvent::Type::End:
        m_streamStatus = o.value("status"_L1).toString();
        break;
    case StreamEvent::Type::Malformed:
        reportError(event.message);
        break;
    }
}

void RunController::onFinished(int exitCode, QProcess::ExitStatus status)
{
    readStdout();
    readStderr();
    for (const auto& event : m_parser.finish())
        handle(event);
    m_lastExitCode = exitCode;
    if (status == QProcess::CrashExit) {
        m_lastStatus = u"failed"_s;
        // Its own last words on stderr explain a crash better than a line it left half-written.
        const QString why = m_lastStderr.isEmpty() ? m_lastError : m_lastStderr;
        reportError(tr("kwb crashed%1").arg(why.isEmpty() ? QString() : u": "_s + why));
    } else if (exitCode == 0) {
        m_lastStatus = u"done"_s;
    } else if (exitCode == kStoppedExitCode) {
        m_lastStatus = u"stopped"_s; // a normal stop: the child saved the repetitions it finished
    } else {
        m_lastStatus = u"failed"_s;
        if (m_lastError.isEmpty())
            reportError(m_lastStderr.isEmpty() ? tr("kwb exited with status %1").arg(exitCode) : m_lastStderr);
    }
    m_document->setLocked(false);
    // Idle before the reload, so the views that refresh on it replay the study, not the stream.
    setState(State::Idle);
    if (!m_document->reload())
        reportError(tr("cannot reload the study after the run: %1").arg(m_document->lastError()));
    emit progressChanged();
    emit finished(m_lastStatus);
}

void RunController::onProcessError(QProcess::ProcessError error)
{
    if (error != QProcess::FailedToStart)
        return; // crashes arrive through finished() as well
    m_document->setLocked(false);
    m_lastStatus = u"failed"_s;
    reportError(tr("cannot start %1: %2").arg(m_program, m_process->errorString()));
    setState(State::Idle);
    emit progressChanged();
    emit finished(m_lastStatus);
}

void RunController::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    emit stateChanged(state);
}

void RunController::reportError(const QString& message)
{
    m_lastError = message;
    emit errorReported(message);
}

} // namespace kwb::gui
