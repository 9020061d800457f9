// SPDX-License-Identifier: GPL-3.0-or-later
// The live view offscreen, driven the way the window drives it: a stand-in kwb (data/fake_kwb.sh)
// plays a stream recorded on the H200 (data/h200_gemm_stream.jsonl) through the run controller
// into the series, and the view drains it on its timer. Pause, zoom (a wheel on one strip moves
// them all), hover (every lane's value, the arm and the repetition's latency at that time) are
// asserted against the recorded lines; then a GPU study recorded on the H200 replays with all
// its lanes. No wall-clock thresholds: waits are on conditions, bounded by QTRY's timeout.
#include "models/live_series.h"
#include "models/run_controller.h"
#include "models/study_document.h"
#include "pages/live_page.h"
#include "plots/lane_view.h"
#include "plots/plot_style.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>
#include <cmath>
#include <map>

using namespace Qt::StringLiterals;
using namespace kwb::gui;

namespace {
const QString kFake = QStringLiteral(KWB_WIDGETS_TEST_DATA "/fake_kwb.sh");
const QString kStream = QStringLiteral(KWB_WIDGETS_TEST_DATA "/h200_gemm_stream.jsonl");
const QString kGpuStudy
    = QStringLiteral(KWB_SOURCE_DIR "/bench/results/2026-11-30-h200-kwb-studies/studies/gemm-block_n.json");
constexpr int kTimeout = 30000;
constexpr int kSplit = 700; // lines played before the test pauses the view

struct Point {
    double t;
    double value;
};
struct Rep {
    QString arm;
    double begin, end, value;
};

// The recorded stream, read independently of the code under test.
struct Recorded {
    std::map<QString, QList<Point>> lanes; // every metric line
    std::map<QString, qsizetype> lanesBeforeSplit;
    QList<Rep> reps;
    QStringList lines;
};

Recorded readRecorded()
{
    Recorded r;
    QFile f(kStream);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(kStream));
    int index = 0;
    while (!f.atEnd()) {
        const QByteArray line = f.readLine();
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        const QString type = o.value("type"_L1).toString();
        if (type == "metric"_L1) {
            r.lanes[o.value("name"_L1).toString()].append(
                {o.value("t_s"_L1).toDouble(), o.value("value"_L1).toDouble()});
            if (index < kSplit)
                ++r.lanesBeforeSplit[o.value("name"_L1).toString()];
        } else if (type == "sample"_L1) {
            const double t = o.value("t_s"_L1).toDouble();
            r.reps.append({o.value("warmup"_L1).toBool() ? u"warm-up"_s : o.value("arm"_L1).toString(),
                t - o.value("duration_s"_L1).toDouble(), t, o.value("value"_L1).toDouble()});
        }
        ++index;
    }
    return r;
}

// The recorded point nearest to t (the earlier one on a tie).
Point nearest(const QList<Point>& points, double t)
{
    Point best = points.first();
    for (const auto& p : points)
        if (std::abs(p.t - t) < std::abs(best.t - t))
            best = p;
    return best;
}

void sendWheel(QWidget* w, QPointF at, int angle)
{
    QWheelEvent e(
        at, w->mapToGlobal(at), QPoint(), QPoint(0, angle), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &e);
}

void sendMove(QWidget* w, QPointF at)
{
    QMouseEvent e(QEvent::MouseMove, at, w->mapToGlobal(at), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(w, &e);
}

} // namespace

class TestLaneView : public QObject {
    Q_OBJECT
private slots:
    void init();
    void recordedStreamPauseZoomHover();
    void replotsOncePerTickNotPerReading();
    void recordedGpuStudyReplaysWithEveryLane();
    void denseLaneKeepsSpikeAndDipAtFullWindow();
    void zoomedInLaneDrawsRawReadings();
    void hoverReadsTheSeriesNotTheDecimatedGraph();
    void bandsShowEachRepetitionInEveryStrip();
    void legendAndNamesHideNoReading();

private:
    QTemporaryDir m_dir;
    QString m_path;
};

void TestLaneView::init()
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings().remove(u"liveView"_s); // the lane choice another test made
    StudyDocument doc;
    doc.newStudy();
    m_path = m_dir.filePath(u"s.json"_s);
    QVERIFY(doc.saveAs(m_path));
}

void TestLaneView::recordedStreamPauseZoomHover()
{
    const Recorded rec = readRecorded();
    const QString go = m_dir.filePath(u"go"_s);
    QFile::remove(go);
    qputenv("FAKE_KWB_MODE", "recorded");
    qputenv("FAKE_KWB_STREAM", kStream.toUtf8());
    qputenv("FAKE_KWB_SPLIT", QByteArray::number(kSplit));
    qputenv("FAKE_KWB_GO", go.toUtf8());
    StudyDocument doc;
    QVERIFY(doc.load(m_path));
    LiveSeries live;
    RunController run(&doc, &live);
    run.setProgram(kFake);
    LaneView view;
    view.resize(1200, 900);
    view.show();
    view.setSeries(&live);
    QVERIFY(run.start());

    // First half: every lane drawn up to the split, following the newest reading.
    const qsizetype firstDram = rec.lanesBeforeSplit.at(u"dram_pct"_s);
    QTRY_COMPARE_WITH_TIMEOUT(view.lanePointCount(u"dram_pct"_s), static_cast<int>(firstDram), kTimeout);
    QCOMPARE(view.laneNames(),
        QStringList(
            {u"occupancy"_s, u"dram_pct"_s, u"sm_pct"_s, u"tensor_pct"_s, u"power"_s, u"temperature"_s, u"cpu_util"_s})
            .mid(0, view.laneNames().size()));
    QVERIFY(view.isFollowing());
    QVERIFY(view.timeRange().upper >= rec.lanes.at(u"dram_pct"_s)[firstDram - 1].t);

    // Pause: the view freezes while the rest of the stream keeps arriving in the series.
    view.setPaused(true);
    QFile(go).open(QIODevice::WriteOnly);
    const qsizetype allDram = rec.lanes.at(u"dram_pct"_s).size();
    QTRY_COMPARE_WITH_TIMEOUT(live.lane(u"dram_pct"_s)->t.size(), allDram, kTimeout);
    QTRY_VERIFY_WITH_TIMEOUT(run.state() == RunController::State::Idle, kTimeout);
    QTest::qWait(4 * LaneView::kRefreshIntervalMs);
    QCOMPARE(view.lanePointCount(u"dram_pct"_s), static_cast<int>(firstDram));

    // Resume: it catches up with everything, every lane and every repetition.
    view.setPaused(false);
    QTRY_COMPARE_WITH_TIMEOUT(view.lanePointCount(u"dram_pct"_s), static_cast<int>(allDram), kTimeout);
    for (const auto& [name, points] : rec.lanes)
        QCOMPARE(view.lanePointCount(name), static_cast<int>(points.size()));
    QCOMPARE(view.laneNames().size(), 7);
    QCOMPARE(view.latencyPointCount(), static_cast<int>(rec.reps.size()));
    QCOMPARE(view.spanCount(), static_cast<int>(rec.reps.size()));

    // Zoom: a wheel on one strip zooms the time axis of every strip and stops following.
    view.replot();
    QCPAxisRect* dram = view.laneRect(u"dram_pct"_s);
    QVERIFY(dram);
    const QCPRange before = view.timeRange();
    sendWheel(&view, dram->rect().center(), 120);
    const QCPRange zoomed = view.timeRange();
    QVERIFY2(zoomed.size() < before.size() * 0.99, qPrintable(u"%1 -> %2"_s.arg(before.size()).arg(zoomed.size())));
    QVERIFY(!view.isFollowing());
    for (const auto& name : view.laneNames()) {
        const QCPRange r = view.laneRect(name)->axis(QCPAxis::atBottom)->range();
        QCOMPARE(r.lower, zoomed.lower);
        QCOMPARE(r.upper, zoomed.upper);
    }

    // Hover: zoom onto one treatment repetition, point at its middle; the readout names the arm,
    // the repetition's latency and each lane's recorded value nearest that time.
    const auto treatment
        = std::find_if(rec.reps.begin(), rec.reps.end(), [](const Rep& r) { return r.arm == "treatment"_L1; });
    QVERIFY(treatment != rec.reps.end());
    view.setTimeRange(treatment->begin - 0.01, treatment->end + 0.01);
    view.replot();
    const double mid = (treatment->begin + treatment->end) / 2;
    const double x = dram->axis(QCPAxis::atBottom)->coordToPixel(mid);
    const QPointF at(x, dram->rect().center().y());
    sendMove(&view, at);
    const LaneView::Readout& h = view.hover();
    QVERIFY(h.valid);
    const double t = dram->axis(QCPAxis::atBottom)->pixelToCoord(at.x());
    QCOMPARE(h.t, t);
    QCOMPARE(h.arm, u"treatment"_s);
    QVERIFY(h.latency.has_value());
    QCOMPARE(*h.latency, treatment->value);
    // The strips shown: the default set of this stream's lanes (the others are behind the page's control).
    QCOMPARE(view.shownLaneNames(), QStringList({u"occupancy"_s, u"dram_pct"_s, u"power"_s}));
    QCOMPARE(h.lanes.size(), 3);
    for (const auto& v : h.lanes) {
        const Point p = nearest(rec.lanes.at(v.name), t);
        QCOMPARE(v.t, p.t);
        QCOMPARE(v.value, p.value);
    }
    QVERIFY(h.text().contains(u"treatment"_s));
    // Follow resumes the rolling window on the newest reading.
    view.setFollowing(true);
    QVERIFY(view.timeRange().upper >= rec.lanes.at(u"dram_pct"_s).last().t);
    QVERIFY(!view.latencyLog().oldestMs.isEmpty()); // arrival-to-screen was measured
}

void TestLaneView::replotsOncePerTickNotPerReading()
{
    LiveSeries series;
    series.setPlan({u"baseline"_s}, u"time_ms"_s, u"ms"_s);
    LaneView view;
    view.resize(800, 500);
    view.show();
    view.setSeries(&series);
    QTest::qWait(2 * LaneView::kRefreshIntervalMs);
    QSignalSpy replots(&view, &QCustomPlot::afterReplot);
    for (int i = 0; i < 5000; ++i)
        series.addLaneValue(u"dram_pct"_s, u"%"_s, i * 1e-3, 50 + (i % 7));
    QCOMPARE(view.lanePointCount(u"dram_pct"_s), 0); // nothing drawn until the timer ticks
    QTRY_COMPARE_WITH_TIMEOUT(view.lanePointCount(u"dram_pct"_s), 5000, kTimeout);
    QTest::qWait(3 * LaneView::kRefreshIntervalMs);
    QVERIFY2(replots.count() <= 3, qPrintable(QString::number(replots.count())));
}

void TestLaneView::recordedGpuStudyReplaysWithEveryLane()
{
    StudyDocument doc;
    QVERIFY(doc.load(kGpuStudy));
    const kwb::Experiment* e = doc.currentExperiment();
    QVERIFY(e);
    LiveSeries live;
    RunController run(&doc, &live);
    LivePage page(&doc, &live, &run);
    page.resize(1280, 1000);
    page.show();
    page.refresh();
    LaneView* view = page.lanes();
    QCOMPARE(view->laneNames().size(), static_cast<int>(e->lanes.size()));
    QCOMPARE(view->laneNames().first(), u"occupancy"_s);
    double end = 0;
    for (const auto& lane : e->lanes) {
        QCOMPARE(view->lanePointCount(QString::fromStdString(lane.name)), static_cast<int>(lane.t_s.size()));
        end = std::max(end, lane.t_s.back());
    }
    QCOMPARE(view->spanCount(), static_cast<int>(e->samples.size()));
    QCOMPARE(view->latencyPointCount(), static_cast<int>(e->samples.size()));
    // The whole recording is on screen, not a rolling window.
    QVERIFY(!view->isFollowing());
    QVERIFY(view->timeRange().lower <= 0);
    QVERIFY(view->timeRange().upper >= end);
    // This study predates per-repetition start times: aligned by its end, and the page says so.
    QVERIFY(live.replayAlignedByEnd());
    // The last repetition ends on the lanes' last reading; the hover there names its arm.
    const auto last = std::max_element(live.spans().begin(), live.spans().end(),
        [](const kwb::gui::RepSpan& a, const kwb::gui::RepSpan& b) { return a.end < b.end; });
    QVERIFY(std::abs(last->end - end) < 1e-9);
    view->hoverAt((last->begin + last->end) / 2);
    QCOMPARE(view->hover().arm, live.arms()[last->arm].name);
    QVERIFY(page.readout()->text().contains(view->hover().arm));
    // The page's buttons drive the view.
    page.pauseButton()->click();
    QVERIFY(view->isPaused());
    page.pauseButton()->click();
    QVERIFY(!view->isPaused());
    page.followButton()->click();
    QVERIFY(view->isFollowing());
}

void TestLaneView::legendAndNamesHideNoReading()
{
    // The arms' legend sits in the header beside the title, not inside the latency strip, where
    // it hid the first seconds' samples (the demo at 1024x640, the page about 790 px wide).
    StudyDocument doc;
    QVERIFY(doc.load(QStringLiteral(KWB_SOURCE_DIR "/resources/studies/demo.json")));
    LiveSeries live;
    RunController run(&doc, &live);
    LivePage page(&doc, &live, &run);
    page.resize(790, 450);
    page.show();
    page.refresh();
    LaneView* view = page.lanes();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    view->replot();
    QVERIFY(view->legend->visible() && view->legend->itemCount() >= 2);
    const QRect legend = view->legend->outerRect();
    QVERIFY(!legend.isEmpty());
    QVERIFY2(!legend.intersects(view->latencyRect()->rect()), "the legend covers the latency strip");
    for (QCPAxisRect* strip : view->axisRects())
        QVERIFY2(!legend.intersects(strip->rect()), "the legend covers a strip");
    // Each strip's name sits above its readings (in the strip's top margin), not over the start of
    // its line (cpu_util at 100 %).
    QCoreApplication::processEvents(); // the strips' heights set their headroom: one more pass
    view->replot();
    QVERIFY(!view->shownLaneNames().isEmpty());
    for (const QString& lane : view->shownLaneNames()) {
        const QRectF label = view->laneLabelRect(lane);
        const std::optional<double> top = view->laneTopReadingPixel(lane);
        QVERIFY(!label.isEmpty() && top);
        QVERIFY2(*top >= label.bottom(),
            qPrintable(u"%1: the highest reading is drawn at y=%2, under the name (to y=%3)"_s.arg(lane).arg(*top).arg(
                label.bottom())));
    }
}

namespace {
// 200,000 readings over 10 s around 50 with a one-sample spike to 95 and a one-sample dip to 5.
constexpr int kDense = 200000;
constexpr double kDenseStep = 5e-5;
constexpr int kSpike = 123457;
constexpr int kDip = 67891;
double denseValue(int i)
{
    return i == kSpike ? 95.0 : (i == kDip ? 5.0 : 50.0 + std::sin(i * 0.01));
}
void fillDense(LiveSeries& series)
{
    series.setPlan({u"baseline"_s}, u"time_ms"_s, u"ms"_s);
    for (int i = 0; i < kDense; ++i)
        series.addLaneValue(u"power"_s, u"W"_s, i * kDenseStep, denseValue(i));
}
// Whether the rendered strip has a dark (lane-coloured) pixel within a pixel of (x, y).
bool darkNear(const QImage& img, double x, double y)
{
    for (int dx = -1; dx <= 1; ++dx)
        for (int dy = -1; dy <= 1; ++dy) {
            const QPoint p(qRound(x) + dx, qRound(y) + dy);
            if (img.valid(p) && qGray(img.pixel(p)) < 110)
                return true;
        }
    return false;
}
} // namespace

void TestLaneView::denseLaneKeepsSpikeAndDipAtFullWindow()
{
    LiveSeries series;
    LaneView view;
    view.resize(1200, 600);
    view.show();
    view.setWindowSeconds(10);
    view.setSeries(&series);
    fillDense(series);
    QTRY_COMPARE_WITH_TIMEOUT(view.lanePointCount(u"power"_s), kDense, kTimeout);
    view.replot();
    QVERIFY(view.isFollowing());
    // Decimated: at most about two points per pixel column, not the 200,000 readings.
    QCPAxisRect* rect = view.laneRect(u"power"_s);
    QVERIFY2(view.laneGraphPointCount(u"power"_s) <= 2 * rect->width() + 4,
        qPrintable(QString::number(view.laneGraphPointCount(u"power"_s))));
    // On screen: a dark pixel at the spike's top and at the dip's bottom; none at those heights
    // elsewhere (so the check can fail).
    const QImage img = view.toPixmap().toImage();
    auto* x = rect->axis(QCPAxis::atBottom);
    auto* y = rect->axis(QCPAxis::atLeft);
    QVERIFY(darkNear(img, x->coordToPixel(kSpike * kDenseStep), y->coordToPixel(95.0)));
    QVERIFY(darkNear(img, x->coordToPixel(kDip * kDenseStep), y->coordToPixel(5.0)));
    QVERIFY(!darkNear(img, x->coordToPixel(3.0), y->coordToPixel(95.0)));
    QVERIFY(!darkNear(img, x->coordToPixel(3.0), y->coordToPixel(5.0)));
}

void TestLaneView::zoomedInLaneDrawsRawReadings()
{
    LiveSeries series;
    LaneView view;
    view.resize(1200, 600);
    view.show();
    view.setWindowSeconds(10);
    view.setSeries(&series);
    fillDense(series);
    QTRY_COMPARE_WITH_TIMEOUT(view.lanePointCount(u"power"_s), kDense, kTimeout);
    view.replot();
    const int decimated = view.laneGraphPointCount(u"power"_s);
    // 0.02 s holds 400 readings, fewer than the strip's pixel columns: drawn as they are.
    const double lo = kSpike * kDenseStep - 0.01, hi = kSpike * kDenseStep + 0.01;
    view.setTimeRange(lo, hi);
    view.replot();
    QList<QCPGraphData> drawn;
    const QCPGraph* graph = view.laneRect(u"power"_s)->graphs().last();
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
        if (it->key >= lo && it->key <= hi)
            drawn.append(*it);
    QList<QCPGraphData> raw;
    for (int i = 0; i < kDense; ++i)
        if (i * kDenseStep >= lo && i * kDenseStep <= hi)
            raw.append(QCPGraphData(i * kDenseStep, denseValue(i)));
    QCOMPARE(drawn.size(), raw.size());
    for (qsizetype i = 0; i < raw.size(); ++i) {
        QCOMPARE(drawn[i].key, raw[i].key);
        QCOMPARE(drawn[i].value, raw[i].value);
    }
    // Following again: back to the decimated window.
    view.setFollowing(true);
    view.replot();
    QCOMPARE(view.laneGraphPointCount(u"power"_s), decimated);
}

void TestLaneView::hoverReadsTheSeriesNotTheDecimatedGraph()
{
    LiveSeries series;
    LaneView view;
    view.resize(1200, 600);
    view.show();
    view.setWindowSeconds(10);
    view.setSeries(&series);
    fillDense(series);
    QTRY_COMPARE_WITH_TIMEOUT(view.lanePointCount(u"power"_s), kDense, kTimeout);
    view.replot();
    QVERIFY(view.laneGraphPointCount(u"power"_s) < kDense / 10); // decimated
    for (const double t : {kSpike * kDenseStep, kDip * kDenseStep, 2.000012, 7.5, 9.99999}) {
        view.hoverAt(t);
        const auto& h = view.hover();
        QCOMPARE(h.lanes.size(), 1);
        // The nearest reading (the earlier on a tie), computed here from the inputs.
        int best = 0;
        for (int i = 1; i < kDense; ++i)
            if (std::abs(i * kDenseStep - t) < std::abs(best * kDenseStep - t))
                best = i;
        QCOMPARE(h.lanes[0].t, best * kDenseStep);
        QCOMPARE(h.lanes[0].value, denseValue(best));
    }
}

namespace {
// An arm's band colour over the white strip: the arm colour at the band's alpha (lane_view.cpp).
QColor bandOverWhite(int slot)
{
    const QColor c = armColor(slot);
    const double a = 38.0 / 255.0;
    auto mix = [a](int v) { return qRound(255 * (1 - a) + v * a); };
    return QColor(mix(c.red()), mix(c.green()), mix(c.blue()));
}
bool near(QRgb pixel, const QColor& want)
{
    return std::abs(qRed(pixel) - want.red()) <= 2 && std::abs(qGreen(pixel) - want.green()) <= 2
        && std::abs(qBlue(pixel) - want.blue()) <= 2;
}
} // namespace

// The bands are drawn once per frame and stretched over every strip: each repetition shows in
// its arm's colour behind the latency strip and every lane, the time between repetitions stays
// white, and a repetition that arrives after a frame shows in the next frame (nothing stale).
void TestLaneView::bandsShowEachRepetitionInEveryStrip()
{
    LiveSeries series;
    series.setPlan({u"baseline"_s, u"treatment"_s}, u"time_ms"_s, u"ms"_s);
    LaneView view;
    view.resize(1200, 600);
    view.show();
    view.setSeries(&series);
    for (int i = 0; i <= 100; ++i) {
        series.addLaneValue(u"power"_s, u"W"_s, i * 0.1, 50);
        series.addLaneValue(u"dram_pct"_s, u"%"_s, i * 0.1, 50);
    }
    series.addSample(u"baseline"_s, 2.0, 5, false, 1.0); // 1 s .. 2 s
    series.addSample(u"treatment"_s, 4.0, 6, false, 1.0); // 3 s .. 4 s
    view.refresh();
    view.setTimeRange(0, 10);
    QList<QCPAxisRect*> strips {view.latencyRect(), view.laneRect(u"power"_s), view.laneRect(u"dram_pct"_s)};
    auto pixelAt = [&](const QImage& img, QCPAxisRect* r, double t) {
        const int x = qRound(r->axis(QCPAxis::atBottom)->coordToPixel(t));
        return img.pixel(x, r->top() + r->height() * 3 / 4);
    };
    QImage img = view.toPixmap().toImage();
    for (QCPAxisRect* r : strips) {
        QVERIFY(r);
        QVERIFY2(near(pixelAt(img, r, 1.3), bandOverWhite(0)), qPrintable(QColor(pixelAt(img, r, 1.3)).name()));
        QVERIFY2(near(pixelAt(img, r, 3.7), bandOverWhite(1)), qPrintable(QColor(pixelAt(img, r, 3.7)).name()));
        QVERIFY(near(pixelAt(img, r, 2.7), Qt::white));
        QVERIFY(near(pixelAt(img, r, 5.3), Qt::white));
    }
    // A repetition that arrives after that frame is in the next one, in every strip.
    series.addSample(u"baseline"_s, 6.0, 5, false, 1.0); // 5 s .. 6 s
    view.refresh();
    img = view.toPixmap().toImage();
    for (QCPAxisRect* r : strips) {
        QVERIFY(near(pixelAt(img, r, 5.3), bandOverWhite(0)));
        QVERIFY(near(pixelAt(img, r, 2.7), Qt::white));
    }
}

QTEST_MAIN(TestLaneView)
#include "tst_lane_view.moc"
