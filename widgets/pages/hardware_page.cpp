// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/hardware_page.h"

#include "models/device_probe.h"
#include "models/json_convert.h"
#include "models/study_document.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonObject>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace kwb::gui {

using namespace Qt::StringLiterals;

HardwarePage::HardwarePage(StudyDocument* document, DeviceProbe* probe, QWidget* parent)
    : PhasePage(document, tr("2 · Hardware sheet"),
                tr("Pull the limits before writing code: smem/SM, registers/SM, threads/SM, peak FLOP/s, "
                   "memory bandwidth. Tiles tuned for another part's limits are the classic trap."),
                parent)
    , m_probe(probe)
{
    setObjectName(u"hardwarePage"_s);
    auto* form = new QFormLayout;
    form->addRow(tr("Device in use"), m_inUse = valueLabel(this));
    form->addRow(tr("Captured"), m_captured = valueLabel(this));
    form->addRow(tr("Warnings"), m_warnings = valueLabel(this));
    body()->addLayout(form);

    auto* columns = new QHBoxLayout;
    auto makeTree = [this](const QString& title, QTreeWidget*& tree, QLabel* note) {
        auto* box = new QVBoxLayout;
        box->addWidget(sectionLabel(title, this));
        if (note)
            box->addWidget(note);
        tree = new QTreeWidget(this);
        tree->setHeaderLabels({tr("property"), tr("value")});
        tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
        box->addWidget(tree, 1);
        return box;
    };
    m_detectedNote = valueLabel(this);
    columns->addLayout(makeTree(tr("Recorded with the study"), m_recorded, nullptr));
    columns->addLayout(makeTree(tr("Detected on this machine (kwb devices)"), m_detected, m_detectedNote));
    body()->addLayout(columns, 1);
    connect(probe, &DeviceProbe::finished, this, &HardwarePage::refresh);
}

void HardwarePage::fill(QTreeWidget* tree, const QJsonArray& devices)
{
    tree->clear();
    for (const auto& d : devices) {
        const QJsonObject o = d.toObject();
        auto* top = new QTreeWidgetItem(tree, {o.value("kind"_L1).toString().toUpper(), o.value("name"_L1).toString()});
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (it.key() == "name"_L1 || it.key() == "kind"_L1)
                continue;
            new QTreeWidgetItem(top, {it.key(), jsonScalarText(it.value())});
        }
        top->setExpanded(true);
    }
}

void HardwarePage::refresh()
{
    const auto& hw = document()->study().hardware;
    setValue(m_inUse, qs(hw.device_in_use));
    setValue(m_captured, qs(hw.captured_at));
    QStringList warnings;
    for (const auto& w : hw.warnings)
        warnings << u"⚠ "_s + qs(w);
    setValue(m_warnings, warnings.join(u'\n'));
    fill(m_recorded, toQJson(hw.devices).toArray());
    fill(m_detected, m_probe->devices());
    setValue(m_detectedNote, m_probe->isFinished() ? m_probe->gpuUnavailableReason() : tr("detecting…"));
}

} // namespace kwb::gui
