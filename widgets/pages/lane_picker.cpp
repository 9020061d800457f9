// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/lane_picker.h"

#include "plots/lane_view.h"

#include <QMenu>

namespace kwb::gui {

using namespace Qt::StringLiterals;

LanePicker::LanePicker(LaneView* view, QWidget* parent)
    : QPushButton(parent)
    , m_view(view)
{
    setObjectName(u"liveLanes"_s);
    setToolTip(tr("The strips drawn: the default set (latency lanes, occupancy, HBM, SM clock, power; on a CPU run "
                  "its CPU lanes) or any others. The choice is kept for later runs."));
    setMenu(new QMenu(this));
    connect(menu(), &QMenu::aboutToShow, this, &LanePicker::rebuildMenu);
    connect(view, &LaneView::lanesChanged, this, &LanePicker::updateText);
    updateText();
}

void LanePicker::updateText()
{
    const auto all = m_view->laneNames().size();
    const auto shown = m_view->shownLaneNames().size();
    setText(all == 0 ? tr("Lanes") : tr("Lanes: %1 of %2").arg(shown).arg(all));
    setEnabled(all > 0);
}

void LanePicker::rebuildMenu()
{
    QMenu* m = menu();
    m->clear();
    QAction* defaults = m->addAction(tr("Default set only"), m_view, &LaneView::showDefaultLanes);
    defaults->setObjectName(u"liveLanesDefault"_s);
    QAction* all = m->addAction(tr("All lanes"), m_view, &LaneView::showAllLanes);
    all->setObjectName(u"liveLanesAll"_s);
    m->addSeparator();
    const QStringList defaultSet = m_view->defaultLaneNames();
    for (const QString& lane : m_view->laneNames()) {
        const QString unit = m_view->laneUnit(lane);
        QString text = unit.isEmpty() ? lane : u"%1 (%2)"_s.arg(lane, unit);
        if (defaultSet.contains(lane))
            text += tr("  · default");
        QAction* a = m->addAction(text);
        a->setObjectName(u"liveLane:"_s + lane);
        a->setCheckable(true);
        a->setChecked(m_view->isLaneShown(lane));
        connect(a, &QAction::toggled, m_view, [view = m_view, lane](bool on) { view->setLaneShown(lane, on); });
    }
}

} // namespace kwb::gui
