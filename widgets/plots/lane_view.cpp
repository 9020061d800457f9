// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/lane_view.h"

#include "models/live_series.h"
#include "plots/plot_style.h"
#include "sampling/lane_selection.h"

#include <QApplication>
#include <QSettings>
#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {

// This thread's CPU time in milliseconds.
double threadCpuMs()
{
    timespec ts {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

QColor bandColor(int slot, int arms)
{
    QColor c = slot < arms ? armColor(slot) : QColor(150, 150, 150);
    c.setAlpha(slot < arms ? 38 : 28);
    return c;
}

// The latency points: antialiased discs, rendered once into a pixmap that each point copies
// (1,000 points a window at 100 repetitions/s: a disc rasterised per point cost a fifth of a
// frame). At a device pixel ratio other than 1 QCustomPlot misplaces pixmaps, so there the
// discs are drawn one by one as before.
QCPScatterStyle latencyScatter(const QColor& c, double size)
{
    const QCPScatterStyle disc(QCPScatterStyle::ssDisc, c, size);
    if (qApp->devicePixelRatio() != 1.0)
        return disc;
    constexpr int kSide = 10; // even: the disc's centre lands on a pixel corner, as it is drawn
    QPixmap pixmap(kSide, kSide);
    pixmap.fill(Qt::transparent);
    QCPPainter painter(&pixmap);
    painter.setAntialiasing(true);
    disc.applyTo(&painter, QPen(c));
    disc.drawShape(&painter, kSide / 2.0, kSide / 2.0);
    painter.end();
    return QCPScatterStyle(pixmap);
}

} // namespace

LaneView::LaneView(QWidget* parent)
    : LazyPlot(parent)
{
    setObjectName(u"laneView"_s);
    setNoAntialiasingOnDrag(true);
    // The strips' lines as one polyline each: drawn segment by segment (phFastPolylines), the
    // 16 decimated strips cost about 48,000 separate line calls a frame.
    setPlottingHint(QCP::phFastPolylines, false);
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    setMouseTracking(true); // the hover readout follows the pointer without a button held
    m_margins = new QCPMarginGroup(this);

    m_title = new QCPTextElement(this, tr("No readings yet"), QFont(font().family(), 10));
    m_title->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
    m_titleText = m_title->text();
    // Row 0 is a header: the title, and the legend beside it (inside the latency strip the legend
    // hid the first seconds' samples). The title is elided to the room the legend leaves it.
    auto* header = m_header = new QCPLayoutGrid;
    plotLayout()->insertRow(0);
    plotLayout()->addElement(0, 0, header);
    header->addElement(0, 0, m_title);
    m_latencyRect = axisRect(); // the default rect becomes the latency strip
    decorate(m_latencyRect);
    m_latencyRect->setMinimumSize(0, kMinLatencyHeight);
    // Its metric named above it like every strip's: turned up the axis, a long name ran into the title.
    m_latencyLabel = new QCPItemText(this);
    m_latencyLabel->setClipToAxisRect(false);
    m_latencyLabel->position->setAxisRect(m_latencyRect);
    m_latencyLabel->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_latencyLabel->position->setCoords(0.0, 0.0);
    m_latencyLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    m_latencyLabel->setPadding(QMargins(2, 0, 2, 1));
    m_latencyLabel->setFont(QFont(font().family(), 8, QFont::Bold));
    m_latencyRect->setMargins(QMargins(0, QFontMetrics(m_latencyLabel->font()).height() + 2, 0, 0));
    plotLayout()->setRowStretchFactor(0, 0.001);
    plotLayout()->setRowStretchFactor(1, 1.4);
    plotLayout()->setRowSpacing(0);
    legend->setVisible(true);
    legend->setBorderPen(Qt::NoPen);
    legend->setBrush(QColor(255, 255, 255, 200));
    legend->setFont(QFont(font().family(), 8));
    legend->setFillOrder(QCPLegend::foColumnsFirst);
    legend->setWrap(6);
    m_latencyRect->insetLayout()->take(legend);
    header->addElement(0, 1, legend);
    header->setColumnStretchFactors({1, 0.001});
    m_bands = new ArmBands(this);
    updateBandRects();
    {
        const QSettings settings;
        m_chosenShown = settings.value(QLatin1StringView(kShownKey)).toStringList();
        m_chosenHidden = settings.value(QLatin1StringView(kHiddenKey)).toStringList();
    }

    connect(this, &QCustomPlot::mouseMove, this, &LaneView::onMouseMove);
    connect(this, &QCustomPlot::beforeReplot, this, [this] {
        m_replotClock.start();
        m_replotCpuStartMs = threadCpuMs();
    });
    connect(this, &QCustomPlot::afterReplot, this, &LaneView::onReplotted);
    // A strip's first layout or a resize changes its pixel columns: refit the buckets before drawing.
    connect(this, &QCustomPlot::afterLayout, this, [this] {
        // A strip shown anew has its height only now: rescale, draw once more.
        if (std::any_of(m_lanes.cbegin(), m_lanes.cend(),
                [](const Lane& l) { return l.shown && l.rect->height() != l.scaledHeight; })) {
            rescaleValues();
            replot(rpQueuedReplot);
        }
        // Strips below their minimum height would be squeezed: the view asks the scroll area for
        // the room its layout needs (the margins are known only after a layout).
        if (const int need = plotLayout()->minimumOuterSizeHint().height(); need != minimumHeight())
            setMinimumHeight(need);
        for (const auto& l : m_lanes)
            if (l.shown && l.rect->width() != l.fittedWidth) {
                fitLanes();
                return;
            }
    });
    m_timer.setInterval(kRefreshIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &LaneView::drain);
    m_timer.start();
    updateBottomAxes();
}

void LaneView::decorate(QCPAxisRect* rect)
{
    rect->setMarginGroup(QCP::msLeft | QCP::msRight, m_margins);
    rect->setRangeDrag(Qt::Horizontal);
    rect->setRangeZoom(Qt::Horizontal);
    rect->setAutoMargins(QCP::msLeft | QCP::msRight | QCP::msBottom);
    rect->setMargins(QMargins(0, 2, 0, 0));
    auto* x = rect->axis(QCPAxis::atBottom);
    auto* y = rect->axis(QCPAxis::atLeft);
    y->ticker()->setTickCount(2);
    y->setTickLabelFont(QFont(font().family(), 7));
    y->setPadding(2);
    x->setTickLabelFont(QFont(font().family(), 8));
    connect(x, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, &LaneView::syncTimeRange);
    // A hidden 0..1 axis: the hover cursor spans the strip whatever its values.
    auto* unitAxis = rect->axis(QCPAxis::atRight);
    unitAxis->setRange(0, 1);
    unitAxis->setVisible(false);
}

void LaneView::updateBandRects()
{
    QList<QCPAxisRect*> rects {m_latencyRect};
    for (const auto& l : m_lanes)
        if (l.shown)
            rects.append(l.rect);
    m_bands->setRects(rects);
}

void LaneView::setSeries(const LiveSeries* series)
{
    m_series = series;
    m_generation = ~quint64 {0};
    refresh();
}

void LaneView::refresh()
{
    drain();
}

int LaneView::armSlots() const
{
    return static_cast<int>(m_armNames.size()) + 1; // the last slot holds warm-ups
}

QCPGraph* LaneView::latencyGraph(int slot)
{
    while (m_latency.size() <= slot) {
        const int s = static_cast<int>(m_latency.size());
        const bool warm = s >= static_cast<int>(m_armNames.size());
        auto* g = addGraph(m_latencyRect->axis(QCPAxis::atBottom), m_latencyRect->axis(QCPAxis::atLeft));
        g->setLineStyle(QCPGraph::lsNone);
        const QColor c = warm ? QColor(150, 150, 150) : armColor(s);
        g->setScatterStyle(latencyScatter(c, warm ? 4 : 5));
        g->setName(warm ? tr("warm-up") : m_armNames[s]);
        m_latency.append(g);
        m_latencyDrawn.append(0);
    }
    return m_latency[slot];
}

void LaneView::rebuild()
{
    m_generation = m_series ? m_series->generation() : ~quint64 {0};
    for (auto& l : m_lanes) {
        removeGraph(l.graph);
        removeItem(l.label);
        removeItem(l.value);
        removeItem(l.cursor);
        if (l.rect->layout())
            plotLayout()->remove(l.rect);
        else
            delete l.rect; // a hidden lane's strip is out of the layout
    }
    plotLayout()->simplify();
    m_lanes.clear();
    for (auto* g : m_latency)
        removeGraph(g);
    m_latency.clear();
    m_latencyDrawn.clear();
    m_spanBegin.clear();
    m_spanEnd.clear();
    m_spanArm.clear();
    m_spanRep.clear();
    m_armNames.clear();
    if (m_series)
        for (const auto& a : m_series->arms())
            m_armNames << a.name;
    QList<QColor> colors;
    for (int s = 0; s < armSlots(); ++s)
        colors.append(bandColor(s, static_cast<int>(m_armNames.size())));
    m_bands->setColors(colors);
    m_bands->clear();
    updateBandRects();
    for (int s = 0; s < armSlots(); ++s)
        latencyGraph(s);
    m_latencyLabel->setText(m_series && !m_series->metric().isEmpty()
            ? tr("%1 of each repetition").arg(axisLabel(m_series->metric(), m_series->unit()))
            : QString());
    m_defaults.clear();
    m_drawnRevision = ~quint64 {0};
    m_hover = {};
    m_hoverT.reset();
    updateBottomAxes();
}

LaneView::Lane& LaneView::laneFor(const QString& name, const QString& unit)
{
    for (auto& l : m_lanes)
        if (l.name == name)
            return l;
    Lane lane;
    lane.name = name;
    lane.unit = unit;
    lane.rank = kwb::lane_display_rank(name.toStdString(), unit.toStdString());
    lane.rect = new QCPAxisRect(this);
    lane.rect->setMinimumSize(0, kMinLaneHeight);
    decorate(lane.rect);
    // The name above the plotting area, in the strip's top margin: it hides no reading.
    lane.rect->setMargins(QMargins(0, QFontMetrics(QFont(font().family(), 8, QFont::Bold)).height() + 2, 0, 0));
    m_settingRange = true;
    lane.rect->axis(QCPAxis::atBottom)->setRange(timeRange());
    m_settingRange = false;
    lane.graph = addGraph(lane.rect->axis(QCPAxis::atBottom), lane.rect->axis(QCPAxis::atLeft));
    lane.graph->setPen(QPen(QColor(40, 40, 40), 1.0));
    lane.graph->removeFromLegend();
    lane.graph->setAdaptiveSampling(true);
    lane.label = new QCPItemText(this);
    lane.label->setClipToAxisRect(false);
    lane.label->position->setAxisRect(lane.rect);
    lane.label->position->setType(QCPItemPosition::ptAxisRectRatio);
    lane.label->position->setCoords(0.0, 0.0);
    lane.label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    lane.label->setPadding(QMargins(2, 0, 2, 1));
    lane.label->setFont(QFont(font().family(), 8, QFont::Bold));
    lane.label->setText(unit.isEmpty() ? name : u"%1 (%2)"_s.arg(name, unit));
    lane.value = new QCPItemText(this);
    lane.value->setClipToAxisRect(false);
    lane.value->position->setAxisRect(lane.rect);
    lane.value->position->setType(QCPItemPosition::ptAxisRectRatio);
    lane.value->position->setCoords(1.0, 0.0);
    lane.value->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
    lane.value->setPadding(QMargins(2, 0, 2, 1));
    lane.value->setFont(QFont(font().family(), 8));
    lane.value->setText(QString());
    lane.value->setVisible(false);
    lane.cursor = new QCPItemStraightLine(this);
    lane.cursor->setClipAxisRect(lane.rect);
    for (auto* p : {lane.cursor->point1, lane.cursor->point2})
        p->setAxes(lane.rect->axis(QCPAxis::atBottom), lane.rect->axis(QCPAxis::atRight));
    lane.cursor->setPen(QPen(QColor(200, 30, 30), 1, Qt::DashLine));
    lane.cursor->setVisible(false);
    const auto at = std::find_if(m_lanes.begin(), m_lanes.end(), [&](const Lane& l) { return l.rank > lane.rank; });
    const qsizetype index = std::distance(m_lanes.begin(), at);
    m_lanes.insert(at, lane);
    applyLaneChoice(true); // the new strip joins the layout or leaves it (it was made in neither state)
    emit lanesChanged();
    return m_lanes[index];
}

void LaneView::updateBottomAxes()
{
    // Only the lowest strip labels the time axis; the others keep its grid.
    QCPAxisRect* last = m_latencyRect;
    for (const auto& l : m_lanes)
        if (l.shown)
            last = l.rect;
    for (QCPAxisRect* r : axisRects()) {
        auto* x = r->axis(QCPAxis::atBottom);
        const bool bottom = r == last;
        x->setTickLabels(bottom);
        x->setLabel(bottom ? tr("time since start (s)") : QString());
        x->setTicks(bottom);
        // The strips above keep a 2-pixel gap, not the room of the axis they do not label.
        r->setAutoMargins(bottom ? QCP::msLeft | QCP::msRight | QCP::msBottom : QCP::msLeft | QCP::msRight);
        const QMargins m = r->margins();
        r->setMargins(QMargins(m.left(), m.top(), m.right(), bottom ? m.bottom() : 2));
    }
}

void LaneView::drain()
{
    if (!m_series)
        return;
    if (m_series->generation() != m_generation)
        rebuild();
    if (m_paused || m_series->revision() == m_drawnRevision)
        return;
    m_drawnRevision = m_series->revision();
    QElapsedTimer took;
    took.start();
    const double cpuStart = threadCpuMs();

    // Repetitions: latency points and the bands behind every strip.
    const auto& arms = m_series->arms();
    for (qsizetype a = 0; a < arms.size(); ++a) {
        if (a >= m_armNames.size())
            continue; // an arm outside the plan: drawn as nothing rather than in a wrong colour
        QCPGraph* g = latencyGraph(static_cast<int>(a));
        const ArmTrace& trace = arms[a];
        QVector<QCPGraphData> add;
        for (qsizetype i = m_latencyDrawn[a]; i < trace.t.size(); ++i)
            add.append(QCPGraphData(trace.t[i], trace.value[i]));
        g->data()->add(add, true);
        m_latencyDrawn[a] = trace.t.size();
    }
    {
        const int warmSlot = static_cast<int>(m_armNames.size());
        QCPGraph* g = latencyGraph(warmSlot);
        const ArmTrace& trace = m_series->warmups();
        QVector<QCPGraphData> add;
        for (qsizetype i = m_latencyDrawn[warmSlot]; i < trace.t.size(); ++i)
            add.append(QCPGraphData(trace.t[i], trace.value[i]));
        g->data()->add(add, true);
        m_latencyDrawn[warmSlot] = trace.t.size();
    }
    const auto& spans = m_series->spans();
    for (qsizetype i = m_spanBegin.size(); i < spans.size(); ++i) {
        const RepSpan& sp = spans[i];
        const int slot = sp.arm >= 0 && sp.arm < m_armNames.size() ? sp.arm : static_cast<int>(m_armNames.size());
        m_bands->append(sp.begin, sp.end, slot);
        m_spanBegin.append(sp.begin);
        m_spanEnd.append(sp.end);
        m_spanArm.append(sp.arm);
        m_spanRep.append(sp.rep);
    }

    // Lanes: append what arrived since the last frame.
    for (const LaneTrace& trace : m_series->lanes()) {
        Lane& lane = laneFor(trace.name, trace.unit);
        const qsizetype n = std::min(trace.t.size(), trace.value.size());
        if (lane.drawn >= n)
            continue;
        for (qsizetype i = lane.drawn; i < n && lane.sorted; ++i) {
            if (i > 0 && trace.t[i] < trace.t[i - 1])
                lane.sorted = false; // drawn raw from now on (see fitLane)
            lane.newest = std::max(lane.newest, trace.t[i]);
        }
        if (lane.drawn < trace.arrivedNs.size() && trace.arrivedNs[lane.drawn] > 0) {
            const qint64 oldest = trace.arrivedNs[lane.drawn];
            const qint64 newest = trace.arrivedNs[std::min(n, trace.arrivedNs.size()) - 1];
            m_pendingOldestNs = m_pendingOldestNs ? std::min(m_pendingOldestNs, oldest) : oldest;
            m_pendingNewestNs = std::max(m_pendingNewestNs, newest);
        }
        lane.drawn = n;
    }

    if (m_following)
        applyFollow();
    else
        fitLanes();
    rescaleValues();
    updateTitle();
    if (m_hoverT)
        hoverAt(m_hoverT);
    m_pendingDrainMs = static_cast<double>(took.nsecsElapsed()) / 1e6;
    m_pendingDrainCpuMs = threadCpuMs() - cpuStart;
    m_log.drainMs.append(m_pendingDrainMs);
    replotWhenVisible();
}

double LaneView::newestTime() const
{
    double t = 0;
    for (const auto& l : m_lanes)
        if (l.drawn > 0)
            t = std::max(t, l.newest);
    for (auto* g : m_latency)
        if (!g->data()->isEmpty())
            t = std::max(t, (g->data()->constEnd() - 1)->key);
    if (!m_spanEnd.isEmpty())
        t = std::max(t, *std::max_element(m_spanEnd.end() - std::min<qsizetype>(m_spanEnd.size(), 8), m_spanEnd.end()));
    return t;
}

void LaneView::onReplotted()
{
    const qint64 now = LiveSeries::nowNs();
    // Bounded like everything else a long run accumulates: the last hour at the display rate.
    constexpr qsizetype kMaxLog = 150000;
    for (auto* list :
        {&m_log.replotMs, &m_log.oldestMs, &m_log.newestMs, &m_log.drainMs, &m_log.frameMs, &m_log.frameCpuMs})
        if (list->size() > kMaxLog)
            list->remove(0, list->size() / 2);
    const double replotMs = static_cast<double>(m_replotClock.nsecsElapsed()) / 1e6;
    m_log.replotMs.append(replotMs);
    m_log.frameMs.append(replotMs + m_pendingDrainMs);
    m_log.frameCpuMs.append(threadCpuMs() - m_replotCpuStartMs + m_pendingDrainCpuMs);
    m_pendingDrainMs = 0;
    m_pendingDrainCpuMs = 0;
    if (m_pendingOldestNs > 0) {
        m_log.oldestMs.append(static_cast<double>(now - m_pendingOldestNs) / 1e6);
        m_log.newestMs.append(static_cast<double>(now - m_pendingNewestNs) / 1e6);
        m_pendingOldestNs = 0;
        m_pendingNewestNs = 0;
    }
}

QStringList LaneView::laneNames() const
{
    QStringList names;
    for (const auto& l : m_lanes)
        names << l.name;
    return names;
}

int LaneView::lanePointCount(const QString& lane) const
{
    for (const auto& l : m_lanes)
        if (l.name == lane)
            return static_cast<int>(l.drawn);
    return 0;
}

int LaneView::laneGraphPointCount(const QString& lane) const
{
    for (const auto& l : m_lanes)
        if (l.name == lane)
            return l.graph->dataCount();
    return 0;
}

int LaneView::latencyPointCount() const
{
    int n = 0;
    for (auto* g : m_latency)
        n += g->dataCount();
    return n;
}

QCPAxisRect* LaneView::laneRect(const QString& lane) const
{
    for (const auto& l : m_lanes)
        if (l.name == lane)
            return l.rect;
    return nullptr;
}

} // namespace kwb::gui
