// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/sigma_chart.h"

#include "plots/plot_style.h"
#include "util/chart_labels.h"
#include "verdict/delta_lines.h"
#include "verdict/profile.h"

#include <QJsonArray>
#include <QJsonDocument>
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
    connect(this, &QCustomPlot::afterLayout, this, &SigmaChart::placeLabels);
}

namespace {

double labelWidth(const QCPItemText* label, const QString& text)
{
    const QMargins pad = label->padding();
    return QFontMetrics(label->font()).boundingRect(QRect(), Qt::AlignLeft, text).width() + pad.left() + pad.right();
}

} // namespace

QRectF SigmaChart::labelRect(const QCPItemText* label)
{
    if (!label)
        return {};
    return QRectF(label->topLeft->pixelPosition(), label->bottomRight->pixelPosition()).normalized();
}

QList<QRectF> SigmaChart::thresholdLabelRects() const
{
    QList<QRectF> rects;
    for (const QCPItemText* label : m_thresholdLabels)
        rects << labelRect(label);
    return rects;
}

QStringList SigmaChart::thresholdTexts() const
{
    QStringList texts;
    for (const QCPItemText* label : m_thresholdLabels)
        texts << label->text();
    return texts;
}

QList<double> SigmaChart::thresholdPixels() const
{
    QList<double> xs;
    for (double t : m_thresholds)
        xs << xAxis->coordToPixel(t);
    return xs;
}

void SigmaChart::placeLabels()
{
    const QRect rect = axisRect()->rect();
    if (m_thresholdLabels.size() == 2 && rect.width() > 0) {
        std::vector<LineLabel> lines;
        for (int i = 0; i < 2; ++i) // kill ends at its line, license starts at its line
            lines.push_back({m_thresholds[i], labelWidth(m_thresholdLabels[i], m_thresholdLabels[i]->text()), i == 0});
        const auto [lo, hi] = widen_for_line_labels(m_baseRange.lower, m_baseRange.upper, rect.width(), lines, 1);
        const QCPRange now = xAxis->range();
        const double halfPixel = 0.5 * (hi - lo) / rect.width();
        if (std::fabs(now.lower - lo) > halfPixel || std::fabs(now.upper - hi) > halfPixel) {
            // The ticks of this pass were laid out for the old range: draw once more.
            xAxis->setRange(lo, hi);
            replot(rpQueuedReplot);
        }
    }
    LabelRoom room {double(rect.left()), double(rect.right()), {}};
    for (double t : m_thresholds)
        room.lines.push_back(xAxis->coordToPixel(t));
    if (m_noiseLabel) {
        const double w = labelWidth(m_noiseLabel, m_noiseLabel->text());
        const double left = place_centred_label(room, xAxis->coordToPixel(0), w);
        m_noiseLabel->position->setCoords(xAxis->pixelToCoord(left), 0.05);
    }
    if (m_deltaLabel) {
        const DeltaLabelPlace place = place_delta_label(room, xAxis->coordToPixel(m_delta),
            labelWidth(m_deltaLabel, m_labelOneLine), labelWidth(m_deltaLabel, m_labelTwoLines));
        m_deltaLabel->setText(place.two_lines ? m_labelTwoLines : m_labelOneLine);
        m_deltaLabel->position->setCoords(xAxis->pixelToCoord(place.left), 0.42);
    }
}

QCPItemText* SigmaChart::addVerticalLine(double x, const QColor& color, const QString& label, Qt::Alignment side)
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
    return text;
}

void SigmaChart::setVerdict(const QJsonObject& verdict)
{
    clearPlottables();
    clearItems();
    m_deltaLabel = nullptr;
    m_noiseLabel = nullptr;
    m_thresholdLabels.clear();
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
        // Placed after each layout (placeLabels), on a box so it reads over the band and the grid.
        m_noiseLabel = new QCPItemText(this);
        m_noiseLabel->position->setCoords(0, 0.05);
        m_noiseLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        m_noiseLabel->setPadding(QMargins(4, 0, 4, 0));
        m_noiseLabel->setText(tr("noise ±%1 σ = ±%2 %").arg(k).arg(k * sigma, 0, 'f', 2));
        m_noiseLabel->setFont(QFont(font().family(), 8));
        m_noiseLabel->setColor(QColor(80, 80, 80));
        m_noiseLabel->setBrush(QColor(255, 255, 255, 210));
        extend(-k * sigma);
        extend(k * sigma);
    }
    // The lines are the engine's (verdict/delta_lines.h): a profile of the speedup family, custom
    // ones included, is judged by its speedup ratios and shows them, never kill_pct / license_pct.
    if (!profile.isEmpty()) {
        std::vector<DeltaLine> lines;
        try {
            lines
                = delta_lines(profile_from_json(nlohmann::json::parse(QJsonDocument(profile).toJson().toStdString())));
        } catch (const std::exception&) { // a profile this build cannot read: no lines rather than wrong ones
        }
        for (const auto& line : lines) {
            const bool kill = line.word == VerdictWord::Kill;
            m_thresholdLabels << addVerticalLine(line.delta_pct, verdictColor(kill ? u"KILL"_s : u"LICENSE"_s),
                QString::fromStdString(line.label), kill ? Qt::AlignRight : Qt::AlignLeft);
            extend(line.delta_pct);
            m_thresholds << line.delta_pct;
        }
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
        // Under the point, clear of the threshold labels; placed after each layout (placeLabels).
        m_deltaLabel->position->setCoords(m_delta, 0.42);
        m_deltaLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        m_deltaLabel->setTextAlignment(Qt::AlignHCenter);
        m_deltaLabel->setText(m_labelOneLine);
        m_deltaLabel->setFont(QFont(font().family(), 9, QFont::Bold));
        m_deltaLabel->setBrush(QColor(255, 255, 255, 210)); // readable where it crosses a threshold line
    }
    const double pad = (hi - lo) * 0.08;
    m_baseRange = QCPRange(lo - pad, hi + pad);
    xAxis->setRange(m_baseRange);
    replotWhenVisible();
}

} // namespace kwb::gui
