// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/sigma_chart.h"

#include "plots/plot_style.h"

#include <QJsonArray>
#include <algorithm>
#include <cmath>

namespace kwb::gui {

using namespace Qt::StringLiterals;

SigmaChart::SigmaChart(QWidget* parent)
    : LazyPlot(parent)
{
    setObjectName(u"sigmaChart"_s);
    yAxis->setVisible(false);
    yAxis->setRange(0, 1);
    yAxis->grid()->setVisible(false);
    xAxis->setLabel(tr("delta % of the target metric (positive = better), 95% CI"));
    setMinimumHeight(150);
    setMaximumHeight(300);
    connect(this, &QCustomPlot::afterLayout, this, &SigmaChart::placeDeltaLabel);
}

void SigmaChart::placeDeltaLabel()
{
    if (!m_deltaLabel)
        return;
    const QRect rect = axisRect()->rect();
    const double px = xAxis->coordToPixel(m_delta);
    const QFontMetrics fm(m_deltaLabel->font());
    const QMargins pad = m_deltaLabel->padding();
    struct Place {
        Qt::Alignment side;
        const QString* text;
    };
    const bool rightOfMid = px > rect.center().x();
    const Qt::Alignment near = rightOfMid ? Qt::AlignRight : Qt::AlignLeft;
    const Qt::Alignment far = rightOfMid ? Qt::AlignLeft : Qt::AlignRight;
    const Place places[] = {{near, &m_labelOneLine}, {far, &m_labelOneLine}, {Qt::AlignHCenter, &m_labelOneLine},
        {near, &m_labelTwoLines}, {far, &m_labelTwoLines}, {Qt::AlignHCenter, &m_labelTwoLines}};
    const Place* chosen = &places[3];
    for (const Place& p : places) {
        const double w = fm.boundingRect(QRect(), Qt::AlignLeft, *p.text).width() + pad.left() + pad.right();
        const double left = p.side == Qt::AlignRight ? px - w : p.side == Qt::AlignLeft ? px : px - w / 2;
        const double right = left + w;
        if (left < rect.left() || right > rect.right())
            continue;
        const bool crosses = std::any_of(m_thresholds.cbegin(), m_thresholds.cend(), [&](double t) {
            const double tx = xAxis->coordToPixel(t);
            return tx >= left - 3 && tx <= right + 3;
        });
        if (!crosses) {
            chosen = &p;
            break;
        }
    }
    m_deltaLabel->setText(*chosen->text);
    m_deltaLabel->setTextAlignment(chosen->side);
    m_deltaLabel->setPositionAlignment(chosen->side | Qt::AlignTop);
}

void SigmaChart::addVerticalLine(double x, const QColor& color, const QString& label, Qt::Alignment side)
{
    auto* line = new QCPItemStraightLine(this);
    line->point1->setCoords(x, 0);
    line->point2->setCoords(x, 1);
    line->setPen(QPen(color, 1.6, Qt::DashLine));
    auto* text = new QCPItemText(this);
    text->position->setCoords(x, 0.97);
    // Beside the line, not centred on it: kill and license are often a few percent apart, and
    // centred labels then print over each other.
    text->setPositionAlignment(side | Qt::AlignTop);
    text->setPadding(QMargins(4, 0, 4, 0));
    text->setText(label);
    text->setColor(color);
    text->setBrush(QColor(255, 255, 255, 210));
    text->setFont(QFont(font().family(), 8));
}

void SigmaChart::setVerdict(const QJsonObject& verdict)
{
    clearPlottables();
    clearItems();
    m_deltaLabel = nullptr;
    m_thresholds.clear();
    m_hasDelta = verdict.value("delta_pct"_L1).isDouble();
    m_delta = verdict.value("delta_pct"_L1).toDouble();
    const QJsonObject profile = verdict.value("profile"_L1).toObject();
    const double sigma = verdict.value("sigma_pct"_L1).toDouble(std::nan(""));
    const double k = profile.value("noise_k"_L1).toDouble(2);
    const QJsonArray ci = verdict.value("ci95_delta_pct"_L1).toArray();
    double lo = -5;
    double hi = 15;
    auto extend = [&](double v) {
        if (std::isfinite(v)) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    };

    if (std::isfinite(sigma)) {
        auto* band = new QCPItemRect(this);
        band->topLeft->setCoords(-k * sigma, 1);
        band->bottomRight->setCoords(k * sigma, 0);
        band->setPen(Qt::NoPen);
        band->setBrush(QColor(120, 120, 120, 55));
        auto* text = new QCPItemText(this);
        text->position->setCoords(0, 0.05);
        text->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        text->setText(tr("noise ±%1 σ = ±%2 %").arg(k).arg(k * sigma, 0, 'f', 2));
        text->setFont(QFont(font().family(), 8));
        text->setColor(QColor(80, 80, 80));
        extend(-k * sigma);
        extend(k * sigma);
    }
    if (profile.contains("kill_pct"_L1) && profile.value("name"_L1).toString() != "speedup"_L1) {
        const double kill = profile.value("kill_pct"_L1).toDouble();
        const double license = profile.value("license_pct"_L1).toDouble();
        addVerticalLine(kill, verdictColor(u"KILL"_s), tr("kill < %1 %").arg(kill), Qt::AlignRight);
        addVerticalLine(license, verdictColor(u"LICENSE"_s), tr("license ≥ %1 %").arg(license), Qt::AlignLeft);
        extend(kill);
        extend(license);
        m_thresholds = {kill, license};
    }
    if (m_hasDelta) {
        auto* point = addGraph();
        point->setData({m_delta}, {0.5});
        point->setLineStyle(QCPGraph::lsNone);
        const QColor c = verdictColor(verdict.value("verdict"_L1).toString());
        point->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 1.2), c, 13));
        extend(m_delta);
        const QString head = tr("Δ %1 %").arg(m_delta, 0, 'f', 2);
        QString tail;
        if (ci.size() == 2 && ci[0].isDouble() && ci[1].isDouble()) {
            const double l = ci[0].toDouble();
            const double h = ci[1].toDouble();
            auto* bars = new QCPErrorBars(xAxis, yAxis);
            bars->setDataPlottable(point);
            bars->setErrorType(QCPErrorBars::etKeyError);
            bars->setData({m_delta - l}, {h - m_delta});
            bars->setPen(QPen(Qt::black, 1.6));
            bars->setWhiskerWidth(14);
            extend(l);
            extend(h);
            tail += tr("95% CI [%1, %2]").arg(l, 0, 'f', 2).arg(h, 0, 'f', 2);
        }
        if (std::isfinite(sigma))
            tail += (tail.isEmpty() ? QString() : u"  "_s) + tr("σ %1 %").arg(sigma, 0, 'f', 2);
        m_labelOneLine = tail.isEmpty() ? head : head + u"  "_s + tail;
        m_labelTwoLines = tail.isEmpty() ? head : head + u'\n' + tail;
        m_deltaLabel = new QCPItemText(this);
        m_deltaLabel->position->setCoords(m_delta, 0.42); // under the point, clear of the threshold labels
        m_deltaLabel->setText(m_labelOneLine);
        m_deltaLabel->setFont(QFont(font().family(), 9, QFont::Bold));
        m_deltaLabel->setBrush(QColor(255, 255, 255, 210)); // readable where it crosses a threshold line
    }
    const double pad = (hi - lo) * 0.08;
    xAxis->setRange(lo - pad, hi + pad);
    // Until the first layout places it (placeDeltaLabel): on the side with more room.
    if (m_deltaLabel)
        m_deltaLabel->setPositionAlignment((m_delta > (lo + hi) / 2 ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
    replotWhenVisible();
}

} // namespace kwb::gui
