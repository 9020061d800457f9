// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace kwb::gui {

// One line of a hardware sheet: a label a person reads, the value with its unit, and the JSON key
// it came from (for the tooltip, and so a test can find it). Rows for keys the sheet does not know
// keep the key as their label and the raw value: a newer kwb may add fields, and none is hidden.
struct SheetRow {
    QString label;
    QString value;
    QString key;
    bool known = true;
    QList<SheetRow> children; // e.g. the GPU catalogue's peaks under one row
};

// One device of `kwb devices --json` or of a study's hardware.devices: "CPU" / "GPU 0" and the
// model name as the heading, then the limits that decide a kernel's tiles, in a fixed order, then
// any unknown keys in the order they came.
struct DeviceSheet {
    QString heading;
    QString name;
    QList<SheetRow> rows;

    // The row for a JSON key, searched depth-first; nullptr when absent.
    const SheetRow* row(const QString& key) const;
};

DeviceSheet deviceSheet(const QJsonObject& device);
QList<DeviceSheet> deviceSheets(const QJsonArray& devices);

// kwb::format_bytes (binary units, as `kwb devices` writes them) as a QString.
QString formatBytes(double bytes);
// "L1d 48 KiB · L1i 32 KiB · L2 1 MiB · L3 32 MiB", in the order the CPU reported its caches.
QString cacheSummary(const QJsonArray& caches);
// CUDA encodes versions as 1000 * major + 10 * minor: 12040 -> "12.4".
QString cudaVersionText(int encoded);
// A list "a, b, c, …" broken into lines of at most maxChars at its ", " separators, so a long
// flag list reads as a short paragraph in a narrow column instead of being elided.
QString wrapList(const QString& list, int maxChars);
// kwb::sm_name: "9.0" -> "sm_90"; anything else comes back unchanged.
QString smName(const QString& computeCapability);

} // namespace kwb::gui
