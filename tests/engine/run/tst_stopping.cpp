// SPDX-License-Identifier: GPL-3.0-or-later
// The stopping rules in isolation, with a scripted judge.
#include "run/stopping.h"

#include <QTest>

using namespace kwb;

namespace {

RunPlan plan(StopRule stop, int runs = 10)
{
    RunPlan p;
    p.stop = stop;
    p.runs_per_arm = runs;
    return p;
}

// Values of one arm around `mean` with a small deterministic spread (+-0.5%).
std::vector<double> arm(double mean, int n)
{
    std::vector<double> v;
    for (int i = 0; i < n; ++i)
        v.push_back(mean * (1 + 0.005 * ((i % 3) - 1)));
    return v;
}

// Feeds the rule one block at a time from `first` runs per arm on, with arms of the given true
// means; returns the runs per arm at which it stopped (or -1) and the reason.
std::pair<int, std::string> drive(StoppingRule& rule, int first, int last, double base, double treat)
{
    for (int n = first; n <= last; ++n)
        if (auto r = rule.check(n, 0, [&] { return ArmValues {arm(base, n), arm(treat, n), true}; }))
            return {n, *r};
    return {-1, ""};
}

} // namespace

class TestStopping : public QObject {
    Q_OBJECT

private slots:
    void countStopsAtTheCount()
    {
        StoppingRule rule(plan(StopRule::Count, 5), make_profile("generic", Direction::Lower));
        QCOMPARE(drive(rule, 0, 20, 10, 10).first, 5);
        QCOMPARE(rule.stop_code(), std::string("plan-complete"));
        QVERIFY(rule.looks().empty()); // count never looks
    }

    void decisionStopsBeyondLicense()
    {
        StoppingRule rule(plan(StopRule::Decision, 30), make_profile("generic", Direction::Lower));
        const auto [n, why] = drive(rule, 0, 30, 10, 8); // 20% better, spread 0.5%
        QCOMPARE(n, 3);
        QCOMPARE(rule.stop_code(), std::string("beyond-license"));
        QVERIFY2(why.starts_with("decision"), why.c_str());
        QCOMPARE(rule.looks().front().look, 1);
        QVERIFY(rule.looks().back().interval.interval[0] >= 10);
    }

    void decisionStopsBelowKillOrInsideTheNoiseBand()
    {
        StoppingRule regression(plan(StopRule::Decision, 30), make_profile("generic", Direction::Lower));
        drive(regression, 3, 30, 10, 11);
        QCOMPARE(regression.stop_code(), std::string("below-kill"));
        StoppingRule same(plan(StopRule::Decision, 30), make_profile("generic", Direction::Lower));
        const auto [n, why] = drive(same, 3, 30, 10, 10);
        QVERIFY(n < 30);
        QVERIFY2(same.stop_code() == "inside-noise-band" || same.stop_code() == "below-kill", why.c_str());
    }

    void theGreyZoneRunsToTheCap()
    {
        // 7% better with a tiny spread: certainly between kill and license, which no early stop
        // may claim either way, so the word is taken at the cap.
        StoppingRule rule(plan(StopRule::Decision, 12), make_profile("generic", Direction::Lower));
        const auto [n, why] = drive(rule, 3, 12, 10, 9.3);
        QCOMPARE(n, 12);
        QCOMPARE(rule.stop_code(), std::string("max-count"));
        QCOMPARE(static_cast<int>(rule.looks().size()), 12 - 3);
    }

    void looksAreNumberedFromNSoAResumeContinuesTheSequence()
    {
        StoppingRule rule(plan(StopRule::Decision, 30), make_profile("generic", Direction::Lower));
        QVERIFY(!rule.check(7, 0, [] { return ArmValues {arm(10, 7), arm(9.3, 7), true}; }));
        QCOMPARE(rule.looks().back().look, 5); // n = 7 is the fifth look of a sequence from n = 3
        QVERIFY(look_alpha(0.01, 5) < look_alpha(0.01, 1));
        double sum = 0;
        for (int k = 1; k < 100000; ++k)
            sum += look_alpha(0.01, k);
        QVERIFY(sum <= 0.01);
    }

    void maxSecondsAppliesToEveryRule_data()
    {
        QTest::addColumn<int>("stop");
        QTest::addRow("count") << int(StopRule::Count);
        QTest::addRow("decision") << int(StopRule::Decision);
        QTest::addRow("duration") << int(StopRule::Duration);
    }
    void maxSecondsAppliesToEveryRule()
    {
        QFETCH(int, stop);
        RunPlan p = plan(StopRule(stop), 100);
        p.duration_s = 1e9;
        p.max_seconds = 60;
        StoppingRule rule(p, make_profile("generic", Direction::Lower));
        QVERIFY(!rule.check(1, 59.9, [] { return ArmValues {}; }));
        const auto why = rule.check(1, 60, [] { return ArmValues {}; });
        QVERIFY(why && why->starts_with("max time"));
    }

    // The plan names one criterion (StoppingCriterion, as nvbench's): each answers its cap and
    // its own goal; the session's time guard and the order of the questions are StoppingRule's.
    void eachPlanNamesOneCriterion()
    {
        const Profile p = make_profile("generic", Direction::Lower);
        RunPlan duration = plan(StopRule::Duration);
        duration.duration_s = 30;
        duration.max_runs_per_arm = 40;
        const auto count = make_stopping_criterion(plan(StopRule::Count, 7), p);
        const auto timed = make_stopping_criterion(duration, p);
        const auto decision = make_stopping_criterion(plan(StopRule::Decision, 12), p);
        QCOMPARE(count->name(), std::string_view("count"));
        QCOMPARE(timed->name(), std::string_view("duration"));
        QCOMPARE(decision->name(), std::string_view("decision"));
        QCOMPARE(count->cap_per_arm(), 7);
        QCOMPARE(timed->cap_per_arm(), 40);
        QCOMPARE(decision->cap_per_arm(), 12);
        // Only the duration rule has a goal besides its cap, and only once min_n runs are in.
        QVERIFY(!count->reached({10, 1e9, nullptr}));
        QVERIFY(!timed->reached({10, 29.9, nullptr}));
        QCOMPARE(timed->reached({10, 30, nullptr})->code, std::string("duration"));
        QVERIFY(!timed->reached({p.min_n - 1, 30, nullptr}));
        QCOMPARE(count->at_cap({7, 0, nullptr}).code, std::string("plan-complete"));
        QCOMPARE(timed->at_cap({40, 0, nullptr}).code, std::string("max-count"));
        // Only the decision rule stops early, and only with values to look at.
        QVERIFY(!count->early({5, 0, nullptr}));
        QVERIFY(!decision->early({5, 0, nullptr}));
    }

    void durationNeedsMinN()
    {
        RunPlan p = plan(StopRule::Duration);
        p.duration_s = 10;
        StoppingRule rule(p, make_profile("generic", Direction::Lower));
        QVERIFY(!rule.check(2, 30, {}));
        QVERIFY(rule.check(3, 30, {}).has_value());
        QVERIFY(!rule.check(3, 9, {}));
        QCOMPARE(rule.cap_per_arm(), p.max_runs_per_arm);
    }

    void judgementReadsTheTypedVerdict()
    {
        SampleVerdict v;
        v.word = VerdictWord::License;
        v.ci95_delta_pct = DeltaInterval {11.0, 15.0};
        const auto j = judgement_of(v);
        QCOMPARE(j.word, std::string("LICENSE"));
        QVERIFY(j.ci95_delta_pct && (*j.ci95_delta_pct)[0] == 11.0);
        v.ci95_delta_pct.reset();
        QVERIFY(!judgement_of(v).ci95_delta_pct);
    }
};

QTEST_GUILESS_MAIN(TestStopping)
#include "tst_stopping.moc"
