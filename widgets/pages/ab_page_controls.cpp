// SPDX-License-Identifier: GPL-3.0-or-later
// Phase 5's matched-controls checklist: ticked by the engine where it measures a control, by the
// user elsewhere.
#include "models/device_probe.h"
#include "models/json_convert.h"
#include "models/study_document.h"
#include "pages/ab_page.h"
#include "study/gates.h"
#include "study/plan_limits.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTableWidget>

namespace kwb::gui {

using namespace Qt::StringLiterals;

void AbPage::fillControls(const Experiment& e, const nlohmann::json& defaults)
{
    // Controls: the engine's measurement wins where it has one; the user ticks the rest.
    const DeviceIdentity device = m_probe ? m_probe->runningDevice(e) : DeviceIdentity {};
    const auto measured = measure_controls(e, defaults, device.empty() ? nullptr : &device);
    m_controls->setRowCount(static_cast<int>(e.controls.checklist.size()));
    const Gate gate = controls_gate(e.controls);
    int row = 0;
    for (const auto& [name, checked] : e.controls.checklist) {
        auto* item = new QTableWidgetItem(qs(name));
        item->setFlags((item->flags() | Qt::ItemIsUserCheckable) & ~Qt::ItemIsEditable);
        item->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
        QString how = tr("not measurable here: tick it once you have checked it");
        QString by = tr("by you");
        for (const auto& m : measured)
            if (m.name == name && m.measured) {
                how = tr("measured: %1").arg(qs(m.how));
                by = tr("measured");
                item->setFlags(item->flags() & ~Qt::ItemIsUserCheckable); // the engine decides it
            }
        m_controls->setItem(row, 0, item);
        // A short word in the narrow column; the whole account in the tooltips.
        auto* note = new QTableWidgetItem(by);
        note->setToolTip(how);
        item->setToolTip(how + u"\n"_s + qs(gate.rule));
        note->setFlags(note->flags() & ~Qt::ItemIsEditable);
        m_controls->setItem(row, 1, note);
        ++row;
    }
}

void AbPage::controlToggled(int row, int column)
{
    if (m_filling || column != 0)
        return;
    const int i = experimentIndex();
    if (i < 0)
        return;
    const std::string name = m_controls->item(row, 0)->text().toStdString();
    const bool checked = m_controls->item(row, 0)->checkState() == Qt::Checked;
    document()->edit(tr("Tick %1").arg(qs(name)),
        [=](Study& s) { s.experiments[static_cast<size_t>(i)].controls.checklist[name] = checked; });
}

} // namespace kwb::gui
