// SPDX-License-Identifier: GPL-3.0-or-later
// The real A/A arm through the Runner (study/arm_roles.h, verdict/aa_verdict.h), and the
// duration clock that starts at the first timed repetition and survives a resume.
#include "run/judge_experiment.h"
#include "runner_harness.h"
#include "study/arm_roles.h"
#include "study/study_json.h"

#include <QTest>

class TestRunnerAa : public QObject {
    Q_OBJECT
private slots:
    void aaArmRunsInEveryBlockAndIsJudged()
    {
        Harness h;
        Study s = make_study(1.25, count_plan(6, 1));
        Experiment& e = s.experiments[0];
        add_aa_arm(e);
        QCOMPARE(e.arms.size(), size_t(3));
        QCOMPARE(e.arms[2].role, std::string(kAaArmRole));
        QVERIFY(e.arms[2].params == e.arms[0].params);
        QCOMPARE(h.run(s, e), RunOutcome::Done);
        // ABBA over three arms: A B C | C B A | ...; every arm 6 judged runs plus its warm-up.
        for (const auto& arm : e.arms)
            QCOMPARE(judged_values(e, arm.name, "time_ms").size(), size_t(6));
        std::string order;
        for (const auto& smp : e.samples)
            if (!smp.warmup)
                order += smp.arm == "baseline" ? 'A' : smp.arm == "treatment" ? 'B' : 'C';
        QCOMPARE(order, std::string("ABCCBAABCCBAABCCBA"));
        // The A/B itself is judged as before, paired block by block.
        QVERIFY(pairing_applies(e));
        QCOMPARE(static_cast<int>(e.verdict->n_baseline()), 6);
        QCOMPARE(std::string(to_string(e.verdict->word)), std::string("LICENSE"));
        // The A/A: the same configuration, the same noise sequence: a delta of 0, NOISE.
        QVERIFY(e.aa_verdict.has_value());
        QCOMPARE(std::string(to_string(e.aa_verdict->word)), std::string("NOISE"));
        QCOMPARE(static_cast<int>(e.aa_verdict->n_treatment()), 6);
        QVERIFY(e.aa_verdict->paired.has_value());
        const auto reasons = nlohmann::json(e.final_verdict->reasons).dump();
        QVERIFY2(reasons.find("A/A at n = 6: NOISE, delta 0%") != std::string::npos, reasons.c_str());
        // Stored and read back.
        const Study back = study_from_json(study_to_json(s));
        QCOMPARE(back.experiments[0].arms[2].role, std::string("aa"));
        QVERIFY(back.experiments[0].aa_verdict.has_value());
        QVERIFY(to_json(*back.experiments[0].aa_verdict) == to_json(*e.aa_verdict));
    }

    void aaArmThatDiffersIsAFalseAlarm()
    {
        // A slower "A/A" (what a busy neighbour during its runs would do) is called, not hidden.
        Harness h;
        Study s = make_study(1.0, count_plan(6, 0));
        Experiment& e = s.experiments[0];
        add_aa_arm(e);
        e.arms[2].params["speed"] = 0.5;
        h.run(s, e);
        QVERIFY(e.aa_verdict.has_value());
        QCOMPARE(std::string(to_string(e.aa_verdict->word)), std::string("KILL"));
        const auto reasons = nlohmann::json(e.final_verdict->reasons).dump();
        QVERIFY(reasons.find("a false alarm") != std::string::npos);
    }

    void withoutAaArmNothingIsAdded()
    {
        Harness h;
        Study s = make_study(1.25, count_plan(4, 0));
        h.run(s, s.experiments[0]);
        QVERIFY(!s.experiments[0].aa_verdict.has_value());
        QVERIFY(!study_to_json(s).at("experiments")[0].contains("aa_verdict"));
        QVERIFY(!study_to_json(s).at("experiments")[0].at("arms")[0].contains("role"));
    }

    void durationClockStartsAtTheFirstTimedRepetition()
    {
        // Preparing takes 100 s and the warm-ups 1 s each: none of it is the experiment's time.
        Harness h;
        RunPlan p = count_plan(50, 1);
        p.stop = StopRule::Duration;
        p.duration_s = 7; // each repetition takes 1 s: 4 blocks = 8 s
        Study s = make_study(1.0, p, {{"prepare_seconds", 50.0}});
        Experiment& e = s.experiments[0];
        QCOMPARE(h.run(s, e), RunOutcome::Done);
        QCOMPARE(arm_letters(e), std::string("ABBAABBA"));
        QVERIFY(e.timed_elapsed_s.has_value());
        QCOMPARE(*e.timed_elapsed_s, 8.0);
    }

    void durationClockSurvivesAResume()
    {
        Harness h;
        RunPlan p = count_plan(50, 1);
        p.stop = StopRule::Duration;
        p.duration_s = 7;
        Study s = make_study(1.0, p, {{"prepare_seconds", 50.0}});
        Experiment& e = s.experiments[0];
        h.recorder.after_sample = [&](const Sample& smp) {
            if (!smp.warmup && smp.position == 3)
                h.cancel = true;
        };
        QCOMPARE(h.run(s, e), RunOutcome::Stopped);
        QCOMPARE(*e.timed_elapsed_s, 4.0);
        // Saved and loaded (a new process), then resumed: the clock goes on from 4 s.
        Study back = study_from_json(study_to_json(s));
        QCOMPARE(*back.experiments[0].timed_elapsed_s, 4.0);
        h.cancel = false;
        h.recorder = Recorder {};
        QCOMPARE(h.run(back, back.experiments[0]), RunOutcome::Done);
        QCOMPARE(arm_letters(back.experiments[0]), std::string("ABBAABBA"));
        QCOMPARE(*back.experiments[0].timed_elapsed_s, 8.0);
    }
};

QTEST_GUILESS_MAIN(TestRunnerAa)
#include "tst_runner_aa.moc"
