// SPDX-License-Identifier: GPL-3.0-or-later
// Hand-checked statistics and the spec's edge cases: percentiles, Tukey counts, the bimodality
// gap rule, Mann-Whitney's method choice and ties, Welch's undefined cases, the bootstrap's
// determinism.
#include "stats/bimodality.h"
#include "stats/bootstrap.h"
#include "stats/descriptive.h"
#include "stats/hypothesis_tests.h"

#include <QFile>
#include <QTest>
#include <cmath>
#include <nlohmann/json.hpp>

using namespace kwb;
using namespace kwb::stats;

using Values = std::vector<double>;
Q_DECLARE_METATYPE(Values)

class TestStatsBasics : public QObject {
    Q_OBJECT

private slots:
    void percentiles_data()
    {
        QTest::addColumn<Values>("values");
        QTest::addColumn<double>("q");
        QTest::addColumn<double>("expected");
        QTest::addRow("single") << Values {7} << 90.0 << 7.0;
        QTest::addRow("median even") << Values {4, 1, 3, 2} << 50.0 << 2.5;
        QTest::addRow("p90 of 1..10") << Values {1, 2, 3, 4, 5, 6, 7, 8, 9, 10} << 90.0 << 9.1;
        QTest::addRow("p99 of 1..5") << Values {1, 2, 3, 4, 5} << 99.0 << 4.96;
        QTest::addRow("p0 is min") << Values {3, 1, 2} << 0.0 << 1.0;
        QTest::addRow("p100 is max") << Values {3, 1, 2} << 100.0 << 3.0;
    }
    void percentiles()
    {
        QFETCH(Values, values);
        QFETCH(double, q);
        QFETCH(double, expected);
        QVERIFY(std::fabs(percentile(values, q) - expected) < 1e-12);
    }

    void summary_of_one_value()
    {
        const ArmSummary s = summarize(Values {5});
        QCOMPARE(s.n, std::size_t(1));
        QCOMPARE(s.mean, 5.0);
        QVERIFY(!s.stddev);
        QVERIFY(!s.cv_pct);
        QCOMPARE(s.p99, 5.0);
    }

    void summary_sample_stddev()
    {
        const ArmSummary s = summarize(Values {2, 4, 4, 4, 5, 5, 7, 9});
        QVERIFY(std::fabs(*s.stddev - std::sqrt(32.0 / 7)) < 1e-12); // n - 1 denominator
        QVERIFY(std::fabs(*s.cv_pct - 100 * std::sqrt(32.0 / 7) / 5) < 1e-12);
    }

    void tukey_data()
    {
        QTest::addColumn<Values>("values");
        QTest::addColumn<int>("mild");
        QTest::addColumn<int>("extreme");
        QTest::addRow("none") << Values {10, 10.1, 9.9, 10.05, 9.95} << 0 << 0;
        QTest::addRow("one mild") << Values {10, 11, 12, 13, 14, 15, 16, 17, 24} << 1 << 0;
        QTest::addRow("one extreme counts in both") << Values {10, 11, 12, 13, 14, 15, 16, 17, 40} << 1 << 1;
        QTest::addRow("low side") << Values {1, 10, 11, 12, 13, 14, 15, 16, 17} << 1 << 0;
        QTest::addRow("constant") << Values {3, 3, 3, 3} << 0 << 0;
    }
    void tukey()
    {
        QFETCH(Values, values);
        QFETCH(int, mild);
        QFETCH(int, extreme);
        const auto t = tukey_outliers(values);
        QCOMPARE(t.mild, mild);
        QCOMPARE(t.extreme, extreme);
    }

    void bimodality_data()
    {
        QTest::addColumn<Values>("values");
        QTest::addColumn<int>("expected"); // -1 not assessed, 0 no, 1 yes
        QTest::addRow("n = 5 not assessed") << Values {1, 1, 1, 9, 9} << -1;
        QTest::addRow("all equal") << Values {4, 4, 4, 4, 4, 4} << 0;
        QTest::addRow("single outlier") << Values {10, 10.1, 9.9, 10, 10.05, 9.95, 10.02, 25} << 0;
        QTest::addRow("two clusters") << Values {78.9, 79.1, 78.7, 79.0, 78.8, 79.2, 56.0, 56.1, 55.9} << 1;
        QTest::addRow("two of six on the low side") << Values {5, 5.1, 9, 9.1, 9.05, 8.95} << 1;
        QTest::addRow("one of six on the low side") << Values {5, 9.02, 9, 9.1, 9.05, 8.95} << 0;
        QTest::addRow("two constant clusters") << Values {2, 2, 2, 3, 3, 3} << 1;
        QTest::addRow("uniform") << Values {1, 2, 3, 4, 5, 6, 7, 8} << 0;
        // n = 20: m = ceil(0.15 * 20) = 3 exactly (not 4 from a rounding 3.0000000000000004)
        QTest::addRow("n20 three high") << Values {10, 10.1, 10.2, 10.1, 10, 10.2, 10.1, 10, 10.2, 10.1, 10, 10.2, 10.1,
            10, 10.2, 10.1, 10, 20, 20.1, 20.2}
                                        << 1;
        QTest::addRow("n20 two high") << Values {10, 10.1, 10.2, 10.1, 10, 10.2, 10.1, 10, 10.2, 10.1, 10, 10.2, 10.1,
            10, 10.2, 10.1, 10, 10.1, 20, 20.1}
                                      << 0;
    }
    void bimodality()
    {
        QFETCH(Values, values);
        QFETCH(int, expected);
        const Bimodality b = assess_bimodality(values);
        QCOMPARE(b.bimodal.has_value(), expected >= 0);
        if (expected >= 0)
            QCOMPARE(*b.bimodal, expected == 1);
        QCOMPARE(b.modes.size(), std::size_t(expected == 1 ? 2 : 0));
    }

    void bimodal_modes_larger_share_first()
    {
        const Bimodality b = assess_bimodality(Values {78.9, 79.1, 78.7, 79.0, 78.8, 79.2, 56.0, 56.1, 55.9});
        QVERIFY(std::fabs(b.modes[0].share - 6.0 / 9) < 1e-12);
        QVERIFY(std::fabs(b.modes[0].mean - 78.95) < 1e-9);
        QVERIFY(std::fabs(b.modes[1].share - 3.0 / 9) < 1e-12);
        QVERIFY(std::fabs(b.modes[1].mean - 56.0) < 1e-9);
    }

    void bimodal_equal_gaps_take_the_low_one()
    {
        // Gaps 1, 10, 1, 10, 1 (exact in binary): the cut is at the first 10, nearest the low end.
        const Bimodality b = assess_bimodality(Values {1, 2, 12, 13, 23, 24});
        QVERIFY(b.bimodal.has_value());
        QCOMPARE(b.n_low, std::size_t(2));
    }

    void mann_whitney_method_data()
    {
        QTest::addColumn<Values>("a");
        QTest::addColumn<Values>("b");
        QTest::addColumn<QString>("method");
        QTest::addColumn<double>("p"); // -1: not checked here
        QTest::addRow("7 vs 20 no ties exact")
            << Values {1, 2, 3, 4, 5, 6, 7}
            << Values {8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27}
            << QStringLiteral("exact") << -1.0;
        QTest::addRow("8 vs 8 asymptotic") << Values {1, 2, 3, 4, 5, 6, 7, 8} << Values {9, 10, 11, 12, 13, 14, 15, 16}
                                           << QStringLiteral("asymptotic") << -1.0;
        QTest::addRow("small with a tie asymptotic")
            << Values {1, 2, 3} << Values {3, 4, 5} << QStringLiteral("asymptotic") << -1.0;
        QTest::addRow("3 vs 3 separated") << Values {1, 2, 3} << Values {4, 5, 6} << QStringLiteral("exact") << 0.1;
        QTest::addRow("n = 1 each") << Values {1} << Values {2} << QStringLiteral("exact") << 1.0;
        QTest::addRow("all tied") << Values {7, 7, 7} << Values {7, 7, 7, 7} << QStringLiteral("asymptotic") << 1.0;
        QTest::addRow("all tied large") << Values(20, 3.0) << Values(30, 3.0) << QStringLiteral("asymptotic") << 1.0;
    }
    void mann_whitney_method()
    {
        QFETCH(Values, a);
        QFETCH(Values, b);
        QFETCH(QString, method);
        QFETCH(double, p);
        const auto r = mann_whitney(a, b);
        QCOMPARE(QString::fromLatin1(to_string(r.method).data()), method);
        if (p >= 0)
            QVERIFY2(std::fabs(r.p - p) < 1e-12, std::to_string(r.p).c_str());
    }

    void welch_undefined()
    {
        QVERIFY(!welch_p(Values {1}, Values {2, 3}));
        QVERIFY(!welch_p(Values {2, 2, 2}, Values {3, 3}));
        QVERIFY(welch_p(Values {2, 2, 2}, Values {3, 3.1}).has_value());
        QCOMPARE(*welch_p(Values {1, 2, 3}, Values {1, 2, 3}), 1.0);
    }

    void bootstrap_is_deterministic()
    {
        const Values b {10.0, 10.4, 9.8, 10.2, 10.1, 9.9, 10.3};
        const Values t {9.1, 9.5, 8.9, 9.2, 9.2, 9.0};
        const auto first = bootstrap_delta_ci(b, t, Direction::Lower);
        const auto second = bootstrap_delta_ci(b, t, Direction::Lower);
        QVERIFY(first && second);
        QCOMPARE((*first)[0], (*second)[0]); // bit for bit
        QCOMPARE((*first)[1], (*second)[1]);
        QVERIFY((*first)[0] < 9.5 && (*first)[1] > 9.5);
        // Another seed gives another (close) interval: the seed is what makes it repeatable.
        const auto other = bootstrap_delta_ci(b, t, Direction::Lower, kBootstrapResamples, kBootstrapSeed + 1);
        QVERIFY((*other)[0] != (*first)[0] || (*other)[1] != (*first)[1]);
        QVERIFY(std::fabs((*other)[0] - (*first)[0]) < 0.5);
    }

    // Against scipy.stats.bootstrap (percentile method, 400,000 resamples; tests/data/stats/
    // bootstrap_cases.json from scripts/gen_bootstrap_fixtures.py). kwb draws 10,000 resamples with
    // its own generator, so its endpoints differ by Monte-Carlo error: about 0.7% of the interval's
    // width per endpoint; 6% of the width is allowed, far below what a wrong delta% or a wrong
    // percentile (a 90% interval, a swapped arm) would move it.
    void bootstrap_matches_scipy()
    {
        QFile file(QStringLiteral(KWB_TEST_DATA_DIR "/stats/bootstrap_cases.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto fixture = nlohmann::json::parse(file.readAll().toStdString());
        QVERIFY(fixture.at("cases").size() >= 3);
        for (const auto& c : fixture.at("cases")) {
            const auto b = c.at("baseline").get<Values>();
            const auto t = c.at("treatment").get<Values>();
            const Direction d = c.at("direction") == "lower" ? Direction::Lower : Direction::Higher;
            const auto ci = bootstrap_delta_ci(b, t, d);
            QVERIFY(ci);
            const double lo = c.at("lo"), hi = c.at("hi");
            const double tolerance = 0.06 * (hi - lo);
            const std::string what = c.at("name").get<std::string>() + ": kwb " + std::to_string((*ci)[0]) + " .. "
                + std::to_string((*ci)[1]) + ", scipy " + std::to_string(lo) + " .. " + std::to_string(hi);
            QVERIFY2(std::fabs((*ci)[0] - lo) < tolerance && std::fabs((*ci)[1] - hi) < tolerance, what.c_str());
        }
    }

    void bootstrap_edge_cases()
    {
        QVERIFY(!bootstrap_delta_ci(Values {1}, Values {2, 3}, Direction::Lower));
        QVERIFY(!bootstrap_mean_ci(Values {1}));
        const auto c = bootstrap_delta_ci(Values {5, 5, 5}, Values {4, 4, 4}, Direction::Lower);
        QVERIFY(std::fabs((*c)[0] - 20) < 1e-9 && std::fabs((*c)[1] - 20) < 1e-9);
        const auto h = bootstrap_delta_ci(Values {5, 5, 5}, Values {4, 4, 4}, Direction::Higher);
        QVERIFY(std::fabs((*h)[0] + 20) < 1e-9);
    }

    // Its speed is measured in bench/ (kwb_bench), never asserted here: a wall-clock threshold
    // in a unit test fails on a loaded machine and passes a slow change on a fast one.
    void bootstrap_handles_large_arms()
    {
        Values b(1000), t(1000);
        for (std::size_t i = 0; i < b.size(); ++i) {
            b[i] = 10 + std::sin(static_cast<double>(i));
            t[i] = 9 + std::cos(static_cast<double>(i));
        }
        const auto ci = bootstrap_delta_ci(b, t, Direction::Lower);
        QVERIFY(ci.has_value());
        QVERIFY((*ci)[0] < (*ci)[1]);
    }
};

QTEST_GUILESS_MAIN(TestStatsBasics)
#include "tst_stats_basics.moc"
