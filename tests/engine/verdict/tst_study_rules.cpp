// SPDX-License-Identifier: GPL-3.0-or-later
// The study-level rules of spec/verdict.md: guards, the tradeoff gate, the prediction check, and
// the split-half stability check cited in the reasons.
#include "../../any_contains.h"
#include "verdict/verdict.h"

#include <QTest>

using namespace kwb;
using kwbtest::any_contains;

using Values = std::vector<double>;

namespace {

const Values kBase {10, 10.1, 9.9, 10.05, 9.95};
const Values kFaster {8.6, 8.55, 8.58, 8.52, 8.61}; // delta ~14%: LICENSE under generic

Profile generic()
{
    return make_profile("generic", Direction::Lower);
}

SampleVerdict licensed()
{
    return judge_samples(kBase, kFaster, generic(), false);
}

std::vector<Tradeoff> named()
{
    return {{"loc-complexity", true, "a second code path for sm_90"}};
}

GuardArms guard(const char* metric, Direction dir, Values b, Values t, double tol = 0)
{
    GuardArms g;
    g.metric = metric;
    g.direction = dir;
    g.baseline = std::move(b);
    g.treatment = std::move(t);
    g.tolerance_pct = tol;
    return g;
}

bool has(const std::vector<std::string>& v, const std::string& s)
{
    return std::find(v.begin(), v.end(), s) != v.end();
}

} // namespace

class TestStudyRules : public QObject {
    Q_OBJECT

private slots:
    void license_with_named_tradeoff_stays()
    {
        StudyRulesInput in;
        in.tradeoffs = named();
        const auto f = apply_study_rules(licensed(), in, generic());
        QCOMPARE(std::string(to_string(f.word)), std::string("LICENSE"));
        for (const char* key : {"verdict", "reasons", "flags", "sample_verdict", "profile", "guards"})
            QVERIFY2(to_json(f).contains(key), key);
        QCOMPARE(to_json(f).at("sample_verdict").get<std::string>(), std::string("LICENSE"));
        QVERIFY(f.flags.empty());
    }

    void tradeoff_gate()
    {
        StudyRulesInput in;
        QCOMPARE(
            std::string(to_string(apply_study_rules(licensed(), in, generic()).word)), std::string("INCONCLUSIVE"));
        in.tradeoffs = {{"loc-complexity", false, "nothing"}, {"portability", true, "  "}}; // no named sacrifice
        const auto f = apply_study_rules(licensed(), in, generic());
        QCOMPARE(std::string(to_string(f.word)), std::string("INCONCLUSIVE"));
        QVERIFY(any_contains(f.reasons, "no tradeoff named"));
        // The gate only touches a LICENSE.
        const auto kill = judge_samples(kBase, kBase, generic(), false);
        QCOMPARE(std::string(to_string(apply_study_rules(kill, StudyRulesInput {}, generic()).word)),
            std::string(to_string(kill.word)));
    }

    void guard_regression_kills()
    {
        StudyRulesInput in;
        in.tradeoffs = named();
        // tok/s (higher is better) dropped by ~10%, far beyond its noise band.
        in.guards = {guard("tok_s", Direction::Higher, {100, 101, 99, 100.5, 99.5}, {90, 90.5, 89.5, 90.2, 89.8})};
        const auto f = apply_study_rules(licensed(), in, generic());
        QCOMPARE(std::string(to_string(f.word)), std::string("KILL"));
        QVERIFY(any_contains(f.reasons, "guard tok_s regressed"));
        QVERIFY(to_json(f).at("guards")[0].at("regressed") == true);
        QCOMPARE(to_json(f).at("sample_verdict").get<std::string>(), std::string("LICENSE"));
        // Any verdict turns into KILL, not just a license.
        const auto noise = judge_samples(kBase, kBase, generic(), false);
        QCOMPARE(std::string(to_string(apply_study_rules(noise, in, generic()).word)), std::string("KILL"));
    }

    void guard_cases_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<bool>("regressed");
        QTest::addRow("improved guard") << 0 << false;
        QTest::addRow("regression within noise") << 1 << false;
        QTest::addRow("regression within tolerance") << 2 << false;
        QTest::addRow("regression beyond tolerance") << 3 << true;
        QTest::addRow("too few runs: not assessed") << 4 << false;
        QTest::addRow("unstable: not assessed") << 5 << false;
        QTest::addRow("lower-is-better guard got slower") << 6 << true;
    }
    void guard_cases()
    {
        QFETCH(int, which);
        QFETCH(bool, regressed);
        const Values b {100, 101, 99, 100.5, 99.5};
        const GuardArms guards[] = {
            guard("g", Direction::Higher, b, {110, 111, 109, 110.5, 109.5}),
            guard("g", Direction::Higher, b, {99.5, 100.5, 98.5, 100, 99}),
            guard("g", Direction::Higher, b, {95, 96, 94, 95.5, 94.5}, 6),
            guard("g", Direction::Higher, b, {95, 96, 94, 95.5, 94.5}, 4),
            guard("g", Direction::Higher, {100, 101}, {50, 51}),
            guard("g", Direction::Higher, {100, 130, 70, 120, 80}, {50, 70, 30, 60, 40}),
            guard("itl_ms", Direction::Lower, {5, 5.05, 4.95, 5.02, 4.98}, {5.5, 5.55, 5.45, 5.52, 5.48}),
        };
        StudyRulesInput in;
        in.tradeoffs = named();
        in.guards = {guards[which]};
        const auto f = apply_study_rules(licensed(), in, generic());
        QCOMPARE(std::string(to_string(f.word)), std::string(regressed ? "KILL" : "LICENSE"));
        QCOMPARE(to_json(f).at("guards")[0].at("regressed").get<bool>(), regressed);
        if (which == 4 || which == 5)
            QVERIFY(to_json(f).at("guards")[0].at("assessed") == false);
    }

    void prediction_check_data()
    {
        QTest::addColumn<double>("predicted");
        QTest::addColumn<bool>("sign");
        QTest::addColumn<bool>("magnitude");
        // measured delta is ~14.3%
        QTest::addRow("close") << 12.0 << false << false;
        QTest::addRow("measured just over half") << 28.0 << false << false;
        QTest::addRow("less than half") << 30.0 << false << true;
        QTest::addRow("more than twice") << 7.0 << false << true;
        QTest::addRow("opposite sign") << -14.0 << true << false;
        QTest::addRow("opposite and small") << -3.0 << true << true;
    }
    void prediction_check()
    {
        QFETCH(double, predicted);
        QFETCH(bool, sign);
        QFETCH(bool, magnitude);
        StudyRulesInput in;
        in.tradeoffs = named();
        in.predicted_delta_pct = predicted;
        const auto sample = licensed();
        const auto f = apply_study_rules(sample, in, generic());
        QCOMPARE(std::string(to_string(f.word)), std::string("LICENSE")); // flags never change the verdict
        QCOMPARE(has(f.flags, "sign mismatch"), sign);
        QCOMPARE(has(f.flags, "magnitude off"), magnitude);
        QVERIFY(to_json(f).at("flags") == nlohmann::json(f.flags));
    }

    void prediction_check_skips_noise()
    {
        StudyRulesInput in;
        in.predicted_delta_pct = 30;
        const auto noise = judge_samples(kBase, Values {10.01, 10.09, 9.92, 10.04, 9.96}, generic(), false);
        QCOMPARE(std::string(to_string(noise.word)), std::string("NOISE"));
        QVERIFY(apply_study_rules(noise, in, generic()).flags.empty());
    }

    void split_half_check_cited()
    {
        StudyRulesInput in;
        in.tradeoffs = named();
        in.split_half = SplitHalfCheck {};
        in.split_half->splits = 20;
        in.split_half->false_alarms = 1;
        const auto f = apply_study_rules(licensed(), in, generic());
        QVERIFY(any_contains(f.reasons, "1 of 20 splits"));
        QVERIFY(any_contains(f.reasons, "5%"));
        QCOMPARE(to_json(f).at("split_half").at("false_alarm_rate").get<double>(), 0.05);
    }
};

QTEST_GUILESS_MAIN(TestStudyRules)
#include "tst_study_rules.moc"
