// SPDX-License-Identifier: GPL-3.0-or-later
// The engine's run session owns the rules every way of running asks: ids unique, the arms' shape,
// the workload and metric, the backend, device continuation. The window's Run button asks the same
// shape rule (study/gates.h run_blocked), so what one refuses the other refuses.
#include "fake_workload.h"
#include "run/run_session.h"
#include "run/visible_gpu.h"
#include "study/device_identity.h"
#include "study/gates.h"
#include "study/study_file.h"
#include "workloads/command/command_workload.h"

#include <QTemporaryDir>
#include <QTest>

using namespace kwb;

namespace {

Experiment ab(const std::string& id, double treatment_speed)
{
    Experiment e;
    e.id = id;
    e.workload = "fake";
    e.metric = "time_ms";
    e.backend = "cpu";
    e.arms = {{"baseline", {{"speed", 1.0}}}, {"treatment", {{"speed", treatment_speed}}}};
    return e;
}

Study studyOf(std::vector<Experiment> experiments)
{
    Study s;
    s.target = {"time_ms", Direction::Lower, "ms", 30.0, 20.0, "", "", ""};
    s.prediction.predicted_delta_pct = 10;
    s.experiments = std::move(experiments);
    return s;
}

Sample judged(const std::string& arm, int position)
{
    Sample s;
    s.arm = arm;
    s.position = position;
    s.metrics["time_ms"] = 10;
    return s;
}

} // namespace

class TestRunSession : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        registry_.add(std::make_unique<test::FakeWorkload>(nullptr));
        registry_.add(command::make_command_workload());
    }

    // A command arm runs where it is told: the GPU at --device for backend cuda (or auto when the
    // run names a device and a GPU is there), recorded as the experiment's device; else the CPU.
    // On a machine without a GPU, cuda is this machine's problem and auto stays on the CPU.
    void commandArmsRecordTheGpuTheyAreToldTheyUse_data()
    {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<bool>("deviceNamed");
        QTest::addColumn<bool>("onGpu"); // where a GPU is visible at index 0
        QTest::addRow("cuda") << QStringLiteral("cuda") << false << true;
        QTest::addRow("cuda, --device") << QStringLiteral("cuda") << true << true;
        QTest::addRow("auto") << QStringLiteral("auto") << false << false;
        QTest::addRow("auto, --device") << QStringLiteral("auto") << true << true;
        QTest::addRow("cpu, --device") << QStringLiteral("cpu") << true << false;
    }
    void commandArmsRecordTheGpuTheyAreToldTheyUse()
    {
        QFETCH(QString, backend);
        QFETCH(bool, deviceNamed);
        QFETCH(bool, onGpu);
        Experiment e;
        e.id = "ab-1";
        e.workload = command::kCommandWorkload;
        e.metric = "time_ms";
        e.backend = backend.toStdString();
        e.arms = {{"baseline", nlohmann::json::object()}, {"treatment", nlohmann::json::object()}};
        e.arms[0].command = CommandSpec {};
        e.arms[0].command->cmd = "true";
        e.arms[1].command = CommandSpec {};
        e.arms[1].command->cmd = "false";
        Study s = studyOf({e});
        const auto gpu = visible_gpu(0);
        RunSettings settings {"s.json", "", 0, false, false, deviceNamed};
        const Runnability r = check_runnable(registry_, s, s.experiments[0], "", deviceNamed);
        QVERIFY2(r.problem.empty(), r.problem.c_str());
        if (onGpu && !gpu) {
            if (backend == u"cuda") { // asked for a GPU that is not here: the machine's problem
                QVERIFY2(
                    r.unavailable.find("the commands' GPU is not visible: no CUDA device 0 here") != std::string::npos,
                    r.unavailable.c_str());
                QVERIFY_THROWS_EXCEPTION(std::runtime_error, (void)RunSession(registry_, settings).plan(s));
                return;
            }
            onGpu = false; // auto falls back to the CPU
        }
        QVERIFY2(r.runnable(), r.unavailable.c_str());
        QCOMPARE(r.backend, onGpu ? Backend::Cuda : Backend::Cpu);
        const SessionPlan plan = RunSession(registry_, settings).plan(s);
        QCOMPARE(plan.experiments.size(), size_t {1});
        const DeviceIdentity& device = s.experiments[0].device;
        QCOMPARE(device.kind, std::string(onGpu ? "cuda" : "cpu"));
        if (onGpu)
            QCOMPARE(device.model, gpu->model); // the GPU, never the host's CPU
    }

    void plansEachRunnableExperimentOnItsBackend()
    {
        Study s = studyOf({ab("ab-1", 2.0), ab("ab-2", 3.0)});
        s.experiments[1].status = ExperimentStatus::Done; // done ones are not rerun
        const RunSession session(registry_, {"s.json", "", 0, false, false});
        const SessionPlan plan = session.plan(s);
        QCOMPARE(plan.experiments.size(), size_t {1});
        QCOMPARE(plan.experiments[0].index, size_t {0});
        QCOMPARE(plan.experiments[0].backend, Backend::Cpu);
        QCOMPARE(plan.experiments[0].workload->name(), std::string("fake"));
        QCOMPARE(s.experiments[0].device.kind, std::string("cpu")); // it takes the device it runs on
        QVERIFY(plan.notices.empty());
    }

    void duplicateIdsAreRefused()
    {
        Study s = studyOf({ab("ab-1", 2.0), ab("ab-1", 3.0)});
        const RunSession session(registry_, {"s.json", "", 0, false, false});
        try {
            (void)session.plan(s);
            QFAIL("two experiments with one id were planned");
        } catch (const RunRefused& e) {
            QVERIFY2(std::string(e.what()).find("two experiments have the id 'ab-1'") != std::string::npos, e.what());
        }
    }

    // One rule for both: kwb run and the window's Run button refuse and accept the same arms.
    void theWindowAndTheRunAgree_data()
    {
        QTest::addColumn<int>("variant");
        QTest::addColumn<bool>("runnable");
        QTest::addRow("single variable") << 0 << true;
        QTest::addRow("identical arms: an A/A") << 1 << true;
        QTest::addRow("two variables") << 2 << false;
        QTest::addRow("two variables acknowledged") << 3 << true;
        QTest::addRow("arms with one name") << 4 << false;
        QTest::addRow("unknown profile") << 5 << false;
    }

    void theWindowAndTheRunAgree()
    {
        QFETCH(int, variant);
        QFETCH(bool, runnable);
        Experiment e = ab("ab-1", 2.0);
        if (variant == 1)
            e.arms[1].params["speed"] = 1.0;
        if (variant == 2 || variant == 3)
            e.arms[1].params["jitter"] = 0.5;
        e.acknowledged_multi_variable = variant == 3;
        if (variant == 4)
            e.arms[1].name = "baseline";
        if (variant == 5)
            e.profile = "no-such-profile";
        const Study s = studyOf({e});
        const Runnability r = check_runnable(registry_, s, s.experiments[0], "");
        const auto blocked = run_blocked(s, &s.experiments[0], defaults());
        QCOMPARE(r.runnable(), runnable);
        QCOMPARE(!blocked.has_value(), runnable);
        if (!runnable) // the same sentence, the window's prefixed with where to fix it
            QVERIFY2(blocked->find(r.problem) != std::string::npos, blocked->c_str());
        if (variant == 1)
            QVERIFY(!r.notices.empty() && r.notices[0].find("identical") != std::string::npos);
    }

    void unknownWorkloadAndMetricAreBadInput()
    {
        Experiment e = ab("ab-1", 2.0);
        e.metric = "tokens_per_s";
        QVERIFY(check_runnable(registry_, studyOf({e}), e, "").problem.find("has no metric 'tokens_per_s'")
            != std::string::npos);
        e.workload = "nope";
        QVERIFY(check_runnable(registry_, studyOf({e}), e, "").problem.find("unknown workload 'nope'")
            != std::string::npos);
    }

    // Samples of one device model are never continued on another: refused, or with --new-device
    // continued as a new experiment; an experiment without samples takes the device it runs on.
    void deviceContinuation()
    {
        Study s = studyOf({ab("ab-1", 2.0)});
        Experiment& e = s.experiments[0];
        e.status = ExperimentStatus::Stopped;
        e.device = {"cpu", "Some Other CPU 9000", "", std::nullopt, ""};
        QVERIFY(may_continue_on(e, device_identity_here(Backend::Cpu, 0))); // no samples yet
        e.samples = {judged("baseline", 0), judged("treatment", 1)};
        QVERIFY(!may_continue_on(e, device_identity_here(Backend::Cpu, 0)));
        {
            Study copy = s;
            const RunSession session(registry_, {"s.json", "", 0, false, false});
            QVERIFY_THROWS_EXCEPTION(RunRefused, (void)session.plan(copy));
        }
        const RunSession session(registry_, {"s.json", "", 0, /*new_device=*/true, false});
        const SessionPlan plan = session.plan(s);
        QCOMPARE(s.experiments.size(), size_t {2});
        QCOMPARE(plan.experiments.size(), size_t {1});
        QCOMPARE(plan.experiments[0].index, size_t {1});
        QCOMPARE(s.experiments[0].status, ExperimentStatus::Done); // judged as it stands
        QVERIFY(s.experiments[1].samples.empty());
        QVERIFY(s.experiments[1].controls.notes.find("continues experiment ab-1") != std::string::npos);
    }

    void cudaWhereThereIsNoneIsTheMachinesProblem()
    {
        Study s = studyOf({ab("ab-1", 2.0)});
        const RunSession session(registry_, {"s.json", "cuda", 0, false, false});
        try { // the fake workload has no cuda backend: that is the study's problem, not the machine's
            (void)session.plan(s);
            QFAIL("a cpu-only workload was planned on cuda");
        } catch (const RunRefused& e) {
            QVERIFY2(std::string(e.what()).find("fake has no cuda backend") != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(RunRefused, (void)RunSession(registry_, {"s.json", "tpu", 0, false, false}).plan(s));
    }

    // The session runs what it planned to its saved result: every repetition in the file, the
    // caller told of each experiment's end; a failing arm ends the session failed, naming it.
    void runsThePlanToItsSavedResult()
    {
        QTemporaryDir dir;
        const std::string file = dir.filePath(QStringLiteral("s.json")).toStdString();
        Study s = studyOf({ab("ab-1", 2.0), ab("ab-2", 1.5)});
        for (auto& e : s.experiments) {
            e.plan.runs_per_arm = 4;
            e.plan.warmup_runs = 1;
            e.plan.min_rep_ms = 0;
        }
        s.experiments[1].arms[1].params["fail_at"] = 1; // its treatment's second repetition throws
        s.experiments[1].acknowledged_multi_variable = true;
        const RunSession session(registry_, {file, "", 0, false, false});
        const SessionPlan plan = session.plan(s);
        std::vector<std::pair<std::string, RunOutcome>> ended;
        int guarded = 0;
        SessionIo io;
        io.file = file;
        io.guarded = [&](const std::function<void()>& save) {
            ++guarded;
            save();
        };
        io.experiment_done = [&](const Experiment& e, RunOutcome o) { ended.emplace_back(e.id, o); };
        const SessionResult result = session.run(s, plan, io);
        QCOMPARE(result.status, std::string("failed"));
        QCOMPARE(result.failed_experiment, std::string("ab-2"));
        QCOMPARE(ended.size(), size_t {2});
        QCOMPARE(ended[0].second, RunOutcome::Done);
        QCOMPARE(ended[1].second, RunOutcome::Failed);
        QVERIFY(guarded > 8); // every repetition's save went through the caller's guard
        const Study saved = load_study(file);
        QCOMPARE(saved.experiments[0].status, ExperimentStatus::Done);
        QVERIFY(saved.experiments[0].verdict.has_value());
        int judged = 0;
        for (const auto& sample : saved.experiments[0].samples)
            judged += !sample.warmup;
        QCOMPARE(judged, 8);
        QCOMPARE(saved.experiments[1].status, ExperimentStatus::Failed);
    }

    void aCancelBeforeAnExperimentStopsTheSession()
    {
        QTemporaryDir dir;
        const std::string file = dir.filePath(QStringLiteral("s.json")).toStdString();
        Study s = studyOf({ab("ab-1", 2.0)});
        const RunSession session(registry_, {file, "", 0, false, false});
        const SessionPlan plan = session.plan(s);
        std::atomic<bool> cancel {true};
        SessionIo io;
        io.file = file;
        io.cancel = &cancel;
        const SessionResult result = session.run(s, plan, io);
        QCOMPARE(result.status, std::string("stopped"));
        QVERIFY(result.stopped_experiment.empty());
        QVERIFY(s.experiments[0].samples.empty());
    }

private:
    nlohmann::json defaults() const
    {
        nlohmann::json d = nlohmann::json::object();
        for (const auto& p : registry_.find("fake")->params())
            d[p.name] = p.default_value;
        return d;
    }
    WorkloadRegistry registry_;
};

QTEST_GUILESS_MAIN(TestRunSession)
#include "tst_run_session.moc"
