// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/remote_hosts.h"
#include "models/stream_parser.h"

#include <QElapsedTimer>
#include <QMap>
#include <QObject>
#include <QProcess>
#include <optional>

class QFileSystemWatcher;
class QTimer;

namespace kwb::gui {

class LiveSeries;
class StudyDocument;

// Runs the open study in a child process, `kwb run STUDY --json-progress`, and follows it.
// Why a child and not a thread: a faulting kernel poisons its CUDA context for good; in a child
// it costs one run, never the window or the study. The child owns the study file while it runs
// (the document is locked); when it exits the document is reloaded from disk, so the repetitions
// it finished are what the views show, whether it ended, was stopped or failed.
class RunController : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, Running, Stopping };
    Q_ENUM(State)

    RunController(StudyDocument* document, LiveSeries* live, QObject* parent = nullptr);
    ~RunController() override;

    // `kwb` beside this program, unless the environment variable KWB_PROGRAM names another.
    static QString defaultProgram();
    void setProgram(const QString& program) { m_program = program; }
    QString program() const { return m_program; }

    // Several devices (`0,1`): the run becomes `kwb run STUDY --devices LIST --json-progress`, one
    // cell per device at a time (docs/cluster.md), here and on a host (startOnHost). Empty: the
    // plain run. kwb checks the list.
    void setDevices(const QString& devices) { m_devices = devices.trimmed(); }
    QString devices() const { return m_devices; }

    // What each device runs in a spread-out run, from the `device` key of the relayed lines.
    struct Cell {
        QString experiment;
        int done = 0;
        int planned = 0;
        QString state; // running, done, failed
    };
    const QMap<int, Cell>& cells() const { return m_cells; }
    int followedDevice() const { return m_followed; } // the device whose cell the live views show
    // "device 0: grid-1-r0c1 3/10 · device 1: grid-1-r1c0 done"; empty for a plain run.
    QString cellsText() const;

    // Saves unsaved edits, then starts the child. False (with lastError()) when it cannot.
    bool start();
    // Adds runs to the finished experiment: `kwb run STUDY --continue [--runs-per-arm N]
    // --json-progress`, the same experiment in the same order (the verdict's next step, "Add
    // runs"); without `perArm`, to the verdict's own estimate.
    bool startContinue(std::optional<int> perArm);
    static QStringList continueOptions(std::optional<int> perArm); // --continue [--runs-per-arm N]
    // SIGINT: the child finishes the current repetition, saves and exits 130.
    void stop();
    // The same run on an ssh host (docs/remote.md): `kwb run STUDY --host ... --json-progress`
    // relays the remote stream into the same live views; the study is reloaded when it is back.
    // `extra`: more of kwb run's options, passed on to the remote kwb (--continue, --runs-per-arm).
    bool startOnHost(const RemoteHost& host, const QStringList& extra = {});
    // Follows the remote run that owns the study (`kwb run STUDY --attach --json-progress`): after
    // a dropped connection, or when a study whose run is away is opened. The stream is replayed
    // from its start, so the live views are whole.
    bool reattach();
    // The ssh destination of the run in progress (or last run); empty for a local run.
    QString remoteHost() const { return m_remoteHost; }
    // Lets go of a remote run without stopping it (SIGHUP: the run goes on there).
    void detach();

    State state() const { return m_state; }
    bool isRunning() const { return m_state != State::Idle; }
    int done() const { return m_done; }
    int planned() const { return m_planned; }
    double elapsedSeconds() const;
    double etaSeconds() const; // negative when unknown
    QString lastError() const { return m_lastError; }
    QString lastStatus() const { return m_lastStatus; } // done, stopped, failed; empty before a run
    // The host whose kwb refused the last run in a way `kwb remote install HOST` cures (the stream's
    // error remedy, docs/progress-stream.md: missing there or another version), else empty.
    QString remoteInstallRemedy() const { return m_remoteInstallRemedy; }
    int lastExitCode() const { return m_lastExitCode; }
    // One line for the status bar: "7/10 repetitions · 12.3 s elapsed · ETA 5 s".
    QString progressText() const;

signals:
    void stateChanged(kwb::gui::RunController::State state);
    void progressChanged();
    void errorReported(const QString& message); // an error line or a malformed stream line
    void finished(const QString& status); // after the document was reloaded
    void cellsChanged(); // a spread-out run's device/cell table changed

private:
    bool startChild(const QStringList& options, const QString& remoteHost, bool saveFirst);
    void readStdout();
    void readStderr();
    void handle(const StreamEvent& event);
    bool handleDeviceLine(const StreamEvent& event);
    void reloadDuringRun();
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onProcessError(QProcess::ProcessError error);
    void setState(State state);
    void reportError(const QString& message);

    StudyDocument* m_document;
    LiveSeries* m_live;
    QProcess* m_process = nullptr;
    QString m_program;
    StreamParser m_parser;
    State m_state = State::Idle;
    int m_done = 0;
    int m_planned = 0;
    double m_eta = -1;
    QElapsedTimer m_clock;
    QElapsedTimer m_sinceProgress;
    QString m_lastError;
    QString m_remoteInstallRemedy;
    QString m_lastStderr;
    QString m_lastStatus;
    QString m_streamStatus;
    int m_lastExitCode = 0;
    QString m_remoteHost;
    QString m_devices;
    QMap<int, Cell> m_cells;
    int m_followed = -1;
    int m_earlierDone = 0; // repetitions of cells that left the table (their device moved on)
    int m_earlierPlanned = 0;
    QFileSystemWatcher* m_watcher = nullptr;
    QTimer* m_reloadTimer = nullptr;
};

} // namespace kwb::gui
