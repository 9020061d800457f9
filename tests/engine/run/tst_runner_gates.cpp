// SPDX-License-Identifier: GPL-3.0-or-later
// The runner's gates before timing: repetitions calibrated to min_rep_ms with one count for both
// arms, and every arm's output checked against its reference (a wrong arm ends the experiment
// without a verdict, whatever its speed).
#include "runner_harness.h"
#include "study/study_json.h"

#include <QTest>

class TestRunnerGates : public QObject {
    Q_OBJECT

private slots:
    void launchesAreCalibratedOnceForBothArms()
    {
        Harness h;
        RunPlan plan = count_plan(3);
        plan.min_rep_ms = 25;
        // Baseline 10 ms per launch needs 3 launches for 25 ms; the treatment (5 ms) needs 6: both run 6.
        Study s = make_study(2.0, plan, {{"launchable", 1}, {"jitter", 0.0}});
        Experiment& e = s.experiments.front();
        QCOMPARE(h.run(s, e), RunOutcome::Done);
        QVERIFY(e.launches_per_rep);
        QCOMPARE(*e.launches_per_rep, 6);
        for (const auto& x : e.samples) {
            QVERIFY(x.launches);
            QCOMPARE(*x.launches, 6);
        }
        // Values stay per launch.
        QCOMPARE(judged_values(e, "baseline", "time_ms").front(), 10.0);
    }

    void resumedExperimentKeepsItsCount()
    {
        Harness h;
        RunPlan plan = count_plan(2);
        plan.min_rep_ms = 25;
        Study s = make_study(1.0, plan, {{"launchable", 1}});
        Experiment& e = s.experiments.front();
        e.launches_per_rep = 17;
        QCOMPARE(h.run(s, e), RunOutcome::Done);
        QCOMPARE(*e.launches_per_rep, 17);
        QCOMPARE(*e.samples.back().launches, 17);
    }

    void calibrationOffOrImpossibleLeavesTheWorkloadsCount()
    {
        Harness h;
        RunPlan plan = count_plan(2);
        plan.min_rep_ms = 0;
        Study s = make_study(1.0, plan, {{"launchable", 1}});
        QCOMPARE(h.run(s, s.experiments.front()), RunOutcome::Done);
        QVERIFY(!s.experiments.front().launches_per_rep);

        Harness h2;
        Study t = make_study(1.0, count_plan(2)); // no launch count: nothing to calibrate
        QCOMPARE(h2.run(t, t.experiments.front()), RunOutcome::Done);
        QVERIFY(!t.experiments.front().launches_per_rep);
    }

    void everyArmIsCheckedBeforeTiming()
    {
        Harness h;
        Study s = make_study(1.5, count_plan(3));
        Experiment& e = s.experiments.front();
        QCOMPARE(h.run(s, e), RunOutcome::Done);
        for (const auto& arm : e.arms) {
            QVERIFY(arm.check);
            QVERIFY(arm.check->ok);
            QVERIFY(!arm.check->checked_at.empty());
        }
    }

    // The study says whether the arms' kernels ran on the same device buffers, as their checks
    // report it, and keeps it through a save; unknown (a workload that does not say) stays absent.
    void sharedBuffersAreRecordedFromTheChecks()
    {
        const auto run = [](int baseline_set, int treatment_set) {
            Harness h;
            Study s = make_study(1.0, count_plan(2));
            Experiment& e = s.experiments.front();
            e.arms[0].params["buffer_set"] = baseline_set;
            e.arms[1].params["buffer_set"] = treatment_set;
            [&] { QCOMPARE(h.run(s, e), RunOutcome::Done); }();
            return study_from_json(study_to_json(s)).experiments.front().shared_buffers;
        };
        QCOMPARE(run(7, 7), std::optional<bool>(true));
        QCOMPARE(run(7, 8), std::optional<bool>(false));
        QCOMPARE(run(7, 0), std::optional<bool>()); // one arm does not say: unknown, not "separate"
        QCOMPARE(run(0, 0), std::optional<bool>());
    }

    void aWrongTreatmentStillFailsOnSharedBuffers()
    {
        Harness h;
        Study s = make_study(3.0, count_plan(3), {{"buffer_set", 3}});
        Experiment& e = s.experiments.front();
        e.arms[1].params["wrong"] = 1;
        QCOMPARE(h.run(s, e), RunOutcome::Failed);
        QVERIFY(!e.verdict);
        QCOMPARE(e.shared_buffers, std::optional<bool>(true));
        QVERIFY(e.arms[0].check->ok);
        QVERIFY(!e.arms[1].check->ok);
    }

    void aWrongTreatmentEndsWithoutAVerdict()
    {
        Harness h;
        Study s = make_study(3.0, count_plan(3)); // three times faster, and wrong
        Experiment& e = s.experiments.front();
        e.arms[1].params["wrong"] = 1;
        e.verdict = SampleVerdict {}; // a verdict from an earlier session is withdrawn
        QCOMPARE(h.run(s, e), RunOutcome::Failed);
        QCOMPARE(e.status, ExperimentStatus::Failed);
        QVERIFY(!e.verdict.has_value());
        QVERIFY(!e.final_verdict.has_value());
        QVERIFY(e.arms[0].check && e.arms[0].check->ok);
        QVERIFY(e.arms[1].check && !e.arms[1].check->ok);
        QCOMPARE(*e.arms[1].check->max_abs_error, 0.5);
        QVERIFY2(e.error.find("arm treatment") != std::string::npos, e.error.c_str());
        QVERIFY2(e.error.find("no verdict") != std::string::npos, e.error.c_str());
        // The check runs before the warm-ups: nothing ran after it failed.
        QVERIFY(e.samples.empty());
    }
};

QTEST_GUILESS_MAIN(TestRunnerGates)
#include "tst_runner_gates.moc"
