// SPDX-License-Identifier: GPL-3.0-or-later
// Markdown and HTML: two typographies of the same blocks.
#include "report/render.h"
#include "report/report_document.h"
#include "report/svg_writer.h"

#include <fmt/format.h>

namespace kwb::report {
namespace {

// Markdown table cells: a pipe would end the cell, a newline the row.
std::string md_cell(const std::string& s)
{
    std::string out;
    for (char c : s) {
        if (c == '|')
            out += "\\|";
        else if (c == '\n')
            out += ' ';
        else
            out += c;
    }
    return out.empty() ? " " : out;
}

const char* kCss
    = R"(body{font-family:"DejaVu Sans",Helvetica,Arial,sans-serif;max-width:1100px;margin:24px auto;padding:0 16px;color:#212121;font-size:14px}
h1{font-size:24px}h2{font-size:19px;border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:32px}h3{font-size:15px;margin-top:20px}
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #c8c8c8;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f0f0f0}td.num{text-align:right}code{background:#f4f4f4;padding:1px 4px}
.verdict{display:inline-block;color:#fff;font-weight:bold;font-size:20px;padding:10px 40px;border-radius:4px;margin:8px 0}
figure{margin:12px 0}figcaption{font-size:12px;color:#555}svg{max-width:100%;height:auto}
@media print{body{max-width:none}figure,table{page-break-inside:avoid}})";

bool numeric(const std::string& s)
{
    return !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || (s[0] == '-' && s.size() > 1));
}

// `code` spans in paragraphs (the formula), escaped for HTML.
std::string html_inline(const std::string& s)
{
    std::string out;
    bool code = false;
    for (char c : s) {
        if (c == '`') {
            out += code ? "</code>" : "<code>";
            code = !code;
        } else {
            out += xml_escape(std::string(1, c));
        }
    }
    if (code)
        out += "</code>";
    return out;
}

} // namespace

std::string render_markdown(const Report& r, const std::string& stem, std::vector<Attachment>& attachments)
{
    std::string md;
    for (const auto& b : document_of(r)) {
        switch (b.kind) {
        case Block::Kind::Heading:
            md += fmt::format("{} {}\n\n", std::string(static_cast<std::size_t>(b.level), '#'), b.text);
            break;
        case Block::Kind::Paragraph:
            md += b.text + "\n\n";
            break;
        case Block::Kind::Verdict:
            md += fmt::format("**Verdict: {}**\n\n", b.text);
            for (const auto& i : b.items)
                md += "> " + i + "\n>\n";
            md += "\n";
            break;
        case Block::Kind::List:
            for (const auto& i : b.items)
                md += "- " + i + "\n";
            md += "\n";
            break;
        case Block::Kind::Table: {
            std::string sep;
            md += "|";
            for (const auto& h : b.header) {
                md += " " + md_cell(h) + " |";
                sep += " --- |";
            }
            md += "\n|" + sep + "\n";
            for (const auto& row : b.rows) {
                md += "|";
                for (const auto& c : row)
                    md += " " + md_cell(c) + " |";
                md += "\n";
            }
            md += "\n";
            break;
        }
        case Block::Kind::Chart: {
            const bool png = raster_available();
            Attachment a {fmt::format("{}-{}.{}", stem, b.chart.name, png ? "png" : "svg"),
                png ? svg_to_png(b.chart.svg) : b.chart.svg};
            md += fmt::format("![{}]({})\n\n*{}*\n\n", b.chart.title, a.name, b.chart.title);
            attachments.push_back(std::move(a));
            break;
        }
        }
    }
    return md;
}

std::string render_html(const Report& r)
{
    std::string h = "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
                    "<meta charset=\"utf-8\"/>\n";
    h += fmt::format(
        "<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n", xml_escape("Verdict report: " + r.name), kCss);
    for (const auto& b : document_of(r)) {
        switch (b.kind) {
        case Block::Kind::Heading:
            h += fmt::format("<h{0}>{1}</h{0}>\n", b.level, xml_escape(b.text));
            break;
        case Block::Kind::Paragraph:
            h += "<p>" + html_inline(b.text) + "</p>\n";
            break;
        case Block::Kind::Verdict:
            h += fmt::format("<div class=\"verdict\" style=\"background:{}\">{}</div>\n<ul>\n", verdict_colour(b.text),
                xml_escape(b.text));
            for (const auto& i : b.items)
                h += "<li>" + xml_escape(i) + "</li>\n";
            h += "</ul>\n";
            break;
        case Block::Kind::List:
            h += "<ul>\n";
            for (const auto& i : b.items)
                h += "<li>" + xml_escape(i) + "</li>\n";
            h += "</ul>\n";
            break;
        case Block::Kind::Table:
            h += "<table>\n<tr>";
            for (const auto& c : b.header)
                h += "<th>" + xml_escape(c) + "</th>";
            h += "</tr>\n";
            for (const auto& row : b.rows) {
                h += "<tr>";
                for (const auto& c : row)
                    h += (numeric(c) ? "<td class=\"num\">" : "<td>") + xml_escape(c) + "</td>";
                h += "</tr>\n";
            }
            h += "</table>\n";
            break;
        case Block::Kind::Chart: {
            // Inline SVG: no file, no network, and still well-formed XML.
            h += fmt::format(
                "<figure>\n{}<figcaption>{}</figcaption>\n</figure>\n", b.chart.svg, xml_escape(b.chart.title));
            break;
        }
        }
    }
    h += "</body>\n</html>\n";
    return h;
}

} // namespace kwb::report
