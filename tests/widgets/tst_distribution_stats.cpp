// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/arm_stats_model.h"
#include "models/distribution_stats.h"
#include "stats/percentile.h"

#include <QAbstractItemModelTester>
#include <QTest>
#include <cmath>

using namespace Qt::StringLiterals;
using namespace kwb::gui;
namespace stats = kwb::stats;

class TestDistributionStats : public QObject {
    Q_OBJECT
private slots:
    void percentiles_data();
    void percentiles();
    void describeMatchesHandNumbers();
    void oneValueHasNoSpread();
    void kdeIntegratesToOne_data();
    void kdeIntegratesToOne();
    void tukeyOutliers();
    void jitterIsDeterministicAndBounded();
    void statsModel();
};

void TestDistributionStats::percentiles_data()
{
    QTest::addColumn<double>("p");
    QTest::addColumn<double>("expected");
    // numpy.percentile([1, 2, 3, 4, 10], q) with linear interpolation
    QTest::addRow("p0") << 0.0 << 1.0;
    QTest::addRow("p25") << 25.0 << 2.0;
    QTest::addRow("p50") << 50.0 << 3.0;
    QTest::addRow("p90") << 90.0 << 7.6;
    QTest::addRow("p100") << 100.0 << 10.0;
}

void TestDistributionStats::percentiles()
{
    QFETCH(double, p);
    QFETCH(double, expected);
    // The window's box plots use the engine's one percentile (stats/percentile.h), q in percent.
    QVERIFY(std::abs(stats::percentile({1, 2, 3, 4, 10}, p) - expected) < 1e-12);
}

void TestDistributionStats::describeMatchesHandNumbers()
{
    const auto d = describe(u"a"_s, {10, 12, 14, 16});
    QCOMPARE(d.n, 4);
    QCOMPARE(d.mean, 13.0);
    QCOMPARE(d.median, 13.0);
    QVERIFY(std::abs(d.stddev - std::sqrt(20.0 / 3.0)) < 1e-12); // sample sd, n-1
    QVERIFY(std::abs(d.cv_pct - 100 * std::sqrt(20.0 / 3.0) / 13) < 1e-12);
    QCOMPARE(d.q1, 11.5);
    QCOMPARE(d.q3, 14.5);
    QCOMPARE(d.values, QList<double>({10, 12, 14, 16}));
}

void TestDistributionStats::oneValueHasNoSpread()
{
    const auto d = describe(u"a"_s, {5});
    QCOMPARE(d.n, 1);
    QVERIFY(std::isnan(d.stddev));
    QVERIFY(std::isnan(d.cv_pct));
    QVERIFY(!d.kde_density.isEmpty()); // still a bump where the value is
    QVERIFY(describe(u"e"_s, {}).kde_y.isEmpty());
}

void TestDistributionStats::kdeIntegratesToOne_data()
{
    QTest::addColumn<std::vector<double>>("values");
    QTest::addRow("tight") << std::vector<double> {41.2, 41.5, 41.3, 41.9, 41.0};
    QTest::addRow("two modes") << std::vector<double> {10, 10.1, 10.2, 20, 20.1, 20.2};
    QTest::addRow("all equal") << std::vector<double> {3, 3, 3};
}

void TestDistributionStats::kdeIntegratesToOne()
{
    QFETCH(std::vector<double>, values);
    const auto d = describe(u"a"_s, values, 400);
    double area = 0;
    for (qsizetype i = 1; i < d.kde_y.size(); ++i)
        area += (d.kde_y[i] - d.kde_y[i - 1]) * (d.kde_density[i] + d.kde_density[i - 1]) / 2;
    QVERIFY2(std::abs(area - 1) < 0.01, qPrintable(QString::number(area)));
}

void TestDistributionStats::tukeyOutliers()
{
    const auto d = describe(u"a"_s, {10, 10.1, 10.2, 10.3, 10.4, 30});
    QCOMPARE(d.outliers, QList<double>({30}));
    QCOMPARE(d.whisker_high, 10.4);
    QCOMPARE(d.whisker_low, 10.0);
}

void TestDistributionStats::jitterIsDeterministicAndBounded()
{
    const auto a = jitterOffsets(50);
    QCOMPARE(a, jitterOffsets(50));
    for (const double v : a)
        QVERIFY(v >= -1 && v <= 1);
}

void TestDistributionStats::statsModel()
{
    ArmStatsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setArms({describe(u"baseline"_s, {10, 12, 14}), describe(u"treatment"_s, {8})}, u"ms"_s);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), int(ArmStatsModel::ColumnCount));
    QCOMPARE(model.headerData(ArmStatsModel::Mean, Qt::Horizontal).toString(), u"mean\n(ms)"_s);
    QCOMPARE(model.data(model.index(0, ArmStatsModel::N)).toInt(), 3);
    QCOMPARE(model.data(model.index(0, ArmStatsModel::Mean), Qt::EditRole).toDouble(), 12.0);
    QCOMPARE(model.data(model.index(0, ArmStatsModel::Stddev)).toString(), u"2.000"_s);
    QCOMPARE(model.data(model.index(1, ArmStatsModel::Stddev)).toString(), u"–"_s); // n = 1: no spread
    model.setArms({}, {});
    QCOMPARE(model.rowCount(), 0);
}

QTEST_GUILESS_MAIN(TestDistributionStats)
#include "tst_distribution_stats.moc"
