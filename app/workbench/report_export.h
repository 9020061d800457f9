// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// File > Export (PDF, HTML, Markdown, JSON) and File > Print: the window's side of the verdict
// report. Everything is rendered by engine/report from the open study, exactly as `kwb report`
// renders it; this only asks where to write and drives the printer.
class QMenu;
class QWidget;

namespace kwb::gui {

class StudyDocument;

void addReportActions(QMenu* file, QWidget* parent, const StudyDocument* document);

} // namespace kwb::gui
