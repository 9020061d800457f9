// SPDX-License-Identifier: GPL-3.0-or-later
// The verdict story (verdict/verdict_story.h): the one word, the one deciding reason, what would
// change it and the next step of every INCONCLUSIVE, each decided by the rule that decided it.
#include "study/gates.h"
#include "verdict/verdict.h"
#include "verdict/verdict_story.h"

#include <QTest>

using namespace kwb;

namespace {

SampleVerdict sample(VerdictWord w, int rule, std::string reason, double delta, std::optional<double> sigma,
    const char* profile = "generic")
{
    SampleVerdict s;
    s.word = w;
    s.rule = rule;
    s.reasons = {std::move(reason)};
    s.delta_pct = delta;
    s.sigma_pct = sigma;
    s.speedup = 1 / (1 - delta / 100);
    s.profile = make_profile(profile, Direction::Lower);
    s.baseline.n = s.treatment.n = 6;
    return s;
}

// The final verdict the study rules make of `s` with a named tradeoff (or none).
FinalVerdict final_of(const SampleVerdict& s, bool tradeoff = true)
{
    StudyRulesInput in;
    if (tradeoff)
        in.tradeoffs = {{"loc-complexity", true, "a second code path"}};
    return apply_study_rules(s, in, s.profile);
}

bool starts(const std::string& text, const std::string& prefix)
{
    return text.rfind(prefix, 0) == 0;
}

} // namespace

class TestVerdictStory : public QObject {
    Q_OBJECT

private slots:
    void license_has_no_next_step()
    {
        const auto s = sample(VerdictWord::License, 5, "delta 14% >= license 10% with sigma 1% < 5%", 14, 1);
        const auto story = verdict_story(final_of(s), s);
        QCOMPARE(story.word, VerdictWord::License);
        QCOMPARE(story.reason, s.reasons.front());
        QCOMPARE(story.next.kind, NextStepKind::None);
        QCOMPARE(story.numbers_alone, std::string("the numbers alone: LICENSE"));
        QVERIFY(!story.change.empty());
    }

    void tradeoff_gate_decides_and_names_phase_7()
    {
        const auto s
            = sample(VerdictWord::License, 5, "delta 39.14% >= license 10% with sigma 0.133% < 5%", 39.14, 0.133);
        const auto f = final_of(s, false);
        QCOMPARE(f.word, VerdictWord::Inconclusive);
        const auto story = verdict_story(f, s);
        QCOMPARE(story.word, VerdictWord::Inconclusive);
        QCOMPARE(story.reason, tradeoff_gate_reason()); // not the sample's "delta >= license"
        QCOMPARE(story.next.kind, NextStepKind::FillGate);
        QCOMPARE(story.next.phase, 7);
        QVERIFY(starts(story.numbers_alone, "the numbers alone: LICENSE ("));
        const auto lines = story_lines(story);
        QVERIFY(starts(lines.front(), "INCONCLUSIVE: no tradeoff named"));
    }

    void kill_and_noise()
    {
        const auto k = sample(VerdictWord::Kill, 6, "delta -5% < kill 5%: a real regression", -5, 1);
        auto story = verdict_story(final_of(k), k);
        QCOMPARE(story.word, VerdictWord::Kill);
        QCOMPARE(story.reason, k.reasons.front());
        QCOMPARE(story.next.kind, NextStepKind::None);
        QVERIFY(story.change.find("another treatment") != std::string::npos);

        const auto n = sample(VerdictWord::Noise, 4, "delta 0.1% is within the noise band", 0.1, 1);
        story = verdict_story(final_of(n), n);
        QCOMPARE(story.word, VerdictWord::Noise);
        QCOMPARE(story.next.kind, NextStepKind::None);
        QVERIFY(story.change.find("larger effect") != std::string::npos);
    }

    void too_few_runs_adds_runs_to_min_n()
    {
        auto s = sample(VerdictWord::Inconclusive, 1, "not enough runs", 14, 1);
        s.baseline.n = s.treatment.n = 2;
        const auto story = verdict_story(final_of(s), s);
        QCOMPARE(story.next.kind, NextStepKind::AddRuns);
        QCOMPARE(story.next.runs_per_arm, std::optional<int>(3));
        QVERIFY(!story.next.action.empty());
    }

    void strict_not_significant_adds_the_engines_estimate()
    {
        auto s = sample(VerdictWord::Inconclusive, 5, "not significant: ...", 12, 3, "strict");
        s.runs_needed_per_arm = 21;
        const auto story = verdict_story(final_of(s), s);
        QCOMPARE(story.next.kind, NextStepKind::AddRuns);
        QCOMPARE(story.next.runs_per_arm, std::optional<int>(21));
        QVERIFY(story.next.action.find("21") != std::string::npos);
    }

    void unstable_and_sigma_between_max_and_unstable_ask_for_steadier_runs()
    {
        const auto unstable = sample(VerdictWord::Inconclusive, 2, "workload not stable: sigma 12% > 10%", 14, 12);
        auto story = verdict_story(final_of(unstable), unstable);
        QCOMPARE(story.next.kind, NextStepKind::SteadierRuns);
        QVERIFY(story.next.text.find("more runs do not lower sigma") != std::string::npos);

        const auto grey = sample(VerdictWord::Inconclusive, 7,
            "grey zone: delta 20% >= license 10% but sigma 7% is "
            "not below 5%",
            20, 7);
        story = verdict_story(final_of(grey), grey);
        QCOMPARE(story.next.kind, NextStepKind::SteadierRuns);
        QCOMPARE(story.next.phase, 5);
    }

    void delta_between_kill_and_license_says_no_run_count_helps()
    {
        const auto s
            = sample(VerdictWord::Inconclusive, 7, "grey zone: delta 7% is between kill 5% and license 10%", 7, 1);
        const auto story = verdict_story(final_of(s), s);
        QCOMPARE(story.next.kind, NextStepKind::NoRunCount);
        QVERIFY(story.change.find("no run count changes the class") != std::string::npos);
        QVERIFY(story.next.action.empty()); // nothing to press
    }

    void bimodal_characterises_the_modes()
    {
        auto s = sample(VerdictWord::Inconclusive, 3, "bimodal runs in the baseline: ...", 14, 4);
        s.reasons.push_back("bimodal runs in the treatment: ...");
        const auto story = verdict_story(final_of(s), s);
        QCOMPARE(story.next.kind, NextStepKind::CharacteriseModes);
        QVERIFY(story.reason.find("treatment") != std::string::npos); // both arms' lines
    }

    void shared_gpu_asks_for_a_quieter_machine()
    {
        const auto s = sample(VerdictWord::License, 5, "delta 14% >= license 10%", 14, 1);
        StudyRulesInput in;
        in.tradeoffs = {{"loc-complexity", true, "x"}};
        in.gpu_sharing = GpuSharingSummary {"NVML's compute-process list", 12, 3, {1, 4, 7}};
        const auto f = apply_study_rules(s, in, s.profile);
        const auto story = verdict_story(f, s);
        QCOMPARE(story.word, VerdictWord::Inconclusive);
        QCOMPARE(story.next.kind, NextStepKind::QuieterMachine);
        QVERIFY(story.reason.find("another process used the GPU in 3 of 12") != std::string::npos);
        QVERIFY(story.next.text.find("3 of 12") != std::string::npos);
    }

    void regressed_guard_kills_with_its_own_reason()
    {
        const auto s = sample(VerdictWord::License, 5, "delta 14% >= license 10%", 14, 1);
        StudyRulesInput in;
        in.tradeoffs = {{"loc-complexity", true, "x"}};
        GuardArms g;
        g.metric = "itl_ms";
        g.baseline = {10, 10.1, 9.9, 10.05, 9.95};
        g.treatment = {12, 12.1, 11.9, 12.05, 11.95};
        in.guards = {g};
        const auto f = apply_study_rules(s, in, s.profile);
        QCOMPARE(f.word, VerdictWord::Kill);
        const auto story = verdict_story(f, s);
        QVERIFY(starts(story.reason, "KILL: guard regressed (itl_ms)"));
        QVERIFY(starts(story.numbers_alone, "the numbers alone: LICENSE"));
    }
};

QTEST_GUILESS_MAIN(TestVerdictStory)
#include "tst_verdict_story.moc"
