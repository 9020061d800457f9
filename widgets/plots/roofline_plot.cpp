// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/roofline_plot.h"

#include "plots/lazy_plot.h"
#include "plots/plot_style.h"
#include "study/study.h"
#include "verdict/roofline_chart.h"

#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

QPen roofPen(RoofKind kind)
{
    switch (kind) {
    case RoofKind::L2:
        return QPen(QColor(84, 110, 122), 1.5, Qt::DashLine);
    case RoofKind::Dram:
    case RoofKind::Compute:
        break;
    }
    return QPen(QColor(38, 50, 56), 2.2);
}

QCPAxisTickerLog* logAxis(QCPAxis* axis, const QString& label)
{
    auto* ticker = new QCPAxisTickerLog;
    axis->setScaleType(QCPAxis::stLogarithmic);
    axis->setTicker(QSharedPointer<QCPAxisTicker>(ticker));
    axis->setNumberFormat(u"gb"_s);
    axis->setNumberPrecision(4);
    axis->setLabel(label);
    return ticker;
}

} // namespace

RooflinePlot::RooflinePlot(QWidget* parent)
    : QWidget(parent)
    , m_plot(new LazyPlot(this))
    , m_caption(new QLabel(this))
{
    setObjectName(u"rooflinePlot"_s);
    m_plot->setObjectName(u"rooflineChart"_s);
    m_plot->setMinimumHeight(220);
    logAxis(m_plot->xAxis, tr("arithmetic intensity (FLOP/byte)"));
    logAxis(m_plot->yAxis, tr("achieved TFLOP/s (median, IQR)"));
    // No legend inside the frame (at the verdict page's height it covers the roofs' labels): the
    // caption names each arm beside its colour.
    m_plot->legend->setVisible(false);
    // Two arms a few percent apart overlap at the full frame: drag and wheel-zoom to read them.
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_caption->setObjectName(u"rooflineCaption"_s);
    m_caption->setWordWrap(true);
    m_caption->setTextFormat(Qt::RichText);
    m_caption->setAlignment(Qt::AlignLeft | Qt::AlignTop); // with the plot hidden it has all the height
    m_caption->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_caption);
    connect(m_plot, &QCustomPlot::afterLayout, this, &RooflinePlot::placeRoofLabels);
    setRoofline(std::nullopt);
}

QPointF RooflinePlot::arrowFrom() const
{
    return m_arrow ? m_arrow->start->coords() : QPointF();
}

QPointF RooflinePlot::arrowTo() const
{
    return m_arrow ? m_arrow->end->coords() : QPointF();
}

QString RooflinePlot::caption() const
{
    return m_captionText;
}

void RooflinePlot::placeRoofLabels()
{
    for (int i = 0; i < m_roofTexts.size(); ++i) {
        const QList<QPointF>& line = m_roofLines[i];
        const QPointF a(m_plot->xAxis->coordToPixel(line.front().x()), m_plot->yAxis->coordToPixel(line.front().y()));
        const QPointF b(m_plot->xAxis->coordToPixel(line.back().x()), m_plot->yAxis->coordToPixel(line.back().y()));
        // A sloped roof's label a third of the way along it (past the middle the roofs converge on
        // the ridge and their labels meet the compute roof's), the flat one's at its right end.
        QCPItemText* text = m_roofTexts[i];
        const bool flat = std::fabs(a.y() - b.y()) < 0.5;
        const QPointF at = flat ? b - QPointF(4, 0) : a + (b - a) * 0.35;
        text->position->setPixelPosition(at);
        text->setRotation(flat ? 0 : qRadiansToDegrees(std::atan2(b.y() - a.y(), b.x() - a.x())));
    }
}

void RooflinePlot::setExperiment(const Study& study, const Experiment* experiment)
{
    setRoofline(experiment ? study_roofline(study, *experiment) : std::nullopt);
}

void RooflinePlot::setExperiment(
    const Study& study, const Experiment* experiment, const std::optional<MetricDiff>& lanes)
{
    setRoofline(experiment ? study_roofline(study, *experiment, lanes) : std::nullopt);
}

void RooflinePlot::setRoofline(const std::optional<Roofline>& roofline)
{
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_roofLabels.clear();
    m_roofLines.clear();
    m_roofTexts.clear();
    m_armNames.clear();
    m_armPoints.clear();
    m_armSpreads.clear();
    m_measuredPoints.clear();
    m_arrow = nullptr;
    m_ridge.reset();
    if (!roofline) {
        m_captionText = tr("No A/B to place: the roofline needs a baseline and a treatment.");
        m_caption->setText(m_captionText);
        m_plot->hide();
        m_plot->xAxis->setRange(0.1, 1000);
        m_plot->yAxis->setRange(0.01, 1000);
        if (m_plot->isVisible())
            m_plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const Roofline& r = *roofline;
    const RooflineFrame frame = roofline_frame(r);
    m_plot->xAxis->setRange(frame.intensity_lo, frame.intensity_hi);
    m_plot->yAxis->setRange(frame.tflops_lo, frame.tflops_hi);

    for (const RoofSegment& s : roofline_segments(r, frame)) {
        QList<QPointF> points;
        auto* line = m_plot->addGraph();
        line->removeFromLegend();
        line->setPen(roofPen(s.kind));
        for (const auto& [x, y] : s.points) {
            line->addData(x, y);
            points << QPointF(x, y);
        }
        auto* label = new QCPItemText(m_plot);
        label->position->setType(QCPItemPosition::ptAbsolute);
        // The L2 roof's above its line, DRAM's below its own (the two run close together), the
        // compute roof's under it (the frame's top is close above it).
        label->setPositionAlignment(s.kind == RoofKind::Compute ? Qt::AlignTop | Qt::AlignRight
                : s.kind == RoofKind::L2                        ? Qt::AlignBottom | Qt::AlignLeft
                                                                : Qt::AlignTop | Qt::AlignLeft);
        label->setText(qs(s.label));
        label->setFont(QFont(font().family(), 8));
        label->setColor(roofPen(s.kind).color());
        label->setBrush(QColor(255, 255, 255, 170)); // readable over a point or an error bar
        m_roofLabels << qs(s.label);
        m_roofLines << points;
        m_roofTexts << label;
    }
    if (r.ridge_intensity) {
        m_ridge = *r.ridge_intensity;
        auto* ridge = new QCPItemLine(m_plot);
        ridge->start->setCoords(*r.ridge_intensity, frame.tflops_lo);
        ridge->end->setCoords(*r.ridge_intensity, r.compute_tflops->value);
        ridge->setPen(QPen(QColor(120, 120, 120), 1, Qt::DotLine));
        auto* text = new QCPItemText(m_plot);
        // At the foot, left of its line: the right of the ridge at the foot is as empty, but the
        // compute-bound points' error bars can reach down there.
        text->position->setCoords(*r.ridge_intensity, frame.tflops_lo);
        text->setPositionAlignment(Qt::AlignBottom | Qt::AlignRight);
        text->setPadding(QMargins(3, 0, 3, 2));
        text->setText(qs(roofline_ridge_label(r)));
        text->setFont(QFont(font().family(), 8));
        text->setColor(QColor(90, 90, 90));
    }

    const RooflinePoint* placed[2] = {nullptr, nullptr};
    for (int i = 0; i < static_cast<int>(r.arms.size()); ++i) {
        const RooflineArm& a = r.arms[static_cast<std::size_t>(i)];
        if (!a.point)
            continue;
        if (i < 2)
            placed[i] = &*a.point;
        const RooflinePoint& p = *a.point;
        const QColor c = armColor(i);
        // On the measured DRAM traffic: an open circle joined to the point by a dashed line, drawn
        // first so the declared point stays on top.
        if (a.measured_dram_intensity) {
            auto* join = m_plot->addGraph();
            join->setPen(QPen(c, 1, Qt::DashLine));
            join->setData(
                {std::min(p.intensity, *a.measured_dram_intensity), std::max(p.intensity, *a.measured_dram_intensity)},
                {p.tflops, p.tflops});
            auto* dram = m_plot->addGraph();
            dram->setLineStyle(QCPGraph::lsNone);
            dram->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(c, 1.5), Qt::white, 8));
            dram->addData(*a.measured_dram_intensity, p.tflops);
            m_measuredPoints << QPointF(*a.measured_dram_intensity, p.tflops);
        }
        auto* g = m_plot->addGraph();
        g->setName(qs(a.name));
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 1), c, 10));
        g->addData(p.intensity, p.tflops);
        auto* ys = new QCPErrorBars(m_plot->xAxis, m_plot->yAxis);
        ys->removeFromLegend();
        ys->setDataPlottable(g);
        ys->setErrorType(QCPErrorBars::etValueError);
        ys->setData({p.tflops - p.tflops_iqr.lo}, {p.tflops_iqr.hi - p.tflops});
        ys->setPen(QPen(c.darker(130), 1.4));
        auto* xs = new QCPErrorBars(m_plot->xAxis, m_plot->yAxis);
        xs->removeFromLegend();
        xs->setDataPlottable(g);
        xs->setErrorType(QCPErrorBars::etKeyError);
        xs->setData({p.intensity - p.intensity_iqr.lo}, {p.intensity_iqr.hi - p.intensity});
        xs->setPen(QPen(c.darker(130), 1.4));
        m_armNames << qs(a.name);
        m_armPoints << QPointF(p.intensity, p.tflops);
        m_armSpreads << qMakePair(
            QPointF(p.intensity_iqr.lo, p.intensity_iqr.hi), QPointF(p.tflops_iqr.lo, p.tflops_iqr.hi));
    }
    if (r.has_arrow()) {
        m_arrow = new QCPItemLine(m_plot);
        m_arrow->start->setCoords(placed[0]->intensity, placed[0]->tflops);
        m_arrow->end->setCoords(placed[1]->intensity, placed[1]->tflops);
        m_arrow->setPen(QPen(QColor(33, 33, 33), 1.6));
        m_arrow->setHead(QCPLineEnding(QCPLineEnding::esSpikeArrow, 9, 11));
    }
    // The caption: each arm's line after a dot of its colour (the arms' lines come first), then
    // the engine's other lines. caption() gives the plain text.
    QStringList lines, html;
    const auto all = roofline_caption(r);
    for (std::size_t i = 0; i < all.size(); ++i) {
        const QString line = qs(all[i]);
        lines << line;
        html << (i < r.arms.size() ? u"<span style=\"color:%1\">●</span> "_s.arg(armColor(static_cast<int>(i)).name())
                                   : QString())
                + line.toHtmlEscaped();
    }
    m_captionText = lines.join(u'\n');
    m_caption->setText(html.join(u"<br>"_s));
    // Nothing to draw (no roof, no point: a CPU study of a workload without counts): the caption
    // alone says why, rather than empty axes.
    m_plot->setVisible(!m_roofLabels.isEmpty() || !m_armNames.isEmpty());
    if (m_plot->isVisible())
        m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace kwb::gui
