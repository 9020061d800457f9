// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// File > Export (PDF, HTML, Markdown, JSON) and File > Print: the window's side of the verdict
// report. Everything is rendered by engine/report from the open study, exactly as `kwb report`
// renders it; this only asks where to write and drives the printer.
#include <QString>
#include <functional>

class QMenu;
class QPrinter;
class QWidget;

namespace kwb::gui {

class StudyDocument;

void addReportActions(QMenu* file, QWidget* parent, const StudyDocument* document);

// What the menu actions do once they know where to write: `format` is "pdf", "html", "md" or
// "json". Returns the error shown to the user, empty on success.
QString exportReport(const StudyDocument* document, const QString& format, const QString& path);
// Lays the HTML report out on `printer` (charts rasterised by the report's own path). Returns the
// error shown to the user, empty on success.
QString printReport(const StudyDocument* document, QPrinter* printer);

// The dialogs, replaceable so tests drive Export and Print offscreen: the first returns the path
// to export to (empty: cancelled), the second sets the printer up (false: cancelled).
using ExportPathAsker = std::function<QString(const QString& suggested, const QString& filter)>;
using PrinterAsker = std::function<bool(QPrinter* printer)>;
void setReportDialogs(ExportPathAsker askPath, PrinterAsker askPrinter);

} // namespace kwb::gui
