// SPDX-License-Identifier: GPL-3.0-or-later
// The Runner against a deterministic fake workload and a fake clock: run order, stopping rules,
// cancellation and resume, workload errors, checkpoints, sampler lanes, verdicts and gates.
#include "run/judge_experiment.h"
#include "run/runner.h"
#include "runner_harness.h"
#include "study/study_file.h"
#include "study/study_json.h"

#include <QTest>
#include <thread>

class TestRunner : public QObject {
    Q_OBJECT

private slots:
    void countRunsInterleavedAndJudges()
    {
        Harness h;
        Study s = make_study(1.25, count_plan(4));
        Experiment& e = s.experiments[0];
        QCOMPARE(h.run(s, e), RunOutcome::Done);
        QCOMPARE(e.status, ExperimentStatus::Done);
        QCOMPARE(arm_letters(e), std::string("ABBAABBA"));
        QCOMPARE(e.samples.size(), size_t(10)); // 2 warm-ups + 8
        QVERIFY(e.samples[0].warmup && e.samples[1].warmup);
        QCOMPARE(judged_values(e, "baseline", "time_ms").size(), size_t(4));
        QVERIFY(e.stop_reason.starts_with("plan complete"));
        QVERIFY(pairing_applies(e));
        QCOMPARE(std::string(to_string(e.verdict->word)), std::string("LICENSE")); // 20% faster, sigma ~1%
        QVERIFY(e.verdict->paired.has_value());
        // No tradeoff named: the study-level rules hold the license back.
        QCOMPARE(std::string(to_string(e.final_verdict->word)), std::string("INCONCLUSIVE"));
        QCOMPARE(s.ledger.size(), size_t(1));
        QCOMPARE(s.ledger[0].verdict, std::string("INCONCLUSIVE"));
        QCOMPARE(h.recorder.start.order.size(), size_t(8));
        QCOMPARE(h.recorder.events.front(), std::string("start"));
        QCOMPARE(h.recorder.events.back(), std::string("verdict"));
        QCOMPARE(h.recorder.progress.back().done, 8);
        QCOMPARE(h.recorder.progress.back().planned, 8);
        QVERIFY(h.recorder.progress.back().eta_s.has_value());
    }

    void signalDuringTheLastRepetitionStillCompletes()
    {
        Harness h;
        Study s = make_study(1.25, count_plan(3, 0));
        Experiment& e = s.experiments[0];
        h.recorder.after_sample = [&](const Sample& smp) {
            if (smp.position == 5)
                h.cancel = true;
        };
        QCOMPARE(h.run(s, e), RunOutcome::Done);
        QCOMPARE(e.status, ExperimentStatus::Done);
        QVERIFY(e.stop_reason.starts_with("plan complete"));
    }

    void resultsSurviveTheFileRoundTrip()
    {
        Harness h;
        RunPlan p = count_plan(6);
        p.split_halves = 3;
        FakeSampler sampler;
        h.samplers = {&sampler};
        Study s = make_study(1.25, p);
        s.experiments[0].guards = {"guard_ms"};
        h.run(s, s.experiments[0]);
        const std::string once = study_to_json(s).dump();
        const Study back = parse_study(once, "memory");
        QCOMPARE(study_to_json(back).dump(), once);
        QCOMPARE(back.experiments[0].samples.size(), s.experiments[0].samples.size());
        QVERIFY(back.experiments[0].split_half.has_value());
    }

    void checkpointAfterEveryRepetition()
    {
        Harness h;
        Study s = make_study(1.0, count_plan(3));
        QCOMPARE(h.run(s, s.experiments[0]), RunOutcome::Done);
        // One save when it starts (status running), one per repetition, one with the verdict.
        std::vector<size_t> expected = {0};
        for (size_t i = 1; i <= 8; ++i)
            expected.push_back(i);
        expected.push_back(8);
        QCOMPARE(h.checkpoint_sizes, expected);
    }

    void randomisedBlocksFollowTheSchedule()
    {
        Harness h;
        RunPlan p = count_plan(6, 0);
        p.order = RunOrder::RandomisedBlocks;
        p.seed = 99;
        Study s = make_study(1.0, p);
        h.run(s, s.experiments[0]);
        std::string expected;
        for (const auto& name : order_names(s.experiments[0].arms, p, 6))
            expected += name == "baseline" ? 'A' : 'B';
        QCOMPARE(arm_letters(s.experiments[0]), expected);
    }

    void durationStopsAtABlockBoundaryAfterMinN()
    {
        Harness h;
        RunPlan p = count_plan(5, 0);
        p.stop = StopRule::Duration;
        p.duration_s = 7; // each fake repetition takes 1 s: after 4 blocks 8 s have passed
        Study s = make_study(1.0, p);
        Experiment& e = s.experiments[0];
        QCOMPARE(h.run(s, e), RunOutcome::Done);
        QCOMPARE(arm_letters(e), std::string("ABBAABBA"));
        QVERIFY2(e.stop_reason.starts_with("duration"), e.stop_reason.c_str());
    }

    void durationStillNeedsMinN()
    {
        Harness h;
        RunPlan p = count_plan(5, 0);
        p.stop = StopRule::Duration;
        p.duration_s = 0.5;
        Study s = make_study(1.0, p);
        h.run(s, s.experiments[0]);
        QCOMPARE(judged_values(s.experiments[0], "treatment", "time_ms").size(), size_t(3)); // generic min_n
    }

    void durationHasACap()
    {
        Harness h;
        RunPlan p = count_plan(5, 0);
        p.stop = StopRule::Duration;
        p.duration_s = 1e6;
        p.max_runs_per_arm = 4;
        Study s = make_study(1.0, p);
        h.run(s, s.experiments[0]);
        QCOMPARE(judged_values(s.experiments[0], "baseline", "time_ms").size(), size_t(4));
        QVERIFY(s.experiments[0].stop_reason.starts_with("max count"));
    }

    void maxSecondsStopsAnyRule()
    {
        Harness h;
        RunPlan p = count_plan(100, 0);
        p.max_seconds = 5;
        Study s = make_study(1.0, p);
        h.run(s, s.experiments[0]);
        QCOMPARE(arm_letters(s.experiments[0]), std::string("ABBAAB")); // 6 s at the third boundary
        QVERIFY(s.experiments[0].stop_reason.starts_with("max time"));
    }

    void decisionStopsWhenTheVerdictHolds()
    {
        Harness h;
        RunPlan p = count_plan(20, 0);
        p.stop = StopRule::Decision;
        Study s = make_study(1.25, p);
        Experiment& e = s.experiments[0];
        h.run(s, e);
        // 20% faster with a spread of about 1%: the first look (3 pairs) already lies wholly
        // beyond the license line, so the rule stops there and the study records why.
        QCOMPARE(judged_values(e, "baseline", "time_ms").size(), size_t(3));
        QVERIFY2(e.stop_reason.starts_with("decision"), e.stop_reason.c_str());
        QVERIFY(e.stopping.has_value());
        QCOMPARE(e.stopping->code, std::string("beyond-license"));
        QCOMPARE(e.stopping->looks, 1);
        QVERIFY(e.stopping->interval && (*e.stopping->interval)[0] >= 10);
    }

    void decisionHasACap()
    {
        Harness h;
        RunPlan p = count_plan(4, 0);
        p.stop = StopRule::Decision;
        Study s = make_study(1.0753, p); // 7% better: the grey zone, which no early stop may claim
        h.run(s, s.experiments[0]);
        QCOMPARE(judged_values(s.experiments[0], "baseline", "time_ms").size(), size_t(4));
        QVERIFY(s.experiments[0].stop_reason.starts_with("max count"));
        QCOMPARE(s.experiments[0].stopping->code, std::string("max-count"));
    }

    void cancellationKeepsFinishedRepetitions()
    {
        Harness h;
        Study s = make_study(1.25, count_plan(10));
        Experiment& e = s.experiments[0];
        h.recorder.after_sample = [&](const Sample& smp) {
            if (!smp.warmup && smp.position == 6) // the 7th judged run: mid-block
                h.cancel = true;
        };
        QCOMPARE(h.run(s, e), RunOutcome::Stopped);
        QCOMPARE(e.status, ExperimentStatus::Stopped);
        QCOMPARE(arm_letters(e), std::string("ABBAABB"));
        QVERIFY(e.stop_reason.starts_with("stopped"));
        QVERIFY(!pairing_applies(e)); // a torn block: 3 baseline, 4 treatment
        QCOMPARE(static_cast<int>(e.verdict->n_baseline()), 3);
        QCOMPARE(static_cast<int>(e.verdict->n_treatment()), 4);
        QVERIFY(e.final_verdict.has_value());
        QCOMPARE(h.checkpoint_sizes.back(), e.samples.size());

        // Resume: warm-ups again (a new process is cold), then the order from position 7 on.
        h.cancel = false;
        h.recorder = Recorder {};
        QCOMPARE(h.run(s, e), RunOutcome::Done);
        QCOMPARE(arm_letters(e), std::string("ABBAABBAABBAABBAABBA"));
        QCOMPARE(h.recorder.start.done_before, 7);
        QCOMPARE(e.samples.size(), size_t(2 + 7 + 2 + 13));
        QVERIFY(pairing_applies(e));
        QCOMPARE(static_cast<int>(e.verdict->n_treatment()), 10);
        QCOMPARE(s.ledger.size(), size_t(1)); // the experiment's entry is replaced, not repeated
    }

    void cancelBeforeStartRunsNothing()
    {
        Harness h;
        h.cancel = true;
        Study s = make_study(1.0, count_plan(3));
        QCOMPARE(h.run(s, s.experiments[0]), RunOutcome::Stopped);
        QVERIFY(s.experiments[0].samples.empty());
        QVERIFY(!s.experiments[0].verdict.has_value());
    }

    void workloadErrorFailsAndKeepsSamples()
    {
        Harness h;
        Study s = make_study(1.0, count_plan(5, 0));
        Experiment& e = s.experiments[0];
        e.arms[1].params["fail_at"] = 2;
        QCOMPARE(h.run(s, e), RunOutcome::Failed);
        QCOMPARE(e.status, ExperimentStatus::Failed);
        QVERIFY(e.error.find("device fell over") != std::string::npos);
        QCOMPARE(arm_letters(e), std::string("ABBAA")); // the treatment's third run threw
        QVERIFY(!e.verdict.has_value());
        QVERIFY(std::any_of(h.recorder.events.begin(), h.recorder.events.end(),
            [](const std::string& ev) { return ev.starts_with("error: "); }));
        QCOMPARE(h.checkpoint_sizes.back(), size_t(5));
    }

    void samplerReadingsBecomeLanesAndEvents()
    {
        Harness h;
        FakeSampler sampler;
        h.samplers = {&sampler};
        Study s = make_study(1.0, count_plan(3));
        h.run(s, s.experiments[0]);
        const auto& lanes = s.experiments[0].lanes;
        QCOMPARE(lanes.size(), size_t(1));
        QCOMPARE(lanes[0].name, std::string("cpu_util"));
        QCOMPARE(lanes[0].unit, std::string("%"));
        QCOMPARE(lanes[0].values, (std::vector<double> {50, 51, 52}));
        QCOMPARE(h.recorder.metrics.size(), size_t(3));
    }

    void guardRegressionKills()
    {
        Harness h;
        Study s = make_study(1.25, count_plan(5));
        Experiment& e = s.experiments[0];
        e.guards = {"guard_ms"};
        e.arms[1].params["guard_speed"] = 0.5; // the guard takes twice as long
        e.acknowledged_multi_variable = true;
        s.tradeoffs.push_back({"memory-budget", true, "a larger scratch buffer"});
        h.run(s, e);
        QCOMPARE(std::string(to_string(e.verdict->word)), std::string("LICENSE"));
        QCOMPARE(std::string(to_string(e.final_verdict->word)), std::string("KILL"));
    }

    void splitHalfCheckIsStoredAndCited()
    {
        Harness h;
        RunPlan p = count_plan(8);
        p.split_halves = 4;
        Study s = make_study(1.25, p);
        Experiment& e = s.experiments[0];
        h.run(s, e);
        QVERIFY(e.split_half.has_value());
        QCOMPARE(e.split_half->splits, 4);
        QCOMPARE(e.split_half->verdicts.size(), size_t(4));
        QCOMPARE(e.split_half->false_alarms,
            static_cast<int>(std::count_if(e.split_half->verdicts.begin(), e.split_half->verdicts.end(),
                [](const std::string& w) { return w != "NOISE"; })));
        QVERIFY(!e.split_half->method.empty());
        const auto reasons = nlohmann::json(e.final_verdict->reasons).dump();
        QVERIFY(reasons.find("split-half stability check") != std::string::npos);
        QVERIFY(study_to_json(s).dump().find("\"false_alarm_rate\"") != std::string::npos);
    }

    void splitHalfNeedsTwiceMinN()
    {
        Harness h;
        RunPlan p = count_plan(5);
        p.split_halves = 5;
        Study s = make_study(1.25, p);
        Experiment& e = s.experiments[0];
        h.run(s, e);
        QVERIFY(!e.split_half.has_value());
        QVERIFY(std::any_of(e.missing_gates.begin(), e.missing_gates.end(),
            [](const std::string& g) { return g.starts_with("split-half stability check"); }));
    }

    void missingGatesAreRecorded()
    {
        Harness h;
        Study s = make_study(1.0, count_plan(3));
        h.run(s, s.experiments[0]);
        const auto& gates = s.experiments[0].missing_gates;
        QVERIFY(
            std::any_of(gates.begin(), gates.end(), [](const std::string& g) { return g.starts_with("prediction"); }));
        QVERIFY(
            std::any_of(gates.begin(), gates.end(), [](const std::string& g) { return g.starts_with("tradeoff"); }));

        Study full = make_study(1.0, count_plan(3));
        full.target.current = 10;
        full.target.goal = 8;
        full.target.kernel = full.target.reference = full.target.workload = "x";
        full.binding.constraint = "compute";
        full.prediction.predicted_delta_pct = 20;
        full.experiments[0].controls.checklist = {{"same data", true}};
        full.tradeoffs.push_back({"generality", true, "one shape only"});
        h.run(full, full.experiments[0]);
        QVERIFY(full.experiments[0].missing_gates.empty());
    }

    void badValuesAreDiscardedNotJudged()
    {
        Harness h;
        Study s = make_study(1.0, count_plan(3, 0));
        s.experiments[0].arms[1].params["speed"] = -1.0; // negative "times"
        s.experiments[0].arms[1].params["fail_at"] = -1;
        h.run(s, s.experiments[0]);
        const auto& e = s.experiments[0];
        QVERIFY(std::all_of(
            e.samples.begin(), e.samples.end(), [](const Sample& x) { return x.arm == "baseline" || x.discarded; }));
        QVERIFY(!e.verdict.has_value()); // no judged treatment run, so no verdict
    }
};

QTEST_GUILESS_MAIN(TestRunner)
#include "tst_runner.moc"
