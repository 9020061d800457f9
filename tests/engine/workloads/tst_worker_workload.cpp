// SPDX-License-Identifier: GPL-3.0-or-later
// The worker workload end to end on the fake worker (fake_worker.cpp) through the Runner: describe,
// an A/B to a verdict, the check before the warm-ups and after the last repetition (a wrong
// treatment, a cached result, the worker's own reference, the baseline as reference under atol /
// rtol), each protocol fault as failed repetitions with one restart, the failure limit for
// `ok: false`, a stop during a hang, and no process of a worker left after any of them.
#include "../../process_alive.h"
#include "run/runner.h"
#include "workloads/command/command_controls.h"
#include "workloads/worker/worker_workload.h"

#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <thread>

using namespace kwb;

namespace {

const std::string kFake = KWB_FAKE_WORKER;

using kwbtest::process_alive;

std::vector<int> pids_in(const std::string& path)
{
    std::vector<int> pids;
    std::ifstream in(path);
    for (int pid = 0; in >> pid;)
        pids.push_back(pid);
    return pids;
}

WorkerSpec spec(const std::string& args)
{
    WorkerSpec w;
    w.cmd = fmt::format("'{}' {}", kFake, args);
    w.timeout_s = 60;
    w.description = worker::describe_worker(w, "probe");
    return w;
}

Study worker_study(const WorkerSpec& base, const WorkerSpec& treat, nlohmann::json bp, nlohmann::json tp, int runs = 6,
    double min_rep_ms = 0)
{
    Study s;
    s.name = "worker";
    s.target.metric = "time_ms";
    Experiment e;
    e.id = "ab-1";
    e.workload = worker::kWorkerWorkload;
    e.metric = "time_ms";
    e.plan.runs_per_arm = runs;
    e.plan.warmup_runs = min_rep_ms > 0 ? 1 : 0;
    e.plan.min_rep_ms = min_rep_ms;
    if (bp.is_null())
        bp = nlohmann::json::object(); // `{}` in a call is null, not an empty object
    if (tp.is_null())
        tp = nlohmann::json::object();
    Arm a {"baseline", std::move(bp)}, b {"treatment", std::move(tp)};
    a.worker = base;
    b.worker = treat;
    e.arms = {a, b};
    s.experiments.push_back(e);
    return s;
}

RunOutcome run(Study& s, const std::atomic<bool>* cancel = nullptr)
{
    const auto w = worker::make_worker_workload();
    RunnerOptions o;
    o.cancel = cancel;
    Runner r(*w, o);
    return r.run(s, s.experiments.front());
}

int failed_of(const Experiment& e, const std::string& arm)
{
    return static_cast<int>(
        std::count_if(e.samples.begin(), e.samples.end(), [&](const Sample& x) { return x.arm == arm && x.failed; }));
}

int judged_of(const Experiment& e, const std::string& arm)
{
    return static_cast<int>(std::count_if(e.samples.begin(), e.samples.end(),
        [&](const Sample& x) { return x.arm == arm && !x.failed && !x.warmup && x.metrics.count("time_ms"); }));
}

} // namespace

class TestWorkerWorkload : public QObject {
    Q_OBJECT
private slots:
    void describe_reads_the_parameters()
    {
        const WorkerSpec w = spec("");
        QCOMPARE(w.description.worker, std::string("fake-normal"));
        QCOMPARE(w.description.params.size(), size_t(2));
        QCOMPARE(w.description.params[1].values.size(), size_t(2));
        QCOMPARE(w.description.device.kind, std::string("cpu"));
        const auto described = worker::described_workload(w.description);
        const auto resolved = resolve_params(*described, {{"variant", "b"}});
        QCOMPARE(resolved["work"].get<int>(), 1);
        QCOMPARE(resolved["cache"].get<std::string>(), std::string("hot")); // kwb's own parameter
        QVERIFY_THROWS_EXCEPTION(WorkloadError, described->validate({{"variant", "c"}, {"work", 1}}, Backend::Cpu));
        QVERIFY_THROWS_EXCEPTION(WorkloadError, resolve_params(*described, {{"blocks", 2}}));
        // A worker that does not speak protocol 1 is refused at describe.
        WorkerSpec bad;
        bad.cmd = fmt::format("'{}' --mode bad-hello", kFake);
        QVERIFY_THROWS_EXCEPTION(WorkloadError, worker::describe_worker(bad, "probe"));
    }

    void ab_reaches_a_verdict()
    {
        QTemporaryDir dir;
        const std::string pids = dir.filePath(QStringLiteral("pids")).toStdString();
        const WorkerSpec w = spec(fmt::format("--pidfile '{}'", pids));
        std::filesystem::remove(pids); // the describe above ran it once
        Study s = worker_study(w, w, {{"work", 1}}, {{"work", 3}}, 6, 2);
        QCOMPARE(run(s), RunOutcome::Done);
        const auto& e = s.experiments.front();
        QVERIFY2(e.final_verdict.has_value(), e.error.c_str());
        QCOMPARE(std::string(to_string(e.verdict->word)), std::string("KILL")); // 3x the time per launch
        QVERIFY(e.launches_per_rep.value_or(0) > 1); // calibrated to min_rep_ms, one count for both
        for (const auto& arm : e.arms) {
            QVERIFY(arm.check && arm.check->ok);
            QVERIFY2(arm.check->compared.find("after the last repetition") != std::string::npos,
                arm.check->compared.c_str());
        }
        QVERIFY(e.arms[1].check->compared.find("against the baseline's output") != std::string::npos);
        QCOMPARE(judged_of(e, "treatment"), 6);
        const auto& sample = e.samples.back();
        QVERIFY(sample.metrics.count("tflops")); // from prepare's flop_per_launch
        QVERIFY(sample.metrics.count("launches_seen")); // a described metric
        QCOMPARE(pids_in(pids).size(), size_t(2)); // one worker per arm, started once
        for (int pid : pids_in(pids))
            QTRY_VERIFY(!process_alive(pid));
    }

    void failed_check_ends_the_run_without_verdict_data()
    {
        QTest::addColumn<QString>("treatment");
        QTest::addColumn<bool>("before_warmups");
        QTest::addRow("wrong output") << "--mode wrong" << true;
        QTest::addRow("cached result") << "--mode cache" << false; // passes the first check only
        QTest::addRow("own reference, off by 1 percent") << "--reference --error 0.01" << true;
        QTest::addRow("baseline reference, off by 1 percent") << "--error 0.01" << true;
    }
    void failed_check_ends_the_run_without_verdict()
    {
        QFETCH(QString, treatment);
        QFETCH(bool, before_warmups);
        const bool reference = treatment.contains(QStringLiteral("--reference"));
        Study s = worker_study(spec(reference ? "--reference" : ""), spec(treatment.toStdString()), {}, {});
        QCOMPARE(run(s), RunOutcome::Failed);
        const auto& e = s.experiments.front();
        QVERIFY(!e.verdict && !e.final_verdict);
        QVERIFY2(e.error.find("correctness check") != std::string::npos, e.error.c_str());
        QCOMPARE(e.error.find("after the last repetition") == std::string::npos, before_warmups);
        QCOMPARE(e.samples.empty(), before_warmups);
        QVERIFY(e.arms[1].check && !e.arms[1].check->ok);
        QVERIFY(e.arms[0].check && e.arms[0].check->ok);
    }

    void baseline_as_reference_tolerance_data()
    {
        QTest::addColumn<double>("error");
        QTest::addColumn<double>("rtol");
        QTest::addColumn<bool>("passes");
        QTest::addRow("1e-4 under rtol 1e-3") << 1e-4 << 1e-3 << true;
        QTest::addRow("1e-4 over rtol 1e-6") << 1e-4 << 1e-6 << false;
        QTest::addRow("1e-2 over rtol 1e-3") << 1e-2 << 1e-3 << false;
    }
    void baseline_as_reference_tolerance()
    {
        QFETCH(double, error);
        QFETCH(double, rtol);
        QFETCH(bool, passes);
        WorkerSpec t = spec(fmt::format("--error {}", error));
        t.atol = 0;
        t.rtol = rtol;
        Study s = worker_study(spec(""), t, {}, {}, 2);
        QCOMPARE(run(s) == RunOutcome::Done, passes);
        const auto& check = *s.experiments.front().arms[1].check;
        QCOMPARE(check.ok, passes);
        QVERIFY(check.max_rel_error.value_or(0) > error / 2); // the error measured, not assumed
    }

    void faults_are_failed_repetitions_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("reason");
        QTest::addRow("garbage") << "garbage"
                                 << "not a JSON object";
        QTest::addRow("partial line then exit") << "partial"
                                                << "partial line";
        QTest::addRow("crash") << "crash"
                               << "closed stdout"; // abort(): sh reports exit 134
        QTest::addRow("hang") << "hang"
                              << "no answer within";
        QTest::addRow("huge message") << "huge"
                                      << "longer than";
        QTest::addRow("wrong id") << "wrong-id"
                                  << "has id";
        QTest::addRow("missing total_ms") << "no-total"
                                          << "total_ms";
    }
    void faults_are_failed_repetitions()
    {
        QFETCH(QString, mode);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const std::string pids = dir.filePath(QStringLiteral("pids")).toStdString();
        // The second `time` of every treatment process faults; its first succeeds.
        WorkerSpec t = spec(fmt::format("--mode {} --fault-at 2 --child --pidfile '{}'", mode.toStdString(), pids));
        t.timeout_s = 1; // the hang's timeout
        std::filesystem::remove(pids); // the describe above ran it once
        Study s = worker_study(spec(""), t, {}, {}, 10);
        QCOMPARE(run(s), RunOutcome::Failed);
        const auto& e = s.experiments.front();
        // Failed, restarted once, failed again: the experiment ends, everything measured kept.
        QCOMPARE(failed_of(e, "treatment"), 2);
        QCOMPARE(judged_of(e, "treatment"), 2);
        QVERIFY(judged_of(e, "baseline") >= 2);
        QVERIFY2(e.error.find("restarted once") != std::string::npos, e.error.c_str());
        for (const auto& x : e.samples)
            if (x.failed) {
                QVERIFY(x.metrics.empty() && x.discarded);
                QVERIFY2(x.note.find(reason.toStdString()) != std::string::npos, x.note.c_str());
                QVERIFY2(x.stderr_tail.find("fake worker") != std::string::npos, x.stderr_tail.c_str());
            }
        QVERIFY(!e.verdict);
        // Two treatment workers, each with its child: none outlives the run.
        QCOMPARE(pids_in(pids).size(), size_t(4));
        for (int pid : pids_in(pids))
            QTRY_VERIFY(!process_alive(pid));
    }

    // `ok: false` fails the repetition but the worker lives on: no restart, the failure limit stops it.
    void failed_requests_meet_the_failure_limit()
    {
        QTemporaryDir dir;
        const std::string pids = dir.filePath(QStringLiteral("pids")).toStdString();
        const WorkerSpec t = spec(fmt::format("--mode fail-time --fault-at 2 --pidfile '{}'", pids));
        std::filesystem::remove(pids); // the describe above ran it once
        Study s = worker_study(spec(""), t, {}, {}, 10);
        QCOMPARE(run(s), RunOutcome::Failed);
        const auto& e = s.experiments.front();
        QCOMPARE(failed_of(e, "treatment"), command::max_failed_repetitions(e.plan) + 1);
        QVERIFY2(e.error.find("failed repetitions") != std::string::npos, e.error.c_str());
        QVERIFY(e.samples.back().note.find("out of memory") != std::string::npos);
        QCOMPARE(pids_in(pids).size(), size_t(1));
        QTRY_VERIFY(!process_alive(pids_in(pids).front()));
    }

    void unrequested_stdout_fails_the_start()
    {
        Study s = worker_study(spec(""), spec(""), {}, {});
        s.experiments.front().arms[1].worker->cmd = fmt::format("'{}' --print-on-start", kFake);
        QCOMPARE(run(s), RunOutcome::Failed);
        const auto& e = s.experiments.front().error;
        QVERIFY2(e.find("did not start") != std::string::npos && e.find("not JSON") != std::string::npos, e.c_str());
    }

    // A stop while the worker hangs in `time` (timeout 600 s) ends the run at once, worker included.
    void stop_ends_a_hanging_worker()
    {
        QTemporaryDir dir;
        const std::string pids = dir.filePath(QStringLiteral("pids")).toStdString();
        WorkerSpec t = spec(fmt::format("--mode hang --fault-at 2 --pidfile '{}'", pids));
        t.timeout_s = 600;
        std::filesystem::remove(pids); // the describe above ran it once
        Study s = worker_study(spec(""), t, {}, {}, 10);
        std::atomic<bool> cancel {false};
        std::thread stopper([&] {
            // Once the treatment's worker runs, its second repetition soon hangs. Whenever the stop
            // lands (in the hang or before it), the run must end stopped with nothing failed.
            while (pids_in(pids).empty())
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            std::this_thread::sleep_for(std::chrono::milliseconds(1000));
            cancel = true;
        });
        const RunOutcome outcome = run(s, &cancel);
        stopper.join();
        QCOMPARE(outcome, RunOutcome::Stopped);
        QCOMPARE(failed_of(s.experiments.front(), "treatment"), 0); // a stop is not a failure
        for (int pid : pids_in(pids))
            QTRY_VERIFY(!process_alive(pid));
    }
};

QTEST_GUILESS_MAIN(TestWorkerWorkload)
#include "tst_worker_workload.moc"
