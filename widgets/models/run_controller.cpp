// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/run_controller.h"

#include "models/live_series.h"
#include "models/study_document.h"
#include "study/remote_marker.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QJsonArray>
#include <QTimer>

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
    , m_watcher(new QFileSystemWatcher(this))
    , m_reloadTimer(new QTimer(this))
{
    // In a spread-out run the parent kwb folds each finished cell into the study and saves it
    // (atomically, so by rename): reload then, so the grid and results gain cells as they finish.
    m_reloadTimer->setSingleShot(true);
    m_reloadTimer->setInterval(150); // one reload for the burst of events a rename makes
    connect(m_watcher, &QFileSystemWatcher::fileChanged, m_reloadTimer, qOverload<>(&QTimer::start));
    connect(m_reloadTimer, &QTimer::timeout, this, &RunController::reloadDuringRun);
}

RunController::~RunController()
{
    // Closing the window mid-run: ask the child to save what it finished rather than killing it.
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        // A remote run is let go, not stopped: it goes on there and the study reattaches on open.
        if (m_remoteHost.isEmpty())
            stop();
        else
            detach();
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
    // Several devices: one cell per device at a time, the stream relayed (docs/cluster.md).
    return startChild(m_devices.isEmpty() ? QStringList {} : QStringList {u"--devices"_s, m_devices}, {}, true);
}

QStringList RunController::continueOptions(std::optional<int> perArm)
{
    QStringList options {u"--continue"_s};
    if (perArm)
        options << u"--runs-per-arm"_s << QString::number(*perArm);
    return options;
}

bool RunController::startContinue(std::optional<int> perArm)
{
    return startChild(continueOptions(perArm), {}, true);
}

bool RunController::startOnHost(const RemoteHost& host, const QStringList& extra)
{
    if (host.destination.isEmpty()) {
        m_lastError = tr("the host has no ssh destination");
        return false;
    }
    // The Devices box holds on a host too: its GPUs take the grid's cells one per listed device.
    QStringList options = host.kwbArguments();
    if (!m_devices.isEmpty())
        options << u"--devices"_s << m_devices;
    return startChild(options + extra, host.destination, true);
}

bool RunController::reattach()
{
    // The study on disk is the remote run's until it is back: nothing is saved into it now.
    QString host = tr("its host");
    try {
        if (const auto record = read_remote_marker(m_document->filePath().toStdString()))
            host = QString::fromStdString(record->host);
    } catch (const std::exception&) {
    }
    return startChild({u"--attach"_s}, host, false);
}

void RunController::detach()
{
#ifdef Q_OS_UNIX
    if (m_process && m_process->state() != QProcess::NotRunning && m_process->processId() > 0)
        ::kill(static_cast<pid_t>(m_process->processId()), SIGHUP);
#endif
}

bool RunController::startChild(const QStringList& options, const QString& remoteHost, bool saveFirst)
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
    if (saveFirst && m_document->isModified() && !m_document->save()) {
        m_lastError = tr("cannot save before running: %1").arg(m_document->lastError());
        return false;
    }

    m_lastError.clear();
    m_remoteInstallRemedy.clear();
    m_lastStderr.clear();
    m_lastStatus.clear();
    m_streamStatus.clear();
    m_done = m_planned = 0;
    m_eta = -1;
    m_parser.reset();
    m_live->clear();
    m_cells.clear();
    m_followed = -1;
    m_earlierDone = m_earlierPlanned = 0;

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
    m_remoteHost = remoteHost;
    if (options.contains(u"--devices"_s)) {
        if (!m_watcher->files().isEmpty())
            m_watcher->removePaths(m_watcher->files());
        m_watcher->addPath(m_document->filePath());
    }
    emit cellsChanged();
    m_process->start(m_program, QStringList {u"run"_s, m_document->filePath(), u"--json-progress"_s} + options);
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
    if (!m_cells.isEmpty())
        text += u" · "_s + cellsText();
    return text;
}

QString RunController::cellsText() const
{
    QStringList parts;
    for (auto it = m_cells.cbegin(); it != m_cells.cend(); ++it) {
        const Cell& c = it.value();
        const QString how = c.state == "running"_L1 ? u"%1/%2"_s.arg(c.done).arg(c.planned) : c.state;
        parts << tr("device %1: %2 %3").arg(it.key()).arg(c.experiment, how);
    }
    return parts.join(u" · "_s);
}

void RunController::reloadDuringRun()
{
    // The document stays locked: the child is still the only writer. The live page keeps
    // showing the stream while the run goes on; the other views show the folded cells.
    const QString path = m_document->filePath();
    if (!path.isEmpty() && !m_watcher->files().contains(path) && QFileInfo::exists(path))
        m_watcher->addPath(path); // an atomic save replaces the file, which drops the watch
    if (isRunning() && !m_document->reload())
        reportError(tr("cannot reload the study during the run: %1").arg(m_document->lastError()));
}

// A spread-out run relays every worker's lines with the device that ran them; the cells
// interleave, so the live views follow one device's cell at a time and the progress sums the
// cells. False for a line without a device (the plain run's stream).
bool RunController::handleDeviceLine(const StreamEvent& event)
{
    const QJsonObject& o = event.object;
    if (!o.value("device"_L1).isDouble())
        return false;
    const int device = o.value("device"_L1).toInt();
    Cell& cell = m_cells[device];
    const bool followed = device == m_followed;
    switch (event.type) {
    case StreamEvent::Type::Start: {
        const auto current = m_cells.constFind(m_followed);
        const bool follow = followed || current == m_cells.cend() || current->state != "running"_L1;
        // The device's previous cell leaves the table but stays in the run's progress.
        m_earlierDone += cell.done;
        m_earlierPlanned += cell.planned;
        cell = Cell {o.value("experiment"_L1).toString(), 0, 0, u"running"_s};
        const QJsonObject plan = o.value("plan"_L1).toObject();
        cell.planned = static_cast<int>(plan.value("order"_L1).toArray().size());
        if (cell.planned == 0)
            cell.planned
                = plan.value("runs_per_arm"_L1).toInt() * static_cast<int>(plan.value("arms"_L1).toArray().size());
        // Follow this device when the followed one has no cell running: the traces restart for
        // it, as they do for each experiment of a plain run.
        if (follow) {
            m_followed = device;
            QStringList arms;
            for (const auto& a : plan.value("arms"_L1).toArray())
                arms << a.toString();
            m_live->setPlan(arms, o.value("metric"_L1).toString(), o.value("unit"_L1).toString());
        }
        break;
    }
    case StreamEvent::Type::Sample:
    case StreamEvent::Type::Metric:
        if (followed)
            return false; // the live views take the followed cell's lines as in a plain run
        return true;
    case StreamEvent::Type::Progress:
        cell.done = o.value("done"_L1).toInt();
        cell.planned = o.value("planned"_L1).toInt(cell.planned);
        break;
    case StreamEvent::Type::Verdict:
        cell.state = u"done"_s;
        cell.done = std::max(cell.done, cell.planned);
        break;
    case StreamEvent::Type::Error:
        if (!o.value("continues"_L1).toBool(false))
            cell.state = u"failed"_s;
        reportError(tr("device %1: %2").arg(device).arg(o.value("message"_L1).toString()));
        break;
    case StreamEvent::Type::End:
    case StreamEvent::Type::Malformed:
        return false;
    }
    m_done = m_earlierDone;
    m_planned = m_earlierPlanned;
    for (const Cell& c : std::as_const(m_cells)) {
        m_done += c.done;
        m_planned += c.planned;
    }
    m_eta = -1; // cells not started yet are not in the sum: no honest ETA
    m_sinceProgress.restart();
    emit cellsChanged();
    emit progressChanged();
    return true;
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
    if (handleDeviceLine(event))
        return;
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
        if (const QJsonObject remedy = o.value("remedy"_L1).toObject(); remedy.value("kind"_L1) == "remote-install"_L1)
            m_remoteInstallRemedy = remedy.value("host"_L1).toString();
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
    m_reloadTimer->stop();
    if (!m_watcher->files().isEmpty())
        m_watcher->removePaths(m_watcher->files());
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
