// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/hardware_page.h"

#include "models/device_probe.h"
#include "models/hardware_sheet.h"
#include "models/json_convert.h"
#include "models/study_document.h"
#include "study/device_identity.h"

#include <QColor>
#include <QDateTime>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
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
    m_warnings->setObjectName(u"hardwareWarnings"_s);
    m_record = new QPushButton(tr("Record this machine's sheet in the study"), this);
    m_record->setObjectName(u"recordHardware"_s);
    m_record->setToolTip(tr("Playbook phase 2: pull the limits before code. Stores what kwb devices reports now."));
    form->addRow(QString(), m_record);
    body()->addLayout(form);
    connect(m_record, &QPushButton::clicked, this, [this] {
        const nlohmann::json devices = nlohmann::json::parse(QJsonDocument(m_probe->devices()).toJson().toStdString());
        const std::string inUse = m_probe->deviceInUse().toStdString();
        const std::string at = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toStdString();
        this->document()->edit(tr("Record the hardware sheet"), [=](Study& s) {
            s.hardware.devices = devices;
            s.hardware.device_in_use = inUse;
            s.hardware.captured_at = at;
        });
    });

    auto* columns = new QHBoxLayout;
    auto makeTree = [this](const QString& title, const QString& name, QTreeWidget*& tree, QLabel* note) {
        auto* box = new QVBoxLayout;
        box->addWidget(sectionLabel(title, this));
        if (note)
            box->addWidget(note);
        tree = new QTreeWidget(this);
        tree->setObjectName(name);
        tree->setHeaderLabels({tr("property"), tr("value")});
        tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
        tree->setWordWrap(true);
        tree->setUniformRowHeights(false);
        box->addWidget(tree, 1);
        return box;
    };
    m_detectedNote = valueLabel(this);
    auto* recordedNote = valueLabel(this);
    setValue(recordedNote, tr("what kwb devices reported when the study was captured"));
    columns->addLayout(makeTree(tr("Recorded with the study"), u"recordedSheet"_s, m_recorded, recordedNote));
    columns->addLayout(
        makeTree(tr("Detected on this machine (kwb devices)"), u"detectedSheet"_s, m_detected, m_detectedNote));
    body()->addLayout(columns, 1);
    // Why there is no GPU can be long (kwb names the paths it looked in): a wrapped line under
    // the sheets, not an elided cell.
    m_gpuReason = new QLabel(this);
    m_gpuReason->setObjectName(u"gpuReason"_s);
    m_gpuReason->setWordWrap(true);
    m_gpuReason->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_gpuReason->hide();
    body()->addWidget(m_gpuReason);
    connect(probe, &DeviceProbe::finished, this, &HardwarePage::refresh);
}

namespace {

// kwb's own line reads "kwb: no GPU: <why>"; the page says "no GPU" in its own words.
QString gpuReasonText(QString reason)
{
    for (const QString& prefix : {u"kwb: "_s, u"no GPU: "_s})
        if (reason.startsWith(prefix))
            reason = reason.mid(prefix.size());
    return reason;
}

void addRows(QTreeWidgetItem* parent, const QList<SheetRow>& rows)
{
    for (const SheetRow& r : rows) {
        // Only lists wrap (ISA flags); other values are short by construction.
        auto* item = new QTreeWidgetItem(parent, {r.label, wrapList(r.value, 40)});
        if (r.known) {
            item->setToolTip(0, HardwarePage::tr("from %1").arg(r.key));
        } else {
            // A field this sheet has no words for yet: shown as recorded, and marked as such.
            QFont f = item->font(0);
            f.setItalic(true);
            item->setFont(0, f);
            item->setForeground(0, QColor(0x75, 0x75, 0x75));
            item->setToolTip(0, HardwarePage::tr("a field without a label here; the value is shown as recorded"));
        }
        item->setToolTip(1, r.value);
        addRows(item, r.children);
        item->setExpanded(true);
    }
}

} // namespace

void HardwarePage::fill(QTreeWidget* tree, const QJsonArray& devices, const QString& gpuUnavailable)
{
    tree->clear();
    for (const DeviceSheet& sheet : deviceSheets(devices)) {
        auto* top = new QTreeWidgetItem(tree, {sheet.heading, sheet.name});
        QFont bold = top->font(0);
        bold.setBold(true);
        top->setFont(0, bold);
        top->setFont(1, bold);
        addRows(top, sheet.rows);
        top->setExpanded(true);
    }
    if (!gpuUnavailable.isEmpty()) {
        const QString why = gpuReasonText(gpuUnavailable);
        auto* top = new QTreeWidgetItem(tree, {tr("GPU"), tr("none available")});
        QFont bold = top->font(0);
        bold.setBold(true);
        top->setFont(0, bold);
        top->setFont(1, bold);
        top->setToolTip(1, why);
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
    // The engine's same_device rule: samples of one device model must not be continued on another.
    if (m_probe->isFinished())
        for (const auto& e : document()->study().experiments) {
            const DeviceIdentity now = m_probe->runningDevice(e.backend);
            if (!e.device.empty() && !now.empty() && !same_device(e.device, now))
                warnings << tr("⚠ %1 was measured on %2 but would run on %3 here: a run would mix two devices' "
                               "samples (kwb run refuses to continue it; start a new study or attempt)")
                                .arg(qs(e.id), qs(describe(e.device)), qs(describe(now)));
        }
    m_record->setEnabled(m_probe->isFinished() && !m_probe->devices().isEmpty());
    setValue(m_warnings, warnings.isEmpty() ? tr("none") : warnings.join(u'\n'));
    fill(m_recorded, toQJson(hw.devices).toArray());
    fill(m_detected, m_probe->devices(), m_probe->isFinished() ? m_probe->gpuUnavailableReason() : QString());
    const QString reason = m_probe->isFinished() ? m_probe->gpuUnavailableReason() : QString();
    m_gpuReason->setText(reason.isEmpty() ? QString() : tr("No GPU: %1").arg(gpuReasonText(reason)));
    m_gpuReason->setVisible(!reason.isEmpty());
    setValue(m_detectedNote, m_probe->isFinished() ? tr("what kwb devices reports now") : tr("detecting…"));
}

} // namespace kwb::gui
