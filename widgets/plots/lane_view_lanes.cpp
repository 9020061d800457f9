// SPDX-License-Identifier: GPL-3.0-or-later
// The lane view's choice of strips: the engine's default set, the user's choices over it (kept in
// the settings), and the layout of the strips shown; the title placed clear of the legend.
#include "models/live_series.h"
#include "plots/lane_view.h"
#include "sampling/lane_selection.h"

#include <QSettings>
#include <algorithm>

namespace kwb::gui {

using namespace Qt::StringLiterals;

QStringList LaneView::shownLaneNames() const
{
    QStringList names;
    for (const auto& l : m_lanes)
        if (l.shown)
            names << l.name;
    return names;
}

bool LaneView::isLaneShown(const QString& lane) const
{
    return std::any_of(m_lanes.cbegin(), m_lanes.cend(), [&](const Lane& l) { return l.name == lane && l.shown; });
}

QString LaneView::laneUnit(const QString& lane) const
{
    for (const auto& l : m_lanes)
        if (l.name == lane)
            return l.unit;
    return {};
}

void LaneView::setLaneShown(const QString& lane, bool shown)
{
    m_chosenShown.removeAll(lane);
    m_chosenHidden.removeAll(lane);
    (shown ? m_chosenShown : m_chosenHidden).append(lane);
    saveLaneChoice();
    applyLaneChoice();
    emit lanesChanged();
}

void LaneView::showDefaultLanes()
{
    m_chosenShown.clear();
    m_chosenHidden.clear();
    saveLaneChoice();
    applyLaneChoice();
    emit lanesChanged();
}

void LaneView::showAllLanes()
{
    for (const auto& l : m_lanes) {
        m_chosenHidden.removeAll(l.name);
        if (!m_chosenShown.contains(l.name))
            m_chosenShown.append(l.name);
    }
    saveLaneChoice();
    applyLaneChoice();
    emit lanesChanged();
}

void LaneView::saveLaneChoice() const
{
    QSettings settings;
    settings.setValue(QLatin1StringView(kShownKey), m_chosenShown);
    settings.setValue(QLatin1StringView(kHiddenKey), m_chosenHidden);
}

// Each lane is shown when the user chose so, else when the engine's rule puts it in the default
// set for the lanes this run has (so far: a run's lanes arrive one by one).
void LaneView::applyLaneChoice(bool relayout)
{
    std::vector<kwb::MetricInfo> present;
    for (const auto& l : m_lanes)
        present.push_back({l.name.toStdString(), l.unit.toStdString()});
    m_defaults.clear();
    for (const auto& name : kwb::default_lanes(present))
        m_defaults << QString::fromStdString(name);
    bool changed = relayout;
    for (auto& l : m_lanes) {
        const bool shown
            = m_chosenShown.contains(l.name) || (m_defaults.contains(l.name) && !m_chosenHidden.contains(l.name));
        const bool placed = l.rect->layout() != nullptr;
        if (shown != l.shown || shown != placed)
            changed = true;
        if (shown && !l.shown)
            l.fresh = true; // its graph was not fed while hidden: fitted again from the series
        l.shown = shown;
    }
    if (changed)
        relayoutLanes();
}

// The strips shown, in display order under the header (row 0) and the latency strip (row 1). A
// hidden strip leaves the layout and its margin group (its tick labels would widen the others).
void LaneView::relayoutLanes()
{
    for (auto& l : m_lanes)
        if (l.rect->layout())
            plotLayout()->take(l.rect);
    plotLayout()->simplify();
    int row = 2;
    for (auto& l : m_lanes) {
        l.rect->setVisible(l.shown);
        l.graph->setVisible(l.shown);
        l.label->setVisible(l.shown);
        if (!l.shown) {
            l.value->setVisible(false);
            l.cursor->setVisible(false);
            l.rect->setMarginGroup(QCP::msLeft | QCP::msRight, nullptr);
            continue;
        }
        l.rect->setMarginGroup(QCP::msLeft | QCP::msRight, m_margins);
        plotLayout()->addElement(row, 0, l.rect);
        plotLayout()->setRowStretchFactor(row, 1);
        ++row;
    }
    updateBandRects();
    updateBottomAxes();
    if (m_series) {
        fitLanes();
        rescaleValues();
    }
    if (m_hoverT)
        hoverAt(m_hoverT);
    updateTitle();
    replotWhenVisible();
}

void LaneView::resizeEvent(QResizeEvent* event)
{
    LazyPlot::resizeEvent(event);
    placeTitle();
}

// The title takes the room the legend leaves in the header, elided rather than drawn under it.
void LaneView::placeTitle()
{
    const int legendWidth = legend->visible() ? legend->minimumOuterSizeHint().width() : 0;
    const QMargins m = m_title->margins();
    const QMargins outer = plotLayout()->margins();
    const int room = std::max(40,
        width() - legendWidth - m.left() - m.right() - outer.left() - outer.right() - 2 * m_header->columnSpacing()
            - 8);
    const QString text = QFontMetrics(m_title->font()).elidedText(m_titleText, Qt::ElideRight, room);
    if (text != m_title->text())
        m_title->setText(text);
}

QRect LaneView::titleTextRect() const
{
    return QFontMetrics(m_title->font()).boundingRect(m_title->rect(), m_title->textFlags(), m_title->text());
}

} // namespace kwb::gui
