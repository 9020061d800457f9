// SPDX-License-Identifier: GPL-3.0-or-later
// The run controller against a stand-in `kwb` (data/fake_kwb.sh) that replays recorded stream
// lines: every path (done, stopped, failed, crashed, garbage) without the engine.
#include "models/device_probe.h"
#include "models/live_series.h"
#include "models/remote_hosts.h"
#include "models/run_controller.h"
#include "models/study_document.h"

#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <set>

using namespace Qt::StringLiterals;
using namespace kwb::gui;

namespace {
const QString kFake = QStringLiteral(KWB_WIDGETS_TEST_DATA "/fake_kwb.sh");
constexpr int kTimeout = 30000;
} // namespace

class TestRunController : public QObject {
    Q_OBJECT
private slots:
    void init();
    void doneRunFeedsTheLiveSeries();
    void stopSendsSigintAndCountsAsNormal();
    void failureShowsTheChildsError_data();
    void failureShowsTheChildsError();
    void missingProgramLeavesTheControllerUsable();
    void unsavedStudyIsSavedBeforeTheRun();
    void programDefaultsBesideTheExecutable();
    void deviceProbeReadsKwbDevices();
    void runningDeviceIsTheEnginesChoice();
    void devicesRunFollowsInterleavedCells();
    void realKwbSpreadsACpuGridOverTwoDevices();
    void devicesHoldOnAHostToo();
    void continueAddsRunsToTheFinishedExperiment();

private:
    QTemporaryDir m_dir;
    QString m_path;
};

void TestRunController::init()
{
    StudyDocument doc;
    doc.newStudy();
    m_path = m_dir.filePath(u"s.json"_s);
    QVERIFY(doc.saveAs(m_path));
}

void TestRunController::doneRunFeedsTheLiveSeries()
{
    qputenv("FAKE_KWB_MODE", "done");
    const QString argsFile = m_dir.filePath(u"args.txt"_s);
    qputenv("FAKE_KWB_ARGS", argsFile.toUtf8());
    StudyDocument doc;
    QVERIFY(doc.load(m_path));
    LiveSeries live;
    RunController run(&doc, &live);
    run.setProgram(kFake);
    QSignalSpy finished(&run, &RunController::finished);
    QSignalSpy errors(&run, &RunController::errorReported);
    QSignalSpy reloaded(&doc, &StudyDocument::changed);
    QVERIFY(run.start());
    QVERIFY(run.isRunning());
    QVERIFY(doc.isLocked());
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeout);
    QCOMPARE(finished.first().first().toString(), u"done"_s);
    QCOMPARE(run.lastStatus(), u"done"_s);
    QVERIFY(!run.isRunning());
    QVERIFY(!doc.isLocked());
    QCOMPARE(errors.count(), 0); // the unknown line type was ignored
    QCOMPARE(reloaded.count(), 1); // the study was read back from disk
    QCOMPARE(live.arm(u"baseline"_s)->value, QList<double>({41.0, 41.5, 42.0}));
    QCOMPARE(live.arm(u"treatment"_s)->value.size(), 3);
    QCOMPARE(live.warmups().value, QList<double>({50.0}));
    QCOMPARE(live.lane(u"cpu_util"_s)->value, QList<double>({97.5, 96.0})); // the split line arrived whole
    QCOMPARE(run.done(), 6);
    QCOMPARE(run.planned(), 6);
    QFile args(argsFile);
    QVERIFY(args.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(args.readAll().trimmed()), QString(u"run "_s + m_path + u" --json-progress"_s));
    qunsetenv("FAKE_KWB_ARGS");
}

void TestRunController::stopSendsSigintAndCountsAsNormal()
{
    qputenv("FAKE_KWB_MODE", "slow");
    StudyDocument doc;
    QVERIFY(doc.load(m_path));
    LiveSeries live;
    RunController run(&doc, &live);
    run.setProgram(kFake);
    QSignalSpy finished(&run, &RunController::finished);
    QSignalSpy errors(&run, &RunController::errorReported);
    QVERIFY(run.start());
    QTRY_VERIFY_WITH_TIMEOUT(run.done() >= 2, kTimeout);
    QVERIFY(run.progressText().contains(u"/600"_s));
    run.stop();
    QCOMPARE(run.state(), RunController::State::Stopping);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeout);
    QCOMPARE(run.lastStatus(), u"stopped"_s);
    QCOMPARE(run.lastExitCode(), 130);
    QCOMPARE(errors.count(), 0);
    QVERIFY(live.arm(u"baseline"_s)->value.size() >= 2);
}

void TestRunController::failureShowsTheChildsError_data()
{
    QTest::addColumn<QByteArray>("mode");
    QTest::addColumn<QString>("expected");
    QTest::addRow("error line") << QByteArray("fail") << u"device lost during repetition 2"_s;
    QTest::addRow("stderr only") << QByteArray("stderr") << u"must be at least 1"_s;
    QTest::addRow("crash") << QByteArray("crash") << u"illegal memory access"_s;
}

void TestRunController::failureShowsTheChildsError()
{
    QFETCH(QByteArray, mode);
    QFETCH(QString, expected);
    qputenv("FAKE_KWB_MODE", mode);
    StudyDocument doc;
    QVERIFY(doc.load(m_path));
    LiveSeries live;
    RunController run(&doc, &live);
    run.setProgram(kFake);
    QSignalSpy finished(&run, &RunController::finished);
    QVERIFY(run.start());
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeout);
    QCOMPARE(run.lastStatus(), u"failed"_s);
    QVERIFY2(run.lastError().contains(expected), qPrintable(run.lastError()));
    QVERIFY(!run.lastError().contains(u'\n'));
    QVERIFY(!doc.isLocked());
    // Usable afterwards: a second run starts and finishes.
    qputenv("FAKE_KWB_MODE", "done");
    QVERIFY(run.start());
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, kTimeout);
    QCOMPARE(run.lastStatus(), u"done"_s);
}

void TestRunController::missingProgramLeavesTheControllerUsable()
{
    StudyDocument doc;
    QVERIFY(doc.load(m_path));
    LiveSeries live;
    RunController run(&doc, &live);
    run.setProgram(m_dir.filePath(u"no-such-kwb"_s));
    QSignalSpy finished(&run, &RunController::finished);
    run.start();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeout);
    QCOMPARE(run.lastStatus(), u"failed"_s);
    QVERIFY(run.lastError().contains(u"no-such-kwb"_s));
    QVERIFY(!run.isRunning());
    QVERIFY(!doc.isLocked());
}

void TestRunController::unsavedStudyIsSavedBeforeTheRun()
{
    qputenv("FAKE_KWB_MODE", "done");
    StudyDocument doc;
    QVERIFY(doc.load(m_path));
    doc.mutableStudy().name = "edited before the run";
    doc.markModified();
    LiveSeries live;
    RunController run(&doc, &live);
    run.setProgram(kFake);
    QSignalSpy finished(&run, &RunController::finished);
    QVERIFY(run.start());
    QVERIFY(!doc.isModified());
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeout);
    QCOMPARE(doc.study().name, std::string("edited before the run")); // reloaded from disk

    StudyDocument unsaved;
    unsaved.newStudy();
    RunController run2(&unsaved, &live);
    QVERIFY(!run2.start());
    QVERIFY(run2.lastError().contains(u"save"_s));
}

void TestRunController::programDefaultsBesideTheExecutable()
{
    qunsetenv("KWB_PROGRAM");
    QVERIFY(RunController::defaultProgram().endsWith(u"/kwb"_s));
    qputenv("KWB_PROGRAM", "/opt/x/kwb");
    QCOMPARE(RunController::defaultProgram(), u"/opt/x/kwb"_s);
    qunsetenv("KWB_PROGRAM");
}

// The device an experiment would run on is the engine's rule (workloads/backend_choice.h), not the
// window's: an embedded workload's auto goes to the GPU, a command's auto stays on the CPU unless a
// device is named, a worker's is the GPU it described.
void TestRunController::runningDeviceIsTheEnginesChoice()
{
    using kwb::Arm;
    using kwb::Experiment;
    using kwb::WorkerSpec;
    const auto experiment = [](const char* workload, const char* backend) {
        Experiment e;
        e.workload = workload;
        e.backend = backend;
        e.arms = {Arm {"baseline", nlohmann::json::object(), std::nullopt},
            Arm {"treatment", nlohmann::json::object(), std::nullopt}};
        return e;
    };
    DeviceProbe probe;
    probe.setResult(R"({"devices":[{"kind":"cpu","name":"c"},
        {"kind":"cuda","name":"NVIDIA H200","uuid":"GPU-a","index":0},
        {"kind":"cuda","name":"NVIDIA H100","uuid":"GPU-b","index":1}]})",
        {});
    QCOMPARE(probe.runningDevice(experiment("gemm", "auto")).model, std::string("NVIDIA H200"));
    QCOMPARE(probe.runningDevice(experiment("gemm", "cpu")).model, std::string("c"));
    QCOMPARE(probe.runningDevice(experiment("command", "auto")).model, std::string("c"));
    QCOMPARE(probe.runningDevice(experiment("command", "auto"), true).model, std::string("NVIDIA H200"));
    QCOMPARE(probe.runningDevice(experiment("command", "cuda")).model, std::string("NVIDIA H200"));
    Experiment worker = experiment("worker", "auto");
    for (auto& arm : worker.arms) {
        arm.worker = WorkerSpec {};
        arm.worker->cmd = "w";
        arm.worker->description.device = {"cuda", "GPU-b", "NVIDIA H100", 1};
    }
    QCOMPARE(probe.runningDevice(worker).uuid, std::string("GPU-b"));
    for (auto& arm : worker.arms)
        arm.worker->description.device = {"cpu", "", "", std::nullopt};
    QCOMPARE(probe.runningDevice(worker).model, std::string("c"));
    // No GPU listed (the GPU backend did not load): auto stays on the CPU.
    probe.setResult(R"({"devices":[{"kind":"cpu","name":"c"}]})", {});
    QCOMPARE(probe.runningDevice(experiment("gemm", "auto")).model, std::string("c"));
    QVERIFY(probe.runningDevice(experiment("gemm", "cuda")).empty());
}

void TestRunController::deviceProbeReadsKwbDevices()
{
    DeviceProbe probe;
    QSignalSpy finished(&probe, &DeviceProbe::finished);
    probe.start(kFake);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeout);
    QCOMPARE(probe.deviceInUse(), u"CPU: Fake CPU"_s);
    QVERIFY(probe.gpuUnavailableReason().contains(u"no NVIDIA driver"_s));
    probe.setResult(R"({"devices":[{"kind":"cpu","name":"c"},{"kind":"cuda","name":"NVIDIA H200"}]})", {});
    QCOMPARE(probe.deviceInUse(), u"NVIDIA H200"_s);
    QVERIFY(probe.gpuUnavailableReason().isEmpty());
}

// `kwb run --devices 0,1 --json-progress`: the cells' lines interleave, each with its device.
// Before, every start line restarted the traces and each progress line replaced the total, so
// the live view mixed two cells and the bar jumped between them.
void TestRunController::devicesRunFollowsInterleavedCells()
{
    qputenv("FAKE_KWB_MODE", "devices");
    const QString argsFile = m_dir.filePath(u"devices-args.txt"_s);
    const QString go = m_dir.filePath(u"devices-go"_s);
    qputenv("FAKE_KWB_ARGS", argsFile.toUtf8());
    qputenv("FAKE_KWB_GO", go.toUtf8());
    StudyDocument doc;
    QVERIFY(doc.load(m_path));
    LiveSeries live;
    RunController run(&doc, &live);
    run.setProgram(kFake);
    run.setDevices(u" 0,1 "_s);
    QSignalSpy finished(&run, &RunController::finished);
    QSignalSpy errors(&run, &RunController::errorReported);
    QSignalSpy reloaded(&doc, &StudyDocument::changed);
    QVERIFY(run.start());

    // Half-way: the first cell ended on device 0 and the parent saved the study; the window
    // reloads it while the run goes on, still locked.
    QTRY_COMPARE_WITH_TIMEOUT(reloaded.count(), 1, kTimeout);
    QVERIFY(run.isRunning());
    QVERIFY(doc.isLocked());
    QCOMPARE(run.cells().size(), 2);
    QCOMPARE(run.cells().value(0).experiment, u"grid-1-r0c1"_s);
    QCOMPARE(run.cells().value(0).state, u"done"_s);
    QCOMPARE(run.cells().value(1).experiment, u"grid-1-r1c0"_s);
    QCOMPARE(run.cells().value(1).state, u"running"_s);
    QCOMPARE(run.followedDevice(), 0);
    QCOMPARE(run.done(), 3); // 2 of 2 on device 0, 1 of 2 on device 1
    QCOMPARE(run.planned(), 4);
    QVERIFY(run.progressText().contains(u"device 1: grid-1-r1c0 1/2"_s));
    // Only device 0's cell reached the live series; device 1's sample and metric did not.
    QCOMPARE(live.arm(u"baseline"_s)->value, QList<double>({10.0}));
    QCOMPARE(live.arm(u"grid-1-r0c1"_s)->value, QList<double>({11.0}));
    QVERIFY(!live.lane(u"cpu_util"_s) || live.lane(u"cpu_util"_s)->value.isEmpty());

    QFile(go).open(QIODevice::WriteOnly);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeout);
    QCOMPARE(run.lastStatus(), u"failed"_s);
    QVERIFY(!doc.isLocked());
    QCOMPARE(reloaded.count(), 2); // and once more at the end
    // Device 0 was free when its next cell started: the live views moved on to it.
    QCOMPARE(run.followedDevice(), 0);
    QCOMPARE(run.cells().value(0).experiment, u"grid-1-r1c1"_s);
    QCOMPARE(live.arm(u"baseline"_s)->value, QList<double>({30.0}));
    QCOMPARE(run.cells().value(1).state, u"failed"_s);
    QCOMPARE(run.done(), 3); // the finished first cell still counts: 2 + 1 (device 1) + 0 (the new cell)
    QCOMPARE(run.planned(), 6);
    QVERIFY(!errors.isEmpty());
    QCOMPARE(errors.first().first().toString(), u"device 1: gemm: device lost"_s);

    QFile args(argsFile);
    QVERIFY(args.open(QIODevice::ReadOnly));
    QCOMPARE(
        QString::fromUtf8(args.readAll().trimmed()), QString(u"run "_s + m_path + u" --json-progress --devices 0,1"_s));
    qunsetenv("FAKE_KWB_ARGS");
    qunsetenv("FAKE_KWB_GO");
}

// The Devices box applies to Run on host as to Run: kwb run --host H --devices LIST.
void TestRunController::devicesHoldOnAHostToo()
{
    qputenv("FAKE_KWB_MODE", "done");
    const QString argsFile = m_dir.filePath(u"host-devices-args.txt"_s);
    qputenv("FAKE_KWB_ARGS", argsFile.toUtf8());
    StudyDocument doc;
    QVERIFY(doc.load(m_path));
    LiveSeries live;
    RunController run(&doc, &live);
    run.setProgram(kFake);
    run.setDevices(u"0,1"_s);
    QSignalSpy finished(&run, &RunController::finished);
    RemoteHost host;
    host.destination = u"gpu-01"_s;
    QVERIFY(run.startOnHost(host));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeout);
    QFile args(argsFile);
    QVERIFY(args.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(args.readAll().trimmed()),
        QString(u"run "_s + m_path + u" --json-progress --host gpu-01 --devices 0,1"_s));
    qunsetenv("FAKE_KWB_ARGS");
}

// Issue 31: Add runs is `kwb run STUDY --continue --runs-per-arm N`; without N, kwb's own target.
void TestRunController::continueAddsRunsToTheFinishedExperiment()
{
    qputenv("FAKE_KWB_MODE", "done");
    const QString argsFile = m_dir.filePath(u"continue-args.txt"_s);
    qputenv("FAKE_KWB_ARGS", argsFile.toUtf8());
    StudyDocument doc;
    QVERIFY(doc.load(m_path));
    LiveSeries live;
    RunController run(&doc, &live);
    run.setProgram(kFake);
    QSignalSpy finished(&run, &RunController::finished);
    QVERIFY(run.startContinue(21));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeout);
    QVERIFY(run.startContinue(std::nullopt));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, kTimeout);
    QFile args(argsFile);
    QVERIFY(args.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(args.readAll().trimmed()).split(u'\n'),
        QStringList({u"run "_s + m_path + u" --json-progress --continue --runs-per-arm 21"_s,
            u"run "_s + m_path + u" --json-progress --continue"_s}));
    QCOMPARE(RunController::continueOptions(3), QStringList({u"--continue"_s, u"--runs-per-arm"_s, u"3"_s}));
    qunsetenv("FAKE_KWB_ARGS");
}

// The real kwb on a CPU grid (2x2: three cells besides the baseline) over two worker slots:
// every cell finishes, each on a device the controller saw, and the reloaded study records it.
void TestRunController::realKwbSpreadsACpuGridOverTwoDevices()
{
    const QString path = m_dir.filePath(u"grid.json"_s);
    QProcess make;
    make.start(QStringLiteral(KWB_PROGRAM_PATH),
        {u"new"_s, u"--workload"_s, u"gemm"_s, u"--param"_s, u"size=128"_s, u"--runs"_s, u"3"_s, u"--backend"_s,
            u"cpu"_s, u"--grid"_s, u"block=32,128"_s, u"--grid"_s, u"threads=1,2"_s, u"--out"_s, path, u"--force"_s});
    QVERIFY(make.waitForFinished(kTimeout));
    QVERIFY2(make.exitCode() == 0, make.readAllStandardError().constData());
    StudyDocument doc;
    QVERIFY(doc.load(path));
    LiveSeries live;
    RunController run(&doc, &live);
    run.setProgram(QStringLiteral(KWB_PROGRAM_PATH));
    run.setDevices(u"0,1"_s);
    QSignalSpy finished(&run, &RunController::finished);
    QSignalSpy errors(&run, &RunController::errorReported);
    QVERIFY(run.start());
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
    QCOMPARE(run.lastStatus(), u"done"_s);
    QCOMPARE(errors.count(), 0);
    QVERIFY(run.cells().size() >= 1 && run.cells().size() <= 2);
    for (const auto& cell : run.cells())
        QCOMPARE(cell.state, u"done"_s);
    QCOMPARE(run.done(), run.planned()); // every repetition of every cell counted once
    QVERIFY(run.planned() > 0);
    std::set<int> devices;
    int placed = 0;
    for (const auto& e : doc.study().experiments) {
        if (!e.placement || !e.placement->device)
            continue;
        ++placed;
        devices.insert(*e.placement->device);
        QVERIFY(*e.placement->device == 0 || *e.placement->device == 1);
    }
    QVERIFY(placed >= 3); // the grid's cells, each placed
    QCOMPARE(devices.size(), 2u); // three cells over two free slots: both were used
}

QTEST_GUILESS_MAIN(TestRunController)
#include "tst_run_controller.moc"
