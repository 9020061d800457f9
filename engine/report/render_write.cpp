// SPDX-License-Identifier: GPL-3.0-or-later
#include "report/render.h"
#include "util/atomic_file.h"

namespace kwb::report {

std::optional<Format> parse_format(std::string_view text)
{
    if (text == "md" || text == "markdown")
        return Format::Markdown;
    if (text == "html")
        return Format::Html;
    if (text == "pdf")
        return Format::Pdf;
    if (text == "json")
        return Format::Json;
    return std::nullopt;
}

std::vector<std::filesystem::path> write_report(const Report& r, Format format, const std::filesystem::path& out)
{
    std::vector<std::filesystem::path> written;
    std::string text;
    std::vector<Attachment> attachments;
    switch (format) {
    case Format::Markdown:
        text = render_markdown(r, out.stem().string(), attachments);
        break;
    case Format::Html:
        text = render_html(r);
        break;
    case Format::Pdf:
        text = render_pdf(r);
        break;
    case Format::Json:
        text = render_json(r).dump(2) + "\n";
        break;
    }
    const auto dir = out.parent_path();
    for (const auto& a : attachments) {
        write_file_atomically(dir / a.name, a.bytes);
        written.push_back(dir / a.name);
    }
    write_file_atomically(out, text);
    written.insert(written.begin(), out);
    return written;
}

} // namespace kwb::report
