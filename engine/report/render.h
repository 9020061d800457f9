// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The report's formats, each rendered from the same model (report_model.h) and, for the human
// ones, the same blocks (report_document.h). docs/report.md documents them and the JSON schema.

#include "report/report_model.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kwb::report {

enum class Format { Markdown, Html, Pdf, Json };
std::optional<Format> parse_format(std::string_view text); // "md", "markdown", "html", "pdf", "json"

// 2: experiments[].cells removed (a grid is reported once, in grids[]); docs/report.md says more.
inline constexpr int kReportJsonSchemaVersion = 2;

// A file that goes beside the report (a Markdown report's charts).
struct Attachment {
    std::string name; // file name, relative to the report's folder
    std::string bytes;
};

// Markdown; charts become PNG attachments `<stem>-<chart>.png` (SVG where PNG is unavailable).
std::string render_markdown(const Report& r, const std::string& stem, std::vector<Attachment>& attachments);
// One self-contained HTML document (well-formed XML, charts inline as SVG, no external reference).
std::string render_html(const Report& r);
// The machine-readable summary (schema kReportJsonSchemaVersion).
nlohmann::json render_json(const Report& r);

// PDF and PNG need librsvg and cairo at build time (KWB_HAVE_RASTER).
bool raster_available();
// Why not, in one line, when unavailable.
std::string raster_unavailable_reason();
// Throws std::runtime_error when unavailable or the SVG does not render.
std::string svg_to_png(const std::string& svg, double scale = 2.0);
std::string render_pdf(const Report& r);

// Renders `format` and writes it to `out` (atomically) with its attachments beside it.
// Returns the paths written.
std::vector<std::filesystem::path> write_report(const Report& r, Format format, const std::filesystem::path& out);

} // namespace kwb::report
