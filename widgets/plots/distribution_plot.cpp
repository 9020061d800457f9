// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/distribution_plot.h"

#include "models/arm_stats_model.h"
#include "plots/plot_style.h"

#include <algorithm>
#include <cmath>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {
constexpr double kViolinHalfWidth = 0.38;
constexpr double kBoxWidth = 0.14;
constexpr double kJitterHalfWidth = 0.07;
} // namespace

DistributionPlot::DistributionPlot(QWidget* parent)
    : LazyPlot(parent)
{
    setObjectName(u"distributionPlot"_s);
    xAxis->grid()->setVisible(false);
    connect(this, &QCustomPlot::afterLayout, this, &DistributionPlot::fitMeanLabels);
}

void DistributionPlot::fitMeanLabels()
{
    const double width = axisRect()->width();
    const double lower = xAxis->range().lower;
    double upper = m_baseUpper;
    for (const QCPItemText* label : std::as_const(m_meanLabels)) {
        const QMargins pad = label->padding();
        const double w = QFontMetrics(label->font()).boundingRect(QRect(), Qt::AlignLeft, label->text()).width()
            + pad.left() + pad.right() + 4;
        if (width <= 0 || w >= 0.8 * width)
            continue; // no width yet, or no range would make room: leave it
        // pixel(anchor) + w <= right edge  <=>  upper >= lower + (anchor - lower) / (1 - w / width)
        upper = std::max(upper, lower + (label->position->key() - lower) / (1 - w / width));
    }
    if (std::abs(upper - xAxis->range().upper) > 1e-3) {
        xAxis->setRange(lower, upper);
        replot(rpQueuedReplot); // the ticks of this frame were laid out for the old range
    }
}

void DistributionPlot::setDistributions(const QList<ArmDistribution>& arms, const QString& metric, const QString& unit)
{
    // Everything of the previous study goes: plottables and the mean labels.
    clearPlottables();
    clearItems();
    m_points.clear();
    m_throttled.clear();
    m_meanLabels.clear();
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    double lo = 0;
    double hi = 0;
    bool any = false;
    for (int i = 0; i < arms.size(); ++i) {
        const ArmDistribution& a = arms[i];
        const double x = i + 1;
        const QColor c = armColor(i);
        ticker->addTick(x, QStringLiteral("%1\nn = %2").arg(a.name).arg(a.n));
        if (a.n == 0)
            continue;

        // Violin: right half up, left half down, closed; scaled so the widest point fits the slot.
        const double peak = *std::max_element(a.kde_density.cbegin(), a.kde_density.cend());
        QList<double> vx;
        QList<double> vy;
        for (qsizetype k = 0; k < a.kde_y.size(); ++k) {
            vx << x + kViolinHalfWidth * a.kde_density[k] / peak;
            vy << a.kde_y[k];
        }
        for (qsizetype k = a.kde_y.size() - 1; k >= 0; --k) {
            vx << x - kViolinHalfWidth * a.kde_density[k] / peak;
            vy << a.kde_y[k];
        }
        auto* violin = new QCPCurve(xAxis, yAxis);
        violin->setData(vx, vy);
        QColor fill = c;
        fill.setAlpha(50);
        violin->setPen(QPen(c.darker(110), 1));
        violin->setBrush(fill);

        auto* box = new QCPStatisticalBox(xAxis, yAxis);
        box->setWidth(kBoxWidth);
        box->setPen(QPen(Qt::black, 1.2));
        box->setBrush(QColor(255, 255, 255, 200));
        box->setMedianPen(QPen(Qt::black, 2.5));
        box->addData(x, a.whisker_low, a.q1, a.median, a.q3, a.whisker_high, a.outliers);

        auto* points = addGraph();
        const auto jitter = jitterOffsets(static_cast<int>(a.values.size()));
        QList<double> px;
        for (const double j : jitter)
            px << x + kJitterHalfWidth * j;
        // Throttled repetitions (a power or thermal cap, a clock under 75% of max) are judged like
        // every other, and shown apart so the engineer sees where they fell.
        QList<double> tx, ty, fx, fy;
        for (int i = 0; i < a.values.size(); ++i) {
            const bool flagged = i < a.throttled.size() && a.throttled[i];
            (flagged ? tx : fx) << px[i];
            (flagged ? ty : fy) << a.values[i];
        }
        points->setData(fx, fy);
        points->setLineStyle(QCPGraph::lsNone);
        points->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, c, 6));
        m_points.insert(a.name, points);
        if (!tx.isEmpty()) {
            auto* throttled = addGraph();
            throttled->setName(QStringLiteral("throttled"));
            throttled->setData(tx, ty);
            m_throttled.insert(a.name, throttled);
            throttled->setLineStyle(QCPGraph::lsNone);
            throttled->setScatterStyle(
                QCPScatterStyle(QCPScatterStyle::ssCrossCircle, QPen(QColor(200, 60, 0), 1.4), Qt::NoBrush, 8));
            auto* note = new QCPItemText(this);
            note->position->setCoords(x, a.max);
            note->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
            note->setText(QStringLiteral("%1 throttled").arg(tx.size()));
            note->setColor(QColor(200, 60, 0));
            note->setFont(QFont(font().family(), 8));
        }

        auto* mean = addGraph();
        mean->setData({x + kViolinHalfWidth * 0.55}, {a.mean});
        mean->setLineStyle(QCPGraph::lsNone);
        mean->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(Qt::black, 1.2), c, 10));
        auto* label = new QCPItemText(this);
        label->position->setCoords(x + kViolinHalfWidth * 1.02, a.mean); // beyond the violin's widest point
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        label->setText(QStringLiteral("mean %1 %2\n± %3 sd")
                           .arg(ArmStatsModel::formatNumber(a.mean), unit, ArmStatsModel::formatNumber(a.stddev)));
        label->setFont(QFont(font().family(), 8));
        m_meanLabels << label;

        const double armLo = std::min(a.min, *std::min_element(vy.cbegin(), vy.cend()));
        const double armHi = std::max(a.max, *std::max_element(vy.cbegin(), vy.cend()));
        lo = any ? std::min(lo, armLo) : armLo;
        hi = any ? std::max(hi, armHi) : armHi;
        any = true;
    }
    xAxis->setTicker(ticker);
    m_baseUpper = arms.size() + 0.85;
    xAxis->setRange(0.4, m_baseUpper);
    yAxis->setLabel(axisLabel(metric, unit));
    if (any)
        yAxis->setRange(lo - (hi - lo) * 0.05, hi + (hi - lo) * 0.05);
    replotWhenVisible();
}

int DistributionPlot::pointCount(const QString& arm) const
{
    const auto it = m_points.constFind(arm);
    return (it == m_points.cend() ? 0 : (*it)->dataCount()) + throttledCount(arm);
}

int DistributionPlot::throttledCount(const QString& arm) const
{
    const auto it = m_throttled.constFind(arm);
    return it == m_throttled.cend() ? 0 : (*it)->dataCount();
}

} // namespace kwb::gui
