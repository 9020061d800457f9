// SPDX-License-Identifier: GPL-3.0-or-later
// judge_samples() end to end: the spec's edge cases, both directions, the JSON shape with nulls,
// profiles and overrides, and "how many more runs".
#include "verdict/profile.h"
#include "verdict/runs_needed.h"
#include "verdict/verdict.h"

#include <QTest>
#include <cmath>

using namespace kwb;

using Values = std::vector<double>;
Q_DECLARE_METATYPE(Values)

namespace {

const char* const kTopKeys[] = {"verdict", "reasons", "delta_pct", "sigma_pct", "speedup", "n_baseline", "n_treatment",
    "mean_baseline", "mean_treatment", "cv_baseline_pct", "cv_treatment_pct", "ci95_delta_pct", "p_welch",
    "p_mannwhitney", "mannwhitney_method", "bimodal_baseline", "bimodal_treatment", "paired", "arms", "profile"};
const char* const kArmKeys[] = {"n", "mean", "median", "stddev", "cv_pct", "min", "max", "p50", "p90", "p99",
    "outliers_mild", "outliers_extreme", "modes"};

} // namespace

class TestVerdictJudge : public QObject {
    Q_OBJECT

private slots:
    void edge_cases_data()
    {
        QTest::addColumn<Values>("baseline");
        QTest::addColumn<Values>("treatment");
        QTest::addColumn<QString>("direction");
        QTest::addColumn<QString>("verdict");
        QTest::addColumn<int>("rule");
        QTest::addRow("n = 1") << Values {10} << Values {8} << QStringLiteral("lower") << QStringLiteral("INCONCLUSIVE")
                               << 1;
        QTest::addRow("constant equal arms")
            << Values {5, 5, 5} << Values {5, 5, 5} << QStringLiteral("lower") << QStringLiteral("NOISE") << 4;
        QTest::addRow("constant arms, faster")
            << Values {5, 5, 5} << Values {4, 4, 4} << QStringLiteral("lower") << QStringLiteral("LICENSE") << 5;
        QTest::addRow("constant arms, higher is better")
            << Values {5, 5, 5} << Values {4, 4, 4} << QStringLiteral("higher") << QStringLiteral("KILL") << 6;
        QTest::addRow("faster times") << Values {10, 10.1, 9.9, 10.05, 9.95} << Values {8.6, 8.55, 8.58, 8.52, 8.61}
                                      << QStringLiteral("lower") << QStringLiteral("LICENSE") << 5;
        QTest::addRow("faster times read as throughput")
            << Values {10, 10.1, 9.9, 10.05, 9.95} << Values {8.6, 8.55, 8.58, 8.52, 8.61} << QStringLiteral("higher")
            << QStringLiteral("KILL") << 6;
        QTest::addRow("more throughput") << Values {100, 102, 98, 101, 99} << Values {120, 121, 119, 122, 118}
                                         << QStringLiteral("higher") << QStringLiteral("LICENSE") << 5;
        QTest::addRow("single outlier is not bimodal")
            << Values {10, 10.1, 9.9, 10, 10.05, 9.95, 10.02, 10.4} << Values {8, 8.1, 7.9, 8, 8.05, 7.95, 8.02, 8.01}
            << QStringLiteral("lower") << QStringLiteral("LICENSE") << 5;
        QTest::addRow("two clusters are bimodal") << Values {78.9, 79.1, 78.7, 79.0, 78.8, 79.2, 76.0, 76.1, 75.9}
                                                  << Values {70, 70.5, 69.5, 70.2, 69.8, 70.1}
                                                  << QStringLiteral("lower") << QStringLiteral("INCONCLUSIVE") << 3;
        QTest::addRow("unstable") << Values {10, 12, 8, 11, 9} << Values {9, 11, 7, 10, 8} << QStringLiteral("lower")
                                  << QStringLiteral("INCONCLUSIVE") << 2;
    }
    void edge_cases()
    {
        QFETCH(Values, baseline);
        QFETCH(Values, treatment);
        QFETCH(QString, direction);
        QFETCH(QString, verdict);
        QFETCH(int, rule);
        const auto v = judge_samples(
            baseline, treatment, make_profile("generic", *parse_direction(direction.toStdString())), false);
        QCOMPARE(QString::fromStdString(std::string(to_string(v.word))), verdict);
        QCOMPARE(to_json(v).at("rule").get<int>(), rule);
        QVERIFY(!v.reasons.empty());
        for (const char* key : kTopKeys)
            QVERIFY2(to_json(v).contains(key), key);
        for (const char* arm : {"baseline", "treatment"})
            for (const char* key : kArmKeys)
                QVERIFY2(to_json(v).at("arms").at(arm).contains(key), key);
        QVERIFY(to_json(v).dump().find("NaN") == std::string::npos);
    }

    void nulls_for_n1()
    {
        const auto v
            = judge_samples(Values {10}, Values {8, 8.1, 7.9}, make_profile("generic", Direction::Lower), false);
        for (const char* key : {"sigma_pct", "cv_baseline_pct", "ci95_delta_pct", "p_welch", "bimodal_baseline",
                 "bimodal_treatment", "paired", "runs_needed_per_arm"})
            QVERIFY2(to_json(v).at(key).is_null(), key);
        QVERIFY(to_json(v).at("arms").at("baseline").at("stddev").is_null());
        QVERIFY(to_json(v).at("cv_treatment_pct").is_number());
        QVERIFY(to_json(v).at("p_mannwhitney").is_number());
        QVERIFY(std::fabs(to_json(v).at("delta_pct").get<double>() - 20) < 1e-9);
    }

    void constant_arms_have_no_welch()
    {
        const auto v
            = judge_samples(Values {5, 5, 5}, Values {4, 4, 4}, make_profile("generic", Direction::Lower), false);
        QVERIFY(to_json(v).at("p_welch").is_null());
        QCOMPARE(to_json(v).at("sigma_pct").get<double>(), 0.0);
        QCOMPARE(to_json(v).at("mannwhitney_method").get<std::string>(), std::string("asymptotic"));
        const auto s
            = judge_samples(Values {5, 5, 5}, Values {4, 4, 4}, make_profile("strict", Direction::Lower), false);
        QCOMPARE(std::string(to_string(s.word)),
            std::string("INCONCLUSIVE")); // strict needs Welch p < 0.05, and it is undefined
    }

    void bimodal_modes_reported()
    {
        const auto v = judge_samples(Values {78.9, 79.1, 78.7, 79.0, 78.8, 79.2, 76.0, 76.1, 75.9},
            Values {70, 70.5, 69.5, 70.2, 69.8, 70.1}, make_profile("generic", Direction::Lower), false);
        QCOMPARE(std::string(to_string(v.word)), std::string("INCONCLUSIVE"));
        QVERIFY(to_json(v).at("bimodal_baseline") == true);
        QVERIFY(to_json(v).at("bimodal_treatment") == false);
        const auto modes = to_json(v).at("arms").at("baseline").at("modes");
        QCOMPARE(modes.size(), std::size_t(2));
        QVERIFY(std::fabs(modes[0].at("share").get<double>() - 2.0 / 3) < 1e-12);
        QVERIFY(to_json(v).at("arms").at("treatment").at("modes").is_null());
        QVERIFY2(v.reasons.front().find("67% of runs at 78.95") != std::string::npos, v.reasons.front().c_str());
    }

    void paired_evidence()
    {
        const Values b {10.0, 10.4, 9.8, 10.2};
        const Values t {9.0, 9.36, 8.82, 9.18}; // 10% better in every pair
        const auto v = judge_samples(b, t, make_profile("generic", Direction::Lower), true);
        const auto p = to_json(v).at("paired");
        QCOMPARE(p.at("n_pairs").get<int>(), 4);
        QVERIFY(std::fabs(p.at("mean_delta_pct").get<double>() - 10) < 1e-9);
        QVERIFY(std::fabs(p.at("ci95_delta_pct")[0].get<double>() - 10) < 1e-9);
        QVERIFY(to_json(judge_samples(Values {1}, Values {2}, make_profile("generic", Direction::Lower), true))
                    .at("paired")
                    .at("ci95_delta_pct")
                    .is_null());
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument, judge_samples(b, Values {1, 2}, make_profile("generic", Direction::Lower), true));
    }

    void profiles()
    {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, make_profile("lenient", Direction::Lower));
        const Profile g = make_profile("generic", Direction::Higher);
        const auto j = profile_to_json(g);
        QVERIFY(j
            == nlohmann::json::parse("{\"name\": \"generic\", \"direction\": \"higher\", \"min_n\": 3, "
                                     "\"license_pct\": 10, \"kill_pct\": 5, \"max_sigma_pct\": 5, "
                                     "\"unstable_sigma_pct\": 10, \"noise_k\": 2}"));
        const auto sj = profile_to_json(make_profile("speedup", Direction::Lower));
        QCOMPARE(sj.at("license_speedup").get<double>(), 5.0);
        QCOMPARE(sj.at("kill_speedup").get<double>(), 2.0);

        const Profile c = apply_overrides(make_profile("strict", Direction::Lower), {{"license_pct", 10}});
        QCOMPARE(c.name, std::string("custom")); // given is given, even at the default value
        QCOMPARE(c.base, std::string("strict"));
        QCOMPARE(rule_family(c), std::string_view("strict"));
        const Profile c2 = apply_overrides(c, {{"kill_pct", 3}});
        QCOMPARE(c2.base, std::string("strict"));
        QCOMPARE(profile_to_json(c2).at("base").get<std::string>(), std::string("strict"));
        QCOMPARE(apply_overrides(g, nlohmann::json::object()).name, std::string("generic"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, apply_overrides(g, {{"colour", 1}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, apply_overrides(g, {{"min_n", 0}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, apply_overrides(g, {{"min_n", 2.5}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, apply_overrides(g, {{"noise_k", -1}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, apply_overrides(g, {{"kill_speedup", 0}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, apply_overrides(g, {{"license_pct", "ten"}}));
        const Profile back = profile_from_json(profile_to_json(c2));
        QVERIFY(profile_to_json(back) == profile_to_json(c2));
    }

    void runs_needed_data()
    {
        QTest::addColumn<double>("delta");
        QTest::addColumn<double>("lo");
        QTest::addColumn<double>("hi");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("expected"); // -1: null
        QTest::addColumn<double>("threshold"); // NaN: null
        // delta 12, CI [8, 16] straddles license 10: the lower half (4) must shrink below 2: 4x the runs.
        QTest::addRow("straddles license") << 12.0 << 8.0 << 16.0 << 5 << 21 << 10.0;
        // delta 3, CI [1, 6] straddles kill 5: the upper half (3) must shrink below 2: n * 2.25.
        QTest::addRow("straddles kill") << 3.0 << 1.0 << 6.0 << 4 << 10 << 5.0;
        QTest::addRow("already clear") << 20.0 << 15.0 << 25.0 << 5 << -1 << std::nan("");
        QTest::addRow("on the threshold") << 10.0 << 8.0 << 12.0 << 5 << -1 << 10.0;
        QTest::addRow("nearest of two") << 7.0 << 2.0 << 12.0 << 5 << 32 << 5.0;
    }
    void runs_needed()
    {
        QFETCH(double, delta);
        QFETCH(double, lo);
        QFETCH(double, hi);
        QFETCH(int, n);
        QFETCH(int, expected);
        QFETCH(double, threshold);
        const auto r = runs_needed_for_ci(delta, {lo, hi}, static_cast<std::size_t>(n), {5.0, 10.0});
        QCOMPARE(r.per_arm.has_value(), expected >= 0);
        if (expected >= 0)
            QCOMPARE(*r.per_arm, expected);
        QCOMPARE(r.threshold_pct.has_value(), !std::isnan(threshold));
        if (r.threshold_pct)
            QCOMPARE(*r.threshold_pct, threshold);
    }

    void runs_needed_in_json()
    {
        const auto v = judge_samples(Values {10, 10.3, 9.7, 10.2, 9.8}, Values {8.9, 9.2, 8.7, 9.1, 8.6},
            make_profile("generic", Direction::Lower), false);
        // delta ~ 10.2% with a CI straddling license 10%: more runs would decide it.
        QVERIFY2(to_json(v).at("runs_needed_per_arm").is_number(), to_json(v).dump().c_str());
        QVERIFY(to_json(v).at("runs_needed_per_arm").get<int>() > 5);
        const auto s = delta_thresholds(make_profile("speedup", Direction::Lower));
        QVERIFY(std::fabs(s[0] - 50) < 1e-12 && std::fabs(s[1] - 80) < 1e-12);
    }
};

QTEST_GUILESS_MAIN(TestVerdictJudge)
#include "tst_verdict_judge.moc"
