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

// Feeds the rule one block at a time from `first` runs per arm on, answering `word` / `ci`;
// returns the runs per arm at which it stopped (or -1) and the reason.
std::pair<int, std::string> drive(StoppingRule& rule, int first, int last, const std::string& word,
                                  std::optional<std::array<double, 2>> ci)
{
    for (int n = first; n <= last; ++n)
        if (auto r = rule.check(n, 0, [&] { return Judgement{word, ci}; }))
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
        QCOMPARE(drive(rule, 0, 20, "NOISE", std::nullopt).first, 5);
        QVERIFY(rule.history().empty());   // count never judges
    }

    void decisionWaitsForMinNThenThreeEqualWords()
    {
        StoppingRule rule(plan(StopRule::Decision, 30), make_profile("generic", Direction::Lower));
        const auto [n, why] = drive(rule, 0, 30, "KILL", std::nullopt);
        QCOMPARE(n, 5);   // judged at 3, 4, 5
        QVERIFY(why.starts_with("decision"));
        QCOMPARE(rule.history().size(), size_t(3));
    }

    void decisionResetsWhenTheWordChanges()
    {
        StoppingRule rule(plan(StopRule::Decision, 30), make_profile("generic", Direction::Lower));
        const std::vector<std::string> words = {"INCONCLUSIVE", "LICENSE", "LICENSE", "INCONCLUSIVE", "LICENSE",
                                                "LICENSE", "LICENSE"};
        int stopped = -1;
        for (int n = 3; n < 3 + static_cast<int>(words.size()); ++n)
            if (rule.check(n, 0, [&] { return Judgement{words[static_cast<size_t>(n - 3)], std::nullopt}; })) {
                stopped = n;
                break;
            }
        QCOMPARE(stopped, 9);
    }

    void strictAlsoNeedsTheCiToClearKill()
    {
        const Profile strict = make_profile("strict", Direction::Lower);
        StoppingRule straddles(plan(StopRule::Decision, 12), strict);
        const auto [n1, why1] = drive(straddles, 3, 12, "INCONCLUSIVE", std::array<double, 2>{2.0, 9.0});
        QCOMPARE(n1, 12);
        QVERIFY(why1.starts_with("max count"));

        StoppingRule clears(plan(StopRule::Decision, 12), strict);
        const auto [n2, why2] = drive(clears, 3, 12, "LICENSE", std::array<double, 2>{12.0, 18.0});
        QCOMPARE(n2, 5);
        QVERIFY(why2.find("clears kill") != std::string::npos);

        StoppingRule below(plan(StopRule::Decision, 12), strict);
        QCOMPARE(drive(below, 3, 12, "KILL", std::array<double, 2>{-3.0, 1.0}).first, 5);

        // The generic profile does not look at the CI.
        StoppingRule generic(plan(StopRule::Decision, 12), make_profile("generic", Direction::Lower));
        QCOMPARE(drive(generic, 3, 12, "INCONCLUSIVE", std::array<double, 2>{2.0, 9.0}).first, 5);
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
        QVERIFY(!rule.check(1, 59.9, [] { return Judgement{"NOISE", std::nullopt}; }));
        const auto why = rule.check(1, 60, [] { return Judgement{"INCONCLUSIVE", std::nullopt}; });
        QVERIFY(why && why->starts_with("max time"));
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

    void judgementReadsTheVerdictJson()
    {
        SampleVerdict v{"LICENSE", {}, {{"ci95_delta_pct", {11.0, 15.0}}}};
        const auto j = judgement_of(v);
        QCOMPARE(j.word, std::string("LICENSE"));
        QVERIFY(j.ci95_delta_pct && (*j.ci95_delta_pct)[0] == 11.0);
        v.json["ci95_delta_pct"] = nullptr;
        QVERIFY(!judgement_of(v).ci95_delta_pct);
    }
};

QTEST_GUILESS_MAIN(TestStopping)
#include "tst_stopping.moc"
