// SPDX-License-Identifier: GPL-3.0-or-later
// Clopper-Pearson intervals against scipy (scripts/gen_clopper_pearson_fixtures.py writes
// tests/data/stats/clopper_pearson_cases.json from scipy.stats.beta.ppf and binomtest).
#include "stats/clopper_pearson.h"

#include <QTest>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

using namespace kwb;

class TestClopperPearson : public QObject {
    Q_OBJECT
private slots:
    void matches_scipy()
    {
        std::ifstream in(KWB_TEST_DATA_DIR "/stats/clopper_pearson_cases.json");
        const auto fixture = nlohmann::json::parse(in);
        const double level = fixture.at("level").get<double>();
        const auto& cases = fixture.at("cases");
        QVERIFY(cases.size() >= 10);
        for (const auto& c : cases) {
            const int k = c.at("k").get<int>(), n = c.at("n").get<int>();
            const auto [lo, hi] = stats::clopper_pearson(k, n, level);
            const auto close = [](double got, double want) {
                return std::fabs(got - want) <= 1e-9 * std::max(1.0, std::fabs(want));
            };
            QVERIFY2(close(lo, c.at("lo").get<double>()),
                qPrintable(QStringLiteral("k %1 n %2: lo %3, scipy %4")
                               .arg(k)
                               .arg(n)
                               .arg(lo, 0, 'g', 17)
                               .arg(c.at("lo").get<double>(), 0, 'g', 17)));
            QVERIFY2(close(hi, c.at("hi").get<double>()),
                qPrintable(QStringLiteral("k %1 n %2: hi %3, scipy %4")
                               .arg(k)
                               .arg(n)
                               .arg(hi, 0, 'g', 17)
                               .arg(c.at("hi").get<double>(), 0, 'g', 17)));
        }
    }

    void ends_are_exact()
    {
        QCOMPARE(stats::clopper_pearson(0, 10)[0], 0.0);
        QCOMPARE(stats::clopper_pearson(10, 10)[1], 1.0);
    }

    void bad_input_throws()
    {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, stats::clopper_pearson(0, 0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, stats::clopper_pearson(3, 2));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, stats::clopper_pearson(-1, 2));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, stats::clopper_pearson(1, 2, 1.0));
    }
};

QTEST_GUILESS_MAIN(TestClopperPearson)
#include "tst_clopper_pearson.moc"
