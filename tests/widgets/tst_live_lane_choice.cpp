// SPDX-License-Identifier: GPL-3.0-or-later
// The live view read at a glance (issue 30): studies recorded on the H200 (24 and 26 lanes) replay
// on the Live page at the size the window gives it at 1024x640 and at 1920x1080. The engine's
// default set is drawn, tall enough to read; the other lanes wait behind the page's Lanes control,
// and what is chosen there is remembered; a percentage axis is [0, 100] whatever the readings;
// the legend stays clear of the title.
#include "models/live_series.h"
#include "models/run_controller.h"
#include "models/study_document.h"
#include "pages/lane_picker.h"
#include "pages/live_page.h"
#include "plots/lane_view.h"

#include <QMenu>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace kwb::gui;

namespace {
const QString kGemm = QStringLiteral(KWB_SOURCE_DIR "/bench/results/2026-12-01-h200-final/studies/gemm-block_n.json");
const QString kTinyLlm
    = QStringLiteral(KWB_SOURCE_DIR "/bench/results/2026-12-01-h200-merged/tiny-llm-batch1/graph-default.json");

// A page with its study replayed, as the window shows it.
struct Replayed {
    StudyDocument doc;
    LiveSeries live;
    RunController run {&doc, &live};
    std::unique_ptr<LivePage> page;
    LaneView* view = nullptr;

    bool open(const QString& path, QSize size)
    {
        if (!doc.load(path))
            return false;
        page = std::make_unique<LivePage>(&doc, &live, &run);
        page->resize(size);
        page->show();
        page->refresh();
        view = page->lanes();
        if (!QTest::qWaitForWindowExposed(page.get()))
            return false;
        QCoreApplication::processEvents();
        view->replot();
        return true;
    }
};

QAction* action(LanePicker* picker, const QString& name)
{
    picker->rebuildMenu();
    return picker->lanesMenu()->findChild<QAction*>(name);
}

QStringList percentLanes(const LaneView* view)
{
    QStringList out;
    for (const QString& l : view->laneNames())
        if (view->laneUnit(l) == "%"_L1)
            out << l;
    return out;
}

} // namespace

class TestLiveLaneChoice : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void init() { QSettings().remove(u"liveView"_s); }
    void defaultSetFirstTheRestBehindTheControl_data();
    void defaultSetFirstTheRestBehindTheControl();
    void servingStudyShowsItsLatencyLanes();
    void percentAxisIsZeroToHundred();
    void choiceIsRemembered();
};

void TestLiveLaneChoice::defaultSetFirstTheRestBehindTheControl_data()
{
    QTest::addColumn<QSize>("size");
    // The Live page's size in the window at 1024x640 and at 1920x1080 (the window's sidebar,
    // toolbar and status bar take the rest).
    QTest::newRow("1024x640") << QSize(800, 560);
    QTest::newRow("1920x1080") << QSize(1700, 980);
}

void TestLiveLaneChoice::defaultSetFirstTheRestBehindTheControl()
{
    QFETCH(QSize, size);
    Replayed r;
    QVERIFY(r.open(kGemm, size));
    LaneView* view = r.view;
    QCOMPARE(view->laneNames().size(), 24);
    const QStringList defaults {u"occupancy"_s, u"dram_pct"_s, u"sm_clock"_s, u"power"_s};
    QCOMPARE(view->shownLaneNames(), defaults);
    // The others are taken in (their readings are there) but draw no strip until asked for.
    for (const QString& lane : view->laneNames()) {
        QCPAxisRect* strip = view->laneRect(lane);
        QVERIFY(strip);
        QCOMPARE(view->axisRects().contains(strip), defaults.contains(lane));
    }
    QCOMPARE(view->axisRects().size(), 1 + defaults.size()); // the latency strip and the default set
    // Tall enough to read, and all in view: no scrolling for the default set.
    for (const QString& lane : defaults)
        QVERIFY2(view->laneRect(lane)->height() >= LaneView::kMinLaneHeight,
            qPrintable(u"%1: %2 px"_s.arg(lane).arg(view->laneRect(lane)->height())));
    auto* scroll = qobject_cast<QWidget*>(view->parentWidget());
    QVERIFY(scroll);
    QVERIFY2(view->height() <= scroll->height(),
        qPrintable(u"the view is %1 px in a %2 px viewport"_s.arg(view->height()).arg(scroll->height())));
    // The legend beside the title, neither covering the other, both inside the view.
    const QRect legend = view->legend->outerRect();
    const QRect title = view->titleTextRect();
    QVERIFY(!legend.isEmpty() && !title.isEmpty());
    QVERIFY2(!legend.intersects(title),
        qPrintable(u"legend x %1..%2, title x %3..%4"_s.arg(legend.left())
                       .arg(legend.right())
                       .arg(title.left())
                       .arg(title.right())));
    // Inside what the scroll area shows: a title that does not fit widens the plot (QCustomPlot's
    // minimum size) and pushes the legend out of sight instead.
    QVERIFY2(view->width() <= scroll->width() && legend.right() < scroll->width(),
        qPrintable(u"legend right %1, view %2 px wide, viewport %3 px"_s.arg(legend.right())
                       .arg(view->width())
                       .arg(scroll->width())));
    QVERIFY(view->title()->text().startsWith(u"4 of 24 lanes"_s));

    // The control: the page's Lanes button shows a lane; "All lanes" every one.
    LanePicker* picker = r.page->lanePicker();
    QCOMPARE(picker->text(), u"Lanes: 4 of 24"_s);
    QAction* sm = action(picker, u"liveLane:sm_pct"_s);
    QVERIFY(sm && sm->isCheckable() && !sm->isChecked());
    sm->trigger();
    QVERIFY(view->isLaneShown(u"sm_pct"_s));
    QVERIFY(view->axisRects().contains(view->laneRect(u"sm_pct"_s)));
    QCOMPARE(view->shownLaneNames().indexOf(u"sm_pct"_s), 2); // in display order, after dram_pct
    QCOMPARE(picker->text(), u"Lanes: 5 of 24"_s);
    action(picker, u"liveLanesAll"_s)->trigger();
    QCOMPARE(view->shownLaneNames(), view->laneNames());
    QCOMPARE(view->axisRects().size(), 25);
    view->replot();
    QVERIFY(!view->legend->outerRect().intersects(view->titleTextRect()));
    action(picker, u"liveLanesDefault"_s)->trigger();
    QCOMPARE(view->shownLaneNames(), defaults);
}

void TestLiveLaneChoice::servingStudyShowsItsLatencyLanes()
{
    Replayed r;
    QVERIFY(r.open(kTinyLlm, QSize(1700, 980)));
    QCOMPARE(r.view->laneNames().size(), 26);
    const QStringList defaults {u"itl"_s, u"ttft"_s, u"occupancy"_s, u"dram_pct"_s, u"sm_clock"_s, u"power"_s};
    QCOMPARE(r.view->shownLaneNames(), defaults);
    // Replayed again (the page's refresh: the hidden strips, out of the layout, are dropped too).
    r.page->refresh();
    r.view->replot();
    QCOMPARE(r.view->laneNames().size(), 26);
    QCOMPARE(r.view->shownLaneNames(), defaults);
    QCOMPARE(r.view->axisRects().size(), 1 + defaults.size());
}

void TestLiveLaneChoice::percentAxisIsZeroToHundred()
{
    // A reading at 150 % (as sm_pct read 533 % on the H200) leaves the axis at its whole scale.
    LiveSeries series;
    series.setPlan({u"baseline"_s}, u"time_ms"_s, u"ms"_s);
    LaneView view;
    view.resize(800, 500);
    view.show();
    view.setSeries(&series);
    for (int i = 0; i <= 100; ++i)
        series.addLaneValue(u"dram_pct"_s, u"%"_s, i * 0.1, i == 50 ? 150.0 : 40.0 + (i % 5));
    series.addLaneValue(u"power"_s, u"W"_s, 0.0, 300);
    series.addLaneValue(u"power"_s, u"W"_s, 10.0, 700);
    view.refresh();
    view.setTimeRange(0, 10);
    const QCPRange pct = view.laneRect(u"dram_pct"_s)->axis(QCPAxis::atLeft)->range();
    QCOMPARE(pct.lower, 0.0);
    QCOMPARE(pct.upper, 100.0);
    // Zoomed onto quiet readings (40-44 %), still the whole scale.
    view.setTimeRange(1, 2);
    QCOMPARE(view.laneRect(u"dram_pct"_s)->axis(QCPAxis::atLeft)->range().upper, 100.0);
    // Other units fit their readings.
    view.setTimeRange(0, 10);
    const QCPRange watts = view.laneRect(u"power"_s)->axis(QCPAxis::atLeft)->range();
    QVERIFY(watts.lower < 300 && watts.lower > 200 && watts.upper > 700 && watts.upper < 800);

    // Every % lane of the recorded GEMM study (sm_pct reads up to 533 %), all of them shown.
    Replayed r;
    QVERIFY(r.open(kGemm, QSize(1700, 980)));
    r.view->showAllLanes();
    const QStringList percent = percentLanes(r.view);
    QVERIFY(percent.contains(u"sm_pct"_s));
    for (const QString& lane : percent) {
        const QCPRange y = r.view->laneRect(lane)->axis(QCPAxis::atLeft)->range();
        QVERIFY2(y.lower == 0.0 && y.upper == 100.0, qPrintable(u"%1: %2..%3"_s.arg(lane).arg(y.lower).arg(y.upper)));
    }
}

void TestLiveLaneChoice::choiceIsRemembered()
{
    {
        Replayed r;
        QVERIFY(r.open(kGemm, QSize(800, 560)));
        action(r.page->lanePicker(), u"liveLane:tensor_pct"_s)->trigger();
        action(r.page->lanePicker(), u"liveLane:power"_s)->trigger(); // a default lane hidden
        QCOMPARE(
            r.view->shownLaneNames(), QStringList({u"occupancy"_s, u"dram_pct"_s, u"tensor_pct"_s, u"sm_clock"_s}));
    }
    // A later window: the same choice, from the settings.
    QCOMPARE(QSettings().value(QLatin1StringView(LaneView::kShownKey)).toStringList(), QStringList {u"tensor_pct"_s});
    Replayed again;
    QVERIFY(again.open(kGemm, QSize(800, 560)));
    QCOMPARE(
        again.view->shownLaneNames(), QStringList({u"occupancy"_s, u"dram_pct"_s, u"tensor_pct"_s, u"sm_clock"_s}));
    // "Default set only" forgets it.
    action(again.page->lanePicker(), u"liveLanesDefault"_s)->trigger();
    Replayed third;
    QVERIFY(third.open(kGemm, QSize(800, 560)));
    QCOMPARE(third.view->shownLaneNames(), QStringList({u"occupancy"_s, u"dram_pct"_s, u"sm_clock"_s, u"power"_s}));
}

QTEST_MAIN(TestLiveLaneChoice)
#include "tst_live_lane_choice.moc"
