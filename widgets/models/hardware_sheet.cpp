// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/hardware_sheet.h"

#include "models/json_convert.h"
#include "util/hardware_text.h"

#include <QCoreApplication>
#include <QSet>
#include <algorithm>
#include <cmath>
#include <functional>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("kwb::gui::HardwareSheet", text);
}

// Whole numbers as integers ("2048", not "2048.00"); others with one decimal.
QString number(double v)
{
    return v == std::floor(v) && std::abs(v) < 1e15 ? QString::number(static_cast<qint64>(v))
                                                    : QString::number(v, 'f', 1);
}

QString withUnit(const QJsonValue& v, const QString& unit)
{
    return number(v.toDouble()) + u' ' + unit;
}

// Lambdas below return QString explicitly: a deduced QStringBuilder would outlive its temporaries.
// A row the sheet knows: its label, the keys it reads (all are then "used", so they are not
// repeated raw at the end), and how the value is written.
struct Spec {
    const char* label;
    QStringList keys;
    std::function<QString(const QJsonObject&)> text;
};

QList<Spec> cpuSpecs()
{
    return {
        {"Architecture", {u"architecture"_s},
            [](const QJsonObject& o) -> QString { return o.value("architecture"_L1).toString(); }},
        // logical_cores is what sched_getaffinity lets this process use; online is the machine's.
        {"Cores", {u"logical_cores"_s, u"online_cores"_s},
            [](const QJsonObject& o) -> QString {
                return tr("%1 usable · %2 online")
                    .arg(number(o.value("logical_cores"_L1).toDouble()), number(o.value("online_cores"_L1).toDouble()));
            }},
        {"Memory", {u"memory_bytes"_s},
            [](const QJsonObject& o) -> QString { return formatBytes(o.value("memory_bytes"_L1).toDouble()); }},
        {"Caches", {u"caches"_s},
            [](const QJsonObject& o) -> QString { return cacheSummary(o.value("caches"_L1).toArray()); }},
        {"ISA flags", {u"flags"_s},
            [](const QJsonObject& o) -> QString {
                QStringList flags;
                for (const auto& f : o.value("flags"_L1).toArray())
                    flags << f.toString();
                return flags.isEmpty() ? tr("none of interest") : flags.join(u", "_s);
            }},
    };
}

QList<Spec> cudaSpecs()
{
    auto bytes = [](const char* key) {
        return
            [key](const QJsonObject& o) -> QString { return formatBytes(o.value(QLatin1StringView(key)).toDouble()); };
    };
    auto unit = [](const char* key, const QString& u) {
        return [key, u](const QJsonObject& o) -> QString { return withUnit(o.value(QLatin1StringView(key)), u); };
    };
    return {
        {"Architecture", {u"compute_capability"_s},
            [](const QJsonObject& o) -> QString {
                const QString cc = o.value("compute_capability"_L1).toString();
                return smName(cc) + u"  (compute capability "_s + cc + u')';
            }},
        {"SMs", {u"sm_count"_s}, unit("sm_count", tr("SMs"))},
        {"Shared memory / SM", {u"smem_per_sm_bytes"_s}, bytes("smem_per_sm_bytes")},
        {"Shared memory / block (opt-in)", {u"smem_per_block_optin_bytes"_s}, bytes("smem_per_block_optin_bytes")},
        {"Registers / SM", {u"regs_per_sm"_s}, unit("regs_per_sm", tr("× 32-bit registers"))},
        {"Threads / SM", {u"max_threads_per_sm"_s}, unit("max_threads_per_sm", tr("threads"))},
        {"Blocks / SM", {u"max_blocks_per_sm"_s}, unit("max_blocks_per_sm", tr("blocks"))},
        {"Warp size", {u"warp_size"_s}, unit("warp_size", tr("threads"))},
        {"L2 cache", {u"l2_bytes"_s}, bytes("l2_bytes")},
        {"Memory", {u"memory_bytes"_s}, bytes("memory_bytes")},
        {"Memory bus", {u"memory_bus_bits"_s}, unit("memory_bus_bits", tr("bits"))},
        {"Memory clock", {u"memory_clock_mhz"_s}, unit("memory_clock_mhz", tr("MHz"))},
        // 2 transfers per clock × bus width: the ceiling a streaming kernel is measured against.
        {"Theoretical bandwidth", {u"theoretical_bandwidth_gbs"_s},
            [](const QJsonObject& o) -> QString {
                return QString::number(o.value("theoretical_bandwidth_gbs"_L1).toDouble(), 'f', 0)
                    + tr(" GB/s (DDR × bus)");
            }},
        {"Max SM clock", {u"sm_clock_mhz"_s}, unit("sm_clock_mhz", tr("MHz"))},
        {"PCI bus", {u"pci_bus_id"_s},
            [](const QJsonObject& o) -> QString { return o.value("pci_bus_id"_L1).toString(); }},
        {"Driver (CUDA API)", {u"driver_version"_s},
            [](const QJsonObject& o) -> QString { return cudaVersionText(o.value("driver_version"_L1).toInt()); }},
        {"CUDA runtime", {u"runtime_version"_s},
            [](const QJsonObject& o) -> QString { return cudaVersionText(o.value("runtime_version"_L1).toInt()); }},
    };
}

QList<Spec> catalogueSpecs()
{
    auto tflops = [](const char* key) {
        return [key](const QJsonObject& o) -> QString {
            return number(o.value(QLatin1StringView(key)).toDouble()) + tr(" TFLOP/s (dense)");
        };
    };
    return {
        {"Entry", {u"name"_s, u"match"_s},
            [](const QJsonObject& o) -> QString {
                return tr("%1 (name matched \"%2\")")
                    .arg(o.value("name"_L1).toString(), o.value("match"_L1).toString());
            }},
        {"Peak BF16", {u"peak_bf16_tflops"_s}, tflops("peak_bf16_tflops")},
        {"Peak FP8", {u"peak_fp8_tflops"_s}, tflops("peak_fp8_tflops")},
        {"Peak FP32", {u"peak_fp32_tflops"_s}, tflops("peak_fp32_tflops")},
        {"Peak memory bandwidth", {u"peak_hbm_gbs"_s},
            [](const QJsonObject& o) -> QString { return withUnit(o.value("peak_hbm_gbs"_L1), tr("GB/s")); }},
        {"Architecture", {u"sm"_s},
            [](const QJsonObject& o) -> QString { return smName(o.value("sm"_L1).toString()); }},
        {"Shared memory / SM", {u"smem_per_sm_kib"_s},
            [](const QJsonObject& o) -> QString {
                return formatBytes(o.value("smem_per_sm_kib"_L1).toDouble() * 1024);
            }},
        {"Registers / SM", {u"regs_per_sm"_s},
            [](const QJsonObject& o) -> QString {
                return withUnit(o.value("regs_per_sm"_L1), tr("× 32-bit registers"));
            }},
        {"Threads / SM", {u"threads_per_sm"_s},
            [](const QJsonObject& o) -> QString { return withUnit(o.value("threads_per_sm"_L1), tr("threads")); }},
        {"Source", {u"source"_s}, [](const QJsonObject& o) -> QString { return o.value("source"_L1).toString(); }},
    };
}

// The known rows present in `o`, then every key left over, raw, so nothing in the JSON is hidden.
QList<SheetRow> rowsFor(const QJsonObject& o, const QList<Spec>& specs, QSet<QString> used)
{
    QList<SheetRow> rows;
    for (const Spec& spec : specs) {
        const bool present
            = std::any_of(spec.keys.begin(), spec.keys.end(), [&](const QString& k) { return o.contains(k); });
        if (!present)
            continue;
        rows.append({tr(spec.label), spec.text(o), spec.keys.join(u", "_s), true, {}});
        for (const QString& k : spec.keys)
            used.insert(k);
    }
    for (auto it = o.begin(); it != o.end(); ++it)
        if (!used.contains(it.key()))
            rows.append({it.key(), jsonScalarText(it.value()), it.key(), false, {}});
    return rows;
}

const SheetRow* findRow(const QList<SheetRow>& rows, const QString& key)
{
    for (const SheetRow& r : rows) {
        if (r.key == key || r.key.split(u", "_s).contains(key))
            return &r;
        if (const SheetRow* child = findRow(r.children, key))
            return child;
    }
    return nullptr;
}

} // namespace

const SheetRow* DeviceSheet::row(const QString& key) const
{
    return findRow(rows, key);
}

QString formatBytes(double bytes)
{
    return qs(format_bytes(bytes));
}

QString cacheSummary(const QJsonArray& caches)
{
    QStringList parts;
    for (const auto& c : caches) {
        const QJsonObject o = c.toObject();
        parts << qs(cache_name(o.value("level"_L1).toInt(), o.value("type"_L1).toString().toStdString())) + u' '
                + formatBytes(o.value("size_bytes"_L1).toDouble());
    }
    return parts.join(u" · "_s);
}

QString cudaVersionText(int encoded)
{
    return u"%1.%2"_s.arg(encoded / 1000).arg((encoded % 1000) / 10);
}

QString wrapList(const QString& list, int maxChars)
{
    const QStringList items = list.split(u", "_s);
    QStringList lines;
    QString line;
    for (const QString& item : items) {
        if (!line.isEmpty() && line.size() + 2 + item.size() > maxChars) {
            lines << line + u',';
            line.clear();
        }
        line += (line.isEmpty() ? QString() : u", "_s) + item;
    }
    lines << line;
    return lines.join(u'\n');
}

QString smName(const QString& computeCapability)
{
    return qs(sm_name(computeCapability.toStdString()));
}

DeviceSheet deviceSheet(const QJsonObject& device)
{
    DeviceSheet sheet;
    const QString kind = device.value("kind"_L1).toString();
    sheet.name = device.value("name"_L1).toString();
    const QSet<QString> heading {u"kind"_s, u"name"_s};
    if (kind == "cpu"_L1) {
        sheet.heading = tr("CPU");
        sheet.rows = rowsFor(device, cpuSpecs(), heading);
    } else if (kind == "cuda"_L1) {
        sheet.heading = tr("GPU %1").arg(device.value("index"_L1).toInt());
        sheet.rows = rowsFor(device, cudaSpecs(), heading + QSet<QString> {u"index"_s, u"catalogue"_s, u"measured"_s});
        // (measured ceilings: the page's peaks table shows them beside the datasheet)
        // The vendor's peaks are what a roofline is drawn against; their source says how far to
        // trust them (datasheets quote boost clocks and the SXM part).
        const QJsonObject catalogue = device.value("catalogue"_L1).toObject();
        if (!catalogue.isEmpty()) {
            SheetRow peaks {tr("Catalogue peaks"), catalogue.value("source"_L1).toString(), u"catalogue"_s, true,
                rowsFor(catalogue, catalogueSpecs(), {})};
            sheet.rows.append(peaks);
        } else if (device.contains("catalogue"_L1)) {
            sheet.rows.append({tr("Catalogue peaks"), tr("not in resources/gpus.json"), u"catalogue"_s, true, {}});
        }
    } else {
        sheet.heading = kind.isEmpty() ? tr("Device") : kind.toUpper();
        sheet.rows = rowsFor(device, {}, heading);
    }
    return sheet;
}

QList<DeviceSheet> deviceSheets(const QJsonArray& devices)
{
    QList<DeviceSheet> sheets;
    for (const auto& d : devices)
        sheets.append(deviceSheet(d.toObject()));
    return sheets;
}

} // namespace kwb::gui
