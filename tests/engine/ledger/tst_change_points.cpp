// SPDX-License-Identifier: GPL-3.0-or-later
// Change points of a history (ledger/change_points.h) against an independent implementation of
// the stated method (scripts/gen_change_point_fixtures.py, numpy + scipy): a planted step is found
// where it was planted, a flat history gives none; and end to end through the ledger: studies
// indexed, their history loaded, the step found.
#include "ledger/change_points.h"
#include "ledger/ledger_history.h"
#include "ledger/ledger_index.h"
#include "ledger/ledger_row.h"
#include "ledger_studies.h"
#include "verdict/verdict.h"

#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace kwb;
using namespace kwb::ledger;
using nlohmann::json;

namespace {

json fixture()
{
    std::ifstream in(KWB_TEST_DATA_DIR "/ledger/change_point_cases.json");
    return json::parse(in);
}

bool close_rel(double a, double b, double rel)
{
    return std::fabs(a - b) <= rel * std::max(std::fabs(b), 1e-300);
}

} // namespace

class TestChangePoints : public QObject {
    Q_OBJECT
private slots:
    void matchesTheIndependentImplementation_data()
    {
        QTest::addColumn<int>("index");
        const json f = fixture();
        for (int i = 0; i < static_cast<int>(f["cases"].size()); ++i)
            QTest::newRow(f["cases"][static_cast<size_t>(i)]["name"].get<std::string>().c_str()) << i;
    }

    void matchesTheIndependentImplementation()
    {
        QFETCH(int, index);
        const json f = fixture();
        const json& c = f["cases"][static_cast<size_t>(index)];
        Profile p = make_profile("generic", c["direction"] == "higher" ? Direction::Higher : Direction::Lower);
        QCOMPARE(p.min_n, f["min_n"].get<int>());
        QCOMPARE(p.noise_k, f["noise_k"].get<double>());
        QCOMPARE(p.unstable_sigma_pct, f["unstable_sigma_pct"].get<double>());
        ChangePointOptions o;
        o.window = c["window"].get<int>();
        o.alpha = c["alpha"].get<double>();
        const auto found = find_change_points(c["values"].get<std::vector<double>>(), p, o);
        const json& expected = c["expected"];
        QCOMPARE(found.size(), expected.size());
        for (size_t i = 0; i < found.size(); ++i) {
            QCOMPARE(found[i].index, expected[i]["index"].get<size_t>());
            QVERIFY(close_rel(found[i].delta_pct, expected[i]["delta_pct"].get<double>(), 1e-9));
            QVERIFY(close_rel(found[i].sigma_pct, expected[i]["sigma_pct"].get<double>(), 1e-9));
            QVERIFY2(close_rel(found[i].p_welch, expected[i]["p_welch"].get<double>(), 1e-6),
                qPrintable(QString::number(found[i].p_welch)));
            QCOMPARE(found[i].regression, found[i].delta_pct < 0);
        }
    }

    void theFixturesPlantWhatTheyClaim()
    {
        const json f = fixture();
        for (const auto& c : f["cases"]) {
            if (c["name"] == "flat")
                QVERIFY(c["expected"].empty());
            if (c["name"] == "step_worse_at_20") {
                QCOMPARE(c["expected"].size(), size_t(1));
                QCOMPARE(c["expected"][0]["index"].get<int>(), 20);
            }
        }
    }

    void refusesAMeaninglessMethod()
    {
        const Profile p;
        ChangePointOptions o;
        o.window = 1;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, find_change_points({1, 2, 3}, p, o));
        o.window = 5;
        o.alpha = 0;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, find_change_points({1, 2, 3}, p, o));
        QVERIFY(find_change_points({1, 2, 3}, p).empty()); // shorter than two windows
    }

    void aPlantedStepInTheLedgersHistory()
    {
        QTemporaryDir dir;
        Database db(dir.filePath(QStringLiteral("l.sqlite")).toStdString(),
            dir.filePath(QStringLiteral("none.jsonl")).toStdString());
        for (const bool step : {false, true}) {
            Study s;
            s.name = step ? "step" : "flat";
            for (int i = 0; i < 16; ++i) {
                const double t = (step && i >= 8 ? 11.0 : 10.0) * (1 + 0.002 * ((i * 7) % 5 - 2));
                const std::string at = fmt::format("2026-11-{:02}T10:00:00Z", i + 1);
                auto e = ledger_test::judged_experiment(fmt::format("ab-{}", i + 1), ledger_test::around(10.0, 1, 6, i),
                    ledger_test::around(t, 1, 6, i), step ? "NVIDIA H200" : "NVIDIA A100", at);
                ledger_test::add_ledger_entry(s, e, at);
                s.experiments.push_back(std::move(e));
            }
            const auto path = dir.filePath(QString::fromStdString(s.name + ".json")).toStdString();
            save_study(s, path);
            index_study(db, path, load_study(path));
        }
        const std::string key
            = benchmark_key(load_study(dir.filePath(QStringLiteral("flat.json")).toStdString()).experiments[0]);
        QCOMPARE(history_devices(db, key).size(), size_t(2));
        const History flat = load_history(db, key, "NVIDIA A100");
        QCOMPARE(flat.points.size(), size_t(16));
        QVERIFY(flat.change_points.empty());
        for (const auto& pt : flat.points)
            QVERIFY(pt.ci_lo < pt.value && pt.value < pt.ci_hi);
        const History step = load_history(db, key, "NVIDIA H200");
        QCOMPARE(step.change_points.size(), size_t(1));
        QCOMPARE(step.change_points[0].index, size_t(8));
        QVERIFY(step.change_points[0].regression); // time went up: worse
        QCOMPARE(to_json(step)["change_points"][0]["at"].get<std::string>(), std::string("2026-11-09T10:00:00Z"));
        QVERIFY_THROWS_EXCEPTION(LedgerError, load_history(db, key, "NVIDIA B200"));
    }
};

QTEST_GUILESS_MAIN(TestChangePoints)
#include "tst_change_points.moc"
