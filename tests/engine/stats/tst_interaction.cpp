// SPDX-License-Identifier: GPL-3.0-or-later
// A grid's interaction estimate against numpy/scipy on committed fixtures
// (scripts/gen_interaction_fixtures.py writes tests/data/interaction/cases.json), and its input checks.
#include "stats/interaction.h"

#include <QTest>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace kwb;
using namespace kwb::stats;

namespace {

nlohmann::json load_cases()
{
    std::ifstream in(KWB_TEST_DATA_DIR "/interaction/cases.json");
    return nlohmann::json::parse(in).at("cases");
}

InteractionEstimate estimate(const nlohmann::json& c)
{
    std::vector<GridCellRuns> cells;
    for (const auto& cell : c.at("cells"))
        cells.push_back({cell.at("row").get<int>(), cell.at("col").get<int>(),
            cell.at("baseline").get<std::vector<double>>(), cell.at("treatment").get<std::vector<double>>()});
    return estimate_interaction(c.at("rows").get<int>(), c.at("cols").get<int>(), cells,
        c.at("direction") == "lower" ? Direction::Lower : Direction::Higher);
}

bool close(double a, double b, double rel)
{
    return std::fabs(a - b) <= rel * std::max({std::fabs(a), std::fabs(b), 1e-300});
}

} // namespace

class TestInteraction : public QObject {
    Q_OBJECT

private slots:
    void matchesScipy_data()
    {
        QTest::addColumn<int>("index");
        const auto cases = load_cases();
        QVERIFY(cases.size() >= 6);
        for (size_t i = 0; i < cases.size(); ++i)
            QTest::addRow("%s", cases[i].at("name").get<std::string>().c_str()) << static_cast<int>(i);
    }

    void matchesScipy()
    {
        QFETCH(int, index);
        const auto c = load_cases().at(static_cast<size_t>(index));
        const auto& want = c.at("expected");
        const InteractionEstimate got = estimate(c);

        for (int i = 0; i < got.rows; ++i)
            for (int j = 0; j < got.cols; ++j)
                QVERIFY(close(got.delta_pct[i][j], want["delta_pct"][i][j].get<double>(), 1e-9)
                    || std::fabs(got.delta_pct[i][j]) < 1e-12);
        const auto& contrasts = want.at("interaction_pct");
        QCOMPARE(got.contrasts.size(), contrasts.size());
        for (size_t k = 0; k < contrasts.size(); ++k) {
            QVERIFY(std::fabs(got.contrasts[k].interaction_pct - contrasts[k].get<double>()) < 1e-9);
            QVERIFY(got.contrasts[k].ci95);
            // Different generators and resample counts: the spec's 0.5-point allowance on each end.
            for (int end = 0; end < 2; ++end) {
                const double ours = (*got.contrasts[k].ci95)[static_cast<size_t>(end)];
                const double theirs = want["ci95"][k][static_cast<size_t>(end)].get<double>();
                QVERIFY2(std::fabs(ours - theirs) <= 0.5,
                    qPrintable(QStringLiteral("contrast %1 end %2: %3 vs %4").arg(k).arg(end).arg(ours).arg(theirs)));
            }
        }
        QCOMPARE(got.df_interaction, want["df"][0].get<int>());
        QCOMPARE(got.df_residual, want["df"][1].get<int>());
        QVERIFY(got.f_two_way && got.p_two_way);
        QVERIFY2(close(*got.f_two_way, want["f_two_way"].get<double>(), 1e-7),
            qPrintable(QStringLiteral("F %1 vs %2").arg(*got.f_two_way).arg(want["f_two_way"].get<double>())));
        QVERIFY2(close(*got.p_two_way, want["p_two_way"].get<double>(), 1e-6),
            qPrintable(QStringLiteral("p %1 vs %2").arg(*got.p_two_way).arg(want["p_two_way"].get<double>())));
        QCOMPARE(got.flagged, want["flagged"].get<bool>());
    }

    void twoByTwoTestIsTheContrastsT()
    {
        // For a 2x2 grid the F statistic is the squared t of the one contrast:
        // I^2 / (s^2 * sum over cells of (1/n_B + 1/n_T)).
        const auto c = load_cases().at(0);
        const auto got = estimate(c);
        double inverse_weights = 0;
        for (const auto& cell : c.at("cells"))
            inverse_weights += 1.0 / cell.at("baseline").size() + 1.0 / cell.at("treatment").size();
        const double i = got.contrasts.front().interaction_pct;
        QVERIFY(close(*got.f_two_way, i * i / (got.pooled_variance * inverse_weights), 1e-9));
    }

    void sameInputSameInterval()
    {
        const auto c = load_cases().at(1);
        QVERIFY(*estimate(c).contrasts[0].ci95 == *estimate(c).contrasts[0].ci95);
    }

    void singleRunsLeaveNoInterval()
    {
        std::vector<GridCellRuns> cells = {{1, 0, {10}, {8}}, {0, 1, {10}, {9}}, {1, 1, {10}, {7}}};
        const auto est = estimate_interaction(2, 2, cells, Direction::Lower);
        QCOMPARE(est.contrasts[0].interaction_pct, 30.0 - (20.0 + 10.0));
        QVERIFY(!est.contrasts[0].ci95);
        QVERIFY(!est.p_two_way); // no residual degrees of freedom
        QVERIFY(!est.flagged);
    }

    void badGridsAreRefused_data()
    {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::addColumn<bool>("dropLast");
        QTest::addColumn<bool>("duplicate");
        QTest::addRow("missing cell") << 2 << 2 << true << false;
        QTest::addRow("duplicate cell") << 2 << 2 << false << true;
        QTest::addRow("5 levels") << 5 << 2 << false << false;
    }

    void badGridsAreRefused()
    {
        QFETCH(int, rows);
        QFETCH(int, cols);
        QFETCH(bool, dropLast);
        QFETCH(bool, duplicate);
        std::vector<GridCellRuns> cells;
        for (int i = 0; i < rows; ++i)
            for (int j = 0; j < cols; ++j)
                if (i || j)
                    cells.push_back({i, j, {10, 10.1}, {9, 9.1}});
        if (dropLast)
            cells.pop_back();
        if (duplicate)
            cells.push_back(cells.front());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, estimate_interaction(rows, cols, cells, Direction::Lower));
    }
};

QTEST_GUILESS_MAIN(TestInteraction)
#include "tst_interaction.moc"
