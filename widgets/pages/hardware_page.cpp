// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/hardware_page.h"

#include "hardware/gpu_catalogue.h"
#include "hardware/peak_table.h"
#include "hardware/study_traps.h"
#include "models/device_probe.h"
#include "models/hardware_sheet.h"
#include "models/json_convert.h"
#include "models/study_document.h"
#include "study/device_identity.h"
#include "workloads/descriptions/block_needs.h"

#include <QColor>
#include <QComboBox>
#include <QDateTime>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

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
    m_limitsOf = new QComboBox(this);
    m_limitsOf->setObjectName(u"hardwareLimitsOf"_s);
    m_limitsOf->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_limitsOf->setMinimumContentsLength(24);
    m_limitsOf->setToolTip(tr("Playbook phase 2: the GPU whose limits (smem/SM, threads/SM) and peaks the study's "
                              "configurations are checked against: the one the study recorded, the one detected "
                              "here, or any catalogue part (resources/gpus.json) you plan to run on"));
    form->addRow(tr("Check against"), m_limitsOf);
    m_record = new QPushButton(tr("Record this machine's sheet in the study"), this);
    m_record->setObjectName(u"recordHardware"_s);
    m_record->setToolTip(tr("Playbook phase 2: pull the limits before code. Stores what kwb devices reports now, "
                            "with the trap warnings of the study's configurations on its GPU."));
    form->addRow(QString(), m_record);
    body()->addLayout(form);
    connect(m_record, &QPushButton::clicked, this, [this] {
        const nlohmann::json devices = nlohmann::json::parse(QJsonDocument(m_probe->devices()).toJson().toStdString());
        const std::string inUse = m_probe->deviceInUse().toStdString();
        const std::string at = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toStdString();
        std::vector<std::string> warnings;
        for (const auto& d : devices)
            if (const auto limits = gpu_limits(d)) {
                for (const auto& w : study_traps(this->document()->study(), builtin_block_needs, *limits).warnings)
                    warnings.push_back(w.text);
                break;
            }
        this->document()->edit(tr("Record the hardware sheet"), [=](Study& s) {
            s.hardware.devices = devices;
            s.hardware.device_in_use = inUse;
            s.hardware.captured_at = at;
            s.hardware.warnings = warnings;
        });
    });
    connect(m_limitsOf, &QComboBox::activated, this, [this] {
        m_choice = m_limitsOf->currentData().toString();
        refresh();
    });

    body()->addWidget(sectionLabel(tr("Peaks: datasheet and measured"), this));
    m_peaksNote = valueLabel(this);
    body()->addWidget(m_peaksNote);
    m_peaks
        = keyValueTable(this, {tr("quantity"), tr("datasheet"), tr("measured (kwb calibrate)"), tr("of datasheet")});
    m_peaks->setObjectName(u"hardwarePeaks"_s);
    m_peaks->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_peaks->horizontalHeader()->setStretchLastSection(true);
    m_peaks->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_peaks->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    body()->addWidget(m_peaks);

    body()->addWidget(sectionLabel(tr("The study's configurations on this GPU"), this));
    m_occupancy = valueLabel(this);
    m_occupancy->setObjectName(u"hardwareOccupancy"_s);
    body()->addWidget(m_occupancy);
    body()->addWidget(sectionLabel(tr("Trap warnings"), this));
    m_warnings = valueLabel(this);
    m_warnings->setObjectName(u"hardwareWarnings"_s);
    body()->addWidget(m_warnings);

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
        tree->setMinimumHeight(220);
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

QString HardwarePage::limitsKey() const
{
    return m_limitsOf->currentData().toString();
}

bool HardwarePage::chooseLimits(const QString& key)
{
    const int i = m_limitsOf->findData(key);
    if (i < 0)
        return false;
    m_choice = key;
    refresh();
    return true;
}

bool HardwarePage::isCpuStudy() const
{
    const Experiment* e = document()->currentExperiment();
    if (!e)
        return false;
    if (!e->device.empty())
        return e->device.kind == "cpu";
    if (e->backend == "cpu")
        return true;
    const DeviceIdentity here = m_probe && m_probe->isFinished() ? m_probe->runningDevice(*e) : DeviceIdentity {};
    return here.kind == "cpu";
}

// The CPU's device object: the one the study recorded, else the one detected here.
static nlohmann::json cpuDevice(const Study& study, const QJsonArray& detected)
{
    for (const auto& d : study.hardware.devices)
        if (d.is_object() && d.value("kind", std::string()) == "cpu")
            return d;
    for (const auto& d : detected)
        if (d.toObject().value("kind"_L1).toString() == "cpu"_L1) {
            auto device = nlohmann::json::parse(QJsonDocument(d.toObject()).toJson().toStdString(), nullptr, false);
            if (device.is_object())
                return device;
        }
    return {{"kind", "cpu"}, {"name", "CPU"}};
}

void HardwarePage::fillChoices()
{
    const QSignalBlocker block(m_limitsOf);
    m_limitsOf->clear();
    const auto& hw = document()->study().hardware;
    // A CPU study is checked against its CPU: the GPU parts stay below for planning a GPU run.
    if (isCpuStudy())
        m_limitsOf->addItem(tr("%1 (the study's CPU: no GPU limits apply)")
                                .arg(qs(cpuDevice(document()->study(), m_probe->devices()).value("name", ""))),
            u"cpu"_s);
    for (size_t i = 0; i < hw.devices.size(); ++i)
        if (gpu_limits(hw.devices[i]))
            m_limitsOf->addItem(
                tr("%1 (recorded with the study)").arg(qs(hw.devices[i].value("name", ""))), u"recorded:%1"_s.arg(i));
    const QJsonArray detected = m_probe->devices();
    for (qsizetype i = 0; i < detected.size(); ++i)
        if (detected[i].toObject().value("kind"_L1).toString() == "cuda"_L1)
            m_limitsOf->addItem(tr("%1 (detected here)").arg(detected[i].toObject().value("name"_L1).toString()),
                u"detected:%1"_s.arg(i));
    m_limitsOf->insertSeparator(m_limitsOf->count());
    for (const auto& p : gpu_parts())
        m_limitsOf->addItem(tr("%1 (%2, catalogue)").arg(qs(p.name), qs(p.arch)), QString(u"part:"_s + qs(p.match)));
    // The user's pick; else the GPU the study recorded or this machine has; else the part the
    // formula's constants come from; else the first catalogue part, so the page is never empty.
    const QString formulaPart = u"part:"_s + qs(document()->study().prediction.gpu);
    const QString firstPart = gpu_parts().empty() ? QString() : QString(u"part:"_s + qs(gpu_parts().front().match));
    for (const QString& key : {m_choice, m_limitsOf->itemData(0).toString(), formulaPart, firstPart})
        if (const int i = key.isEmpty() ? -1 : m_limitsOf->findData(key); i >= 0) {
            m_limitsOf->setCurrentIndex(i);
            return;
        }
}

nlohmann::json HardwarePage::chosenDevice() const
{
    const nlohmann::json none = nlohmann::json::object();
    const QString key = limitsKey();
    const QString rest = key.section(u':', 1);
    if (key == u"cpu"_s)
        return cpuDevice(document()->study(), m_probe->devices());
    if (key.startsWith(u"recorded:"_s)) {
        const auto& devices = document()->study().hardware.devices;
        const size_t i = rest.toULong();
        return i < devices.size() && devices[i].is_object() ? devices[i] : none;
    }
    if (key.startsWith(u"detected:"_s)) {
        auto device = nlohmann::json::parse(
            QJsonDocument(m_probe->devices().at(rest.toInt()).toObject()).toJson().toStdString(), nullptr, false);
        return device.is_object() ? device : none;
    }
    if (key.startsWith(u"part:"_s))
        for (const auto& p : gpu_parts())
            if (qs(p.match) == rest) {
                // A catalogue part as a device object: its limits in the sheet's keys, itself as the catalogue.
                return {{"kind", "cuda"}, {"name", p.name}, {"compute_capability", p.sm},
                    {"smem_per_sm_bytes", p.smem_per_sm_kib * 1024},
                    {"smem_per_block_optin_bytes", p.smem_per_block_optin_kib * 1024},
                    {"max_threads_per_sm", p.threads_per_sm}, {"max_blocks_per_sm", p.max_blocks_per_sm},
                    {"catalogue", p.to_json()}};
            }
    return none;
}

void HardwarePage::showPeaks(const nlohmann::json& device)
{
    nlohmann::json catalogue = device.value("catalogue", nlohmann::json());
    if (!catalogue.is_object())
        if (const GpuPart* part = find_gpu_part(device.value("name", std::string())))
            catalogue = part->to_json();
    const nlohmann::json measured = device.value("measured", nlohmann::json());
    const auto rows = peak_rows(catalogue, measured);
    m_peaks->setRowCount(static_cast<int>(rows.size()));
    int r = 0;
    for (const PeakRow& row : rows) {
        const QString unit = qs(row.unit);
        const auto cell = [&](int column, const QString& text, const QString& tip = {}) {
            auto* item = new QTableWidgetItem(text);
            item->setToolTip(tip.isEmpty() ? text : tip);
            m_peaks->setItem(r, column, item);
        };
        cell(0, qs(row.quantity));
        cell(1, row.datasheet ? u"%1 %2"_s.arg(*row.datasheet, 0, 'f', 1).arg(unit) : tr("not stated"),
            qs(catalogue.value("source", std::string())));
        if (row.measured) {
            const auto& m = *row.measured;
            cell(2,
                tr("%1 %2 (median of %3; %4 to %5, cv %6 %)")
                    .arg(m.median, 0, 'f', 1)
                    .arg(unit)
                    .arg(m.n)
                    .arg(m.min, 0, 'f', 1)
                    .arg(m.max, 0, 'f', 1)
                    .arg(m.cv_pct, 0, 'g', 2),
                qs(m.how));
        } else {
            cell(2, tr("not measured"),
                tr("kwb calibrate on the device measures copy bandwidth and the bf16 GEMM rate"));
        }
        cell(3, row.pct_of_datasheet ? u"%1 %"_s.arg(*row.pct_of_datasheet, 0, 'f', 0) : QString());
        ++r;
    }
    // Four rows at most: the table is as tall as its rows, the page scrolls instead.
    m_peaks->resizeRowsToContents();
    int height = m_peaks->horizontalHeader()->sizeHint().height() + 2 * m_peaks->frameWidth();
    for (int i = 0; i < m_peaks->rowCount(); ++i)
        height += m_peaks->rowHeight(i);
    m_peaks->setFixedHeight(height);
    const bool anyMeasured = std::any_of(rows.begin(), rows.end(), [](const PeakRow& p) { return p.measured; });
    setValue(m_peaksNote,
        limitsKey() == u"cpu"_s ? tr("A CPU study: its CPU's sheet is below (cores, caches); GPU datasheet peaks and "
                                     "tile traps do not apply. Pick a GPU part above to plan a GPU run.")
            : rows.empty()      ? tr("No peaks: the catalogue does not know this GPU.")
            : anyMeasured ? tr("Measured ceilings are what a roofline is drawn against; datasheets quote boost clocks.")
            : limitsKey().startsWith(u"part:"_s)
            ? tr("Datasheet figures of the catalogue part; measured ceilings exist only for a device (kwb calibrate).")
            : tr("Not calibrated: run kwb calibrate on the GPU to measure its ceilings beside the datasheet."));
}

void HardwarePage::showTraps(const nlohmann::json& device)
{
    QStringList warnings;
    QStringList rules;
    QStringList occupancy;
    if (const auto limits = gpu_limits(device)) {
        const StudyTraps traps = study_traps(document()->study(), builtin_block_needs, *limits);
        for (const auto& line : traps.occupancy)
            occupancy << qs(line);
        for (const auto& w : traps.warnings) {
            warnings << u"⚠ "_s + qs(w.text);
            if (!rules.contains(qs(w.rule)))
                rules << qs(w.rule);
        }
    }
    // The recorded warnings are a GPU's traps: a CPU study checked against its CPU has none.
    const bool cpu = limitsKey() == u"cpu"_s;
    for (const auto& w : document()->study().hardware.warnings)
        if (!cpu && !warnings.contains(u"⚠ "_s + qs(w)))
            warnings << u"⚠ "_s + qs(w) + tr(" (recorded)");
    // The engine's same_device rule: samples of one device model must not be continued on another.
    if (m_probe->isFinished())
        for (const auto& e : document()->study().experiments) {
            const DeviceIdentity now = m_probe->runningDevice(e);
            if (!now.empty() && !may_continue_on(e, now))
                warnings << tr("⚠ %1 was measured on %2 but would run on %3 here: a run would mix two devices' "
                               "samples (kwb run refuses to continue it; start a new study or attempt)")
                                .arg(qs(e.id), qs(describe(e.device)), qs(describe(now)));
        }
    setValue(m_occupancy,
        cpu ? tr("A CPU study: GPU occupancy (blocks per SM) does not apply.")
            : occupancy.isEmpty()
            ? tr("No GPU configuration in the study: an A/B of a CUDA workload with tile parameters "
                 "(gemm block_m, block_n, block_k, stages) is checked here.")
            : occupancy.join(u'\n'));
    setValue(m_warnings, warnings.isEmpty() ? tr("none") : warnings.join(u'\n'));
    m_warnings->setToolTip(rules.join(u'\n'));
}

void HardwarePage::refresh()
{
    const auto& hw = document()->study().hardware;
    setValue(m_inUse, qs(hw.device_in_use));
    setValue(m_captured, qs(hw.captured_at));
    fillChoices();
    const nlohmann::json device = chosenDevice();
    showPeaks(device);
    showTraps(device);
    m_record->setEnabled(m_probe->isFinished() && !m_probe->devices().isEmpty());
    fill(m_recorded, toQJson(hw.devices).toArray());
    fill(m_detected, m_probe->devices(), m_probe->isFinished() ? m_probe->gpuUnavailableReason() : QString());
    const QString reason = m_probe->isFinished() ? m_probe->gpuUnavailableReason() : QString();
    m_gpuReason->setText(reason.isEmpty() ? QString() : tr("No GPU: %1").arg(gpuReasonText(reason)));
    m_gpuReason->setVisible(!reason.isEmpty());
    setValue(m_detectedNote, m_probe->isFinished() ? tr("what kwb devices reports now") : tr("detecting…"));
}

} // namespace kwb::gui
