// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/distribution_stats.h"
#include "models/live_series.h"
#include "plots/distribution_plot.h"
#include "plots/live_plot.h"
#include "plots/plot_style.h"
#include "plots/sigma_chart.h"
#include "plots/verdict_badge.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>
#include <cmath>

using namespace Qt::StringLiterals;
using namespace kwb::gui;

class TestPlots : public QObject {
    Q_OBJECT
private slots:
    void livePlotDrainsOnItsTimer();
    void livePlotReplotsOncePerTickNotPerSample();
    void distributionPlotHoldsEveryRepetition();
    void throttledRepetitionsAreDrawnApartNotDropped();
    void sigmaChartShowsTheVerdictsDelta();
    void sigmaChartDrawsTheLinesTheProfileJudgesBy_data();
    void sigmaChartDrawsTheLinesTheProfileJudgesBy();
    void sigmaChartLabelsStayClear_data();
    void sigmaChartLabelsStayClear();
    void badge_data();
    void badge();
};

void TestPlots::throttledRepetitionsAreDrawnApartNotDropped()
{
    DistributionPlot plot;
    ArmDistribution a = describe(u"baseline"_s, {1.60, 1.61, 1.75, 1.62, 1.74});
    a.throttled = {false, false, true, false, true};
    ArmDistribution b = describe(u"treatment"_s, {1.60, 1.62, 1.61});
    plot.setDistributions({a, b}, u"time_ms"_s, u"ms"_s);
    QCOMPARE(plot.pointCount(u"baseline"_s), 5);
    QCOMPARE(plot.throttledCount(u"baseline"_s), 2);
    QCOMPARE(plot.pointCount(u"treatment"_s), 3);
    QCOMPARE(plot.throttledCount(u"treatment"_s), 0);
}

void TestPlots::livePlotDrainsOnItsTimer()
{
    LiveSeries series;
    series.setPlan({u"baseline"_s, u"treatment"_s}, u"time_ms"_s, u"ms"_s);
    LivePlot plot;
    plot.resize(800, 500);
    plot.show();
    plot.setSeries(&series);
    for (int i = 0; i < 5; ++i) {
        series.addSample(u"baseline"_s, i, 40 + i * 0.1, false);
        series.addSample(u"treatment"_s, i + 0.5, 35, false);
        series.addLaneValue(u"cpu_util"_s, u"%"_s, i, 95);
    }
    QCOMPARE(plot.pointCount(u"baseline"_s), 0); // nothing drawn until the timer ticks
    QTRY_COMPARE_WITH_TIMEOUT(plot.pointCount(u"baseline"_s), 5, 10000);
    QCOMPARE(plot.pointCount(u"treatment"_s), 5);
    QCOMPARE(plot.lanePointCount(), 5);
    QCOMPARE(plot.laneName(), u"cpu_util"_s);
    // A new run with other arms drops the old arms' graphs.
    series.setPlan({u"a"_s}, u"m"_s, {});
    series.addSample(u"a"_s, 0, 1, false);
    QTRY_COMPARE_WITH_TIMEOUT(plot.pointCount(u"a"_s), 1, 10000);
    QCOMPARE(plot.pointCount(u"baseline"_s), 0);
}

void TestPlots::livePlotReplotsOncePerTickNotPerSample()
{
    LiveSeries series;
    series.setPlan({u"baseline"_s}, u"time_ms"_s, u"ms"_s);
    LivePlot plot;
    plot.resize(800, 500);
    plot.show();
    plot.setSeries(&series);
    QTest::qWait(2 * LivePlot::kRefreshIntervalMs);
    QSignalSpy replots(&plot, &QCustomPlot::afterReplot);
    for (int i = 0; i < 1000; ++i)
        series.addSample(u"baseline"_s, i * 0.001, 40, false);
    QTRY_COMPARE_WITH_TIMEOUT(plot.pointCount(u"baseline"_s), 1000, 10000);
    QTest::qWait(3 * LivePlot::kRefreshIntervalMs);
    QVERIFY2(replots.count() <= 3, qPrintable(QString::number(replots.count())));
}

void TestPlots::distributionPlotHoldsEveryRepetition()
{
    DistributionPlot plot;
    plot.resize(600, 400);
    plot.setDistributions({describe(u"baseline"_s, {41, 42, 41.5, 41.7}), describe(u"treatment"_s, {35, 35.2, 34.9})},
        u"time_ms"_s, u"ms"_s);
    QCOMPARE(plot.pointCount(u"baseline"_s), 4);
    QCOMPARE(plot.pointCount(u"treatment"_s), 3);
    QCOMPARE(plot.yAxis->label(), u"time_ms (ms)"_s);
    plot.setDistributions({}, {}, {});
    QCOMPARE(plot.pointCount(u"baseline"_s), 0);
}

void TestPlots::sigmaChartShowsTheVerdictsDelta()
{
    SigmaChart chart;
    chart.resize(600, 200);
    const auto verdict = QJsonDocument::fromJson(R"({"verdict":"LICENSE","delta_pct":16.4,"sigma_pct":1.2,
        "ci95_delta_pct":[15.6,17.2],"profile":{"name":"generic","kill_pct":5,"license_pct":10,"noise_k":2}})");
    chart.setVerdict(verdict.object());
    QVERIFY(chart.hasDelta());
    QCOMPARE(chart.shownDelta(), 16.4);
    QVERIFY(chart.xAxis->range().contains(17.2));
    QVERIFY(chart.xAxis->range().contains(-2.4)); // the whole noise band is in view
    chart.setVerdict({});
    QVERIFY(!chart.hasDelta());
}

// A profile of the speedup family is judged by its speedup ratios (spec/verdict.md): its lines
// stand at those ratios on the delta% axis, for the built-in "speedup" and for a custom profile
// based on it alike; its kill_pct and license_pct judge nothing and draw nothing.
void TestPlots::sigmaChartDrawsTheLinesTheProfileJudgesBy_data()
{
    QTest::addColumn<QByteArray>("profile");
    QTest::addColumn<double>("kill");
    QTest::addColumn<double>("license");
    QTest::addColumn<QString>("text");
    QTest::addRow("generic") << QByteArray(R"({"name":"generic","kill_pct":5,"license_pct":10})") << 5.0 << 10.0
                             << u"license ≥ 10 %"_s;
    // speedup s as delta% of lower-is-better: 100 (1 - 1/s); 2x -> 50 %, 5x -> 80 %.
    QTest::addRow("speedup") << QByteArray(R"({"name":"speedup","kill_pct":5,"license_pct":10,"kill_speedup":2,
        "license_speedup":5})")
                             << 50.0 << 80.0 << u"license ≥ 5× speedup"_s;
    QTest::addRow("custom speedup") << QByteArray(R"({"name":"custom","base":"speedup","kill_pct":5,
        "license_pct":10,"kill_speedup":1.25,"license_speedup":4})")
                                    << 20.0 << 75.0 << u"license ≥ 4× speedup"_s;
}

void TestPlots::sigmaChartDrawsTheLinesTheProfileJudgesBy()
{
    QFETCH(QByteArray, profile);
    QFETCH(double, kill);
    QFETCH(double, license);
    QFETCH(QString, text);
    SigmaChart chart;
    chart.resize(600, 200);
    const QByteArray verdict = R"({"verdict":"LICENSE","delta_pct":60,"sigma_pct":1.2,"ci95_delta_pct":[58,62],
        "profile":)"
        + profile + "}";
    chart.setVerdict(QJsonDocument::fromJson(verdict).object());
    const QList<double> at = chart.thresholdValues();
    QCOMPARE(at.size(), 2);
    QVERIFY2(std::fabs(at[0] - kill) < 1e-9 && std::fabs(at[1] - license) < 1e-9,
        qPrintable(u"lines at %1 and %2"_s.arg(at[0]).arg(at[1])));
    QCOMPARE(chart.thresholdTexts().value(1), text);
}

void TestPlots::sigmaChartLabelsStayClear_data()
{
    QTest::addColumn<QByteArray>("verdict");
    QTest::addColumn<int>("width");
    // tests/data/studies/kill.json's verdict: the noise label used to sit centred on zero across
    // the kill line, and "license ≥ 10 %" was clipped by the chart's right edge.
    const QByteArray kill = R"({"verdict":"KILL","delta_pct":-134.61,"sigma_pct":0.87,
        "ci95_delta_pct":[-136.23,-132.80],"profile":{"name":"generic","kill_pct":5,"license_pct":10,"noise_k":2}})";
    const QByteArray demo = R"({"verdict":"LICENSE","delta_pct":38.31,"sigma_pct":1.16,
        "ci95_delta_pct":[37.90,38.71],"profile":{"name":"generic","kill_pct":5,"license_pct":10,"noise_k":2}})";
    const QByteArray wide = R"({"verdict":"INCONCLUSIVE","delta_pct":14.99,"sigma_pct":11.34,
        "ci95_delta_pct":[8.51,20.74],"profile":{"name":"generic","kill_pct":5,"license_pct":10,"noise_k":2}})";
    for (const int width : {760, 1700}) {
        QTest::addRow("kill-%d", width) << kill << width;
        QTest::addRow("demo-%d", width) << demo << width;
        QTest::addRow("wide-noise-%d", width) << wide << width;
    }
}

void TestPlots::sigmaChartLabelsStayClear()
{
    // Every label inside the axis rect (threshold labels never clipped), no two labels on each
    // other, and no threshold line through the noise or the delta label.
    QFETCH(QByteArray, verdict);
    QFETCH(int, width);
    SigmaChart chart;
    chart.resize(width, 150);
    chart.show();
    chart.setVerdict(QJsonDocument::fromJson(verdict).object());
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.replot(); // the first layout may widen the range for the threshold labels...
    QCoreApplication::processEvents(); // ...and queue one more pass
    chart.replot();
    const QRectF area = QRectF(chart.axisRect()->rect()).adjusted(-0.5, -0.5, 0.5, 0.5);
    const QList<QRectF> thresholds = chart.thresholdLabelRects();
    QCOMPARE(thresholds.size(), 2);
    const QList<QRectF> labels = thresholds + QList<QRectF> {chart.noiseLabelRect(), chart.deltaLabelRect()};
    for (qsizetype i = 0; i < labels.size(); ++i) {
        QVERIFY2(!labels[i].isEmpty(), qPrintable(u"label %1 is empty"_s.arg(i)));
        QVERIFY2(area.contains(labels[i]), qPrintable(u"label %1 is clipped"_s.arg(i)));
        for (qsizetype j = i + 1; j < labels.size(); ++j)
            QVERIFY2(!labels[i].intersects(labels[j]), qPrintable(u"labels %1 and %2 overlap"_s.arg(i).arg(j)));
    }
    for (const double x : chart.thresholdPixels())
        for (const QRectF& r : {chart.noiseLabelRect(), chart.deltaLabelRect()})
            QVERIFY2(x < r.left() || x > r.right(), qPrintable(u"a threshold line at x=%1 crosses a label"_s.arg(x)));
}

void TestPlots::badge_data()
{
    QTest::addColumn<QString>("word");
    QTest::addColumn<QString>("text");
    QTest::addRow("license") << u"LICENSE"_s << u"LICENSE"_s;
    QTest::addRow("kill") << u"KILL"_s << u"KILL"_s;
    QTest::addRow("noise") << u"NOISE"_s << u"NOISE"_s;
    QTest::addRow("inconclusive") << u"INCONCLUSIVE"_s << u"INCONCLUSIVE"_s;
    QTest::addRow("none") << QString() << u"NO VERDICT"_s;
}

void TestPlots::badge()
{
    QFETCH(QString, word);
    QFETCH(QString, text);
    VerdictBadge badge;
    badge.setVerdict(word);
    QCOMPARE(badge.text(), text);
    QCOMPARE(badge.verdict(), word);
    if (!word.isEmpty())
        QVERIFY(badge.styleSheet().contains(verdictColor(word).name()));
}

QTEST_MAIN(TestPlots)
#include "tst_plots.moc"
