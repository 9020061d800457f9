// SPDX-License-Identifier: GPL-3.0-or-later
// PDF and PNG through cairo and librsvg (Debian: libcairo2-dev, librsvg2-dev). The charts are
// the same SVG documents the HTML embeds, rasterised by librsvg; the PDF lays the same blocks
// as Markdown and HTML onto A4 pages with cairo's text API. Built only where the libraries are
// found (KWB_HAVE_RASTER); elsewhere PDF and PNG say why in one line.
#include "report/render.h"
#include "report/report_document.h"
#include "report/svg_writer.h"

#include <stdexcept>

#ifdef KWB_HAVE_RASTER
#include "report/report_fonts.h"

#include <algorithm>
#include <cairo-pdf.h>
#include <cairo.h>
#include <cmath>
#include <librsvg/rsvg.h>
#endif

namespace kwb::report {

#ifndef KWB_HAVE_RASTER

bool raster_available()
{
    return false;
}
std::string raster_unavailable_reason()
{
    return "PDF and PNG output need librsvg and cairo, which this kwb was built without "
           "(install librsvg2-dev and libcairo2-dev and rebuild); SVG, HTML, Markdown and JSON work";
}
std::string svg_to_png(const std::string&, double)
{
    throw std::runtime_error(raster_unavailable_reason());
}
std::string render_pdf(const Report&)
{
    throw std::runtime_error(raster_unavailable_reason());
}

#else

namespace {

cairo_status_t append(void* closure, const unsigned char* data, unsigned int length)
{
    static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
    return CAIRO_STATUS_SUCCESS;
}

struct Svg {
    RsvgHandle* handle = nullptr;
    explicit Svg(const std::string& text)
    {
        GError* error = nullptr;
        ensure_report_fonts();
        handle = rsvg_handle_new_from_data(reinterpret_cast<const guint8*>(text.data()), text.size(), &error);
        if (!handle) {
            std::string what = error ? error->message : "unknown error";
            if (error)
                g_error_free(error);
            throw std::runtime_error("chart SVG does not load: " + what);
        }
    }
    ~Svg() { g_object_unref(handle); }
    Svg(const Svg&) = delete;
    Svg& operator=(const Svg&) = delete;
    void render(cairo_t* cr, double x, double y, double w, double h) const
    {
        RsvgRectangle viewport {x, y, w, h};
        GError* error = nullptr;
        if (!rsvg_handle_render_document(handle, cr, &viewport, &error)) {
            std::string what = error ? error->message : "unknown error";
            if (error)
                g_error_free(error);
            throw std::runtime_error("chart SVG does not render: " + what);
        }
    }
};

// A4 in points, with 40 pt margins.
constexpr double kPageW = 595.276, kPageH = 841.89, kMargin = 40;

class PdfLayout {
public:
    explicit PdfLayout(std::string& out)
    {
        ensure_report_fonts();
        surface_ = cairo_pdf_surface_create_for_stream(append, &out, kPageW, kPageH);
        cr_ = cairo_create(surface_);
        y_ = kMargin;
    }
    ~PdfLayout()
    {
        cairo_destroy(cr_);
        cairo_surface_finish(surface_);
        cairo_surface_destroy(surface_);
    }
    PdfLayout(const PdfLayout&) = delete;
    PdfLayout& operator=(const PdfLayout&) = delete;

    void heading(const std::string& text, int level)
    {
        const double size = level == 1 ? 17 : level == 2 ? 13.5 : 11;
        need(size * 3);
        y_ += level == 1 ? 0 : size * 0.8;
        font(size, true);
        for (const auto& line : wrap(text, width()))
            show(kMargin, line, size);
        if (level == 2) {
            cairo_set_source_rgb(cr_, 0.75, 0.75, 0.75);
            cairo_move_to(cr_, kMargin, y_ - size * 0.15);
            cairo_line_to(cr_, kPageW - kMargin, y_ - size * 0.15);
            cairo_set_line_width(cr_, 0.6);
            cairo_stroke(cr_);
            cairo_set_source_rgb(cr_, 0, 0, 0);
        }
        y_ += 3;
    }

    void paragraph(const std::string& text, double indent = 0, const char* bullet = nullptr)
    {
        font(9.5, false);
        bool first = true;
        for (const auto& line : wrap(text, width() - indent)) {
            need(13);
            if (bullet && first) {
                cairo_move_to(cr_, kMargin + indent - 9, y_ + 9.5);
                cairo_show_text(cr_, bullet);
            }
            show(kMargin + indent, line, 9.5);
            first = false;
        }
        y_ += 4;
    }

    void verdict(const std::string& word, const std::vector<std::string>& reasons, const std::string& colour)
    {
        need(40);
        const unsigned v = static_cast<unsigned>(std::stoul(colour.substr(1), nullptr, 16));
        cairo_set_source_rgb(cr_, ((v >> 16) & 0xff) / 255.0, ((v >> 8) & 0xff) / 255.0, (v & 0xff) / 255.0);
        cairo_rectangle(cr_, kMargin, y_, 180, 30);
        cairo_fill(cr_);
        cairo_set_source_rgb(cr_, 1, 1, 1);
        font(15, true);
        cairo_text_extents_t ext;
        cairo_text_extents(cr_, word.c_str(), &ext);
        cairo_move_to(cr_, kMargin + 90 - ext.width / 2 - ext.x_bearing, y_ + 20.5);
        cairo_show_text(cr_, word.c_str());
        cairo_set_source_rgb(cr_, 0, 0, 0);
        y_ += 36;
        for (const auto& r : reasons)
            paragraph(r, 12, "-");
    }

    void table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows)
    {
        const std::size_t cols = header.size();
        // Natural widths at 8 pt: a column is as wide as its widest cell and its longest header
        // word (headers wrap between words, numbers never). A table wider than the text shrinks its
        // font (not below 5 pt); what still does not fit is shared in proportion and wrapped.
        double size = 8;
        std::vector<double> natural(cols, 0);
        auto measure = [&](double s) {
            std::fill(natural.begin(), natural.end(), 0.0);
            for (std::size_t c = 0; c < cols; ++c) {
                font(s, true);
                std::size_t i = 0;
                while (i <= header[c].size()) {
                    const std::size_t j = std::min(header[c].find(' ', i), header[c].size());
                    natural[c] = std::max(natural[c], text_width(header[c].substr(i, j - i)) + 8);
                    i = j + 1;
                }
                font(s, false);
                for (const auto& r : rows)
                    if (c < r.size())
                        natural[c] = std::max(natural[c], text_width(r[c]) + 8);
            }
            double t = 0;
            for (double w : natural)
                t += w;
            return t;
        };
        double total = measure(size);
        if (total > width() && cols > 3) {
            size = std::max(5.0, size * width() / total);
            total = measure(size);
        }
        std::vector<double> widths = natural;
        if (total > width()) {
            // Columns narrower than an equal share keep their width; the others share the rest.
            const double share = width() / static_cast<double>(cols);
            double fixed = 0, flexible = 0;
            for (double w : natural)
                (w <= share ? fixed : flexible) += w;
            for (auto& w : widths)
                if (w > share)
                    w = (width() - fixed) * w / flexible;
        }
        auto draw_row = [&](const std::vector<std::string>& cells, bool head) {
            font(size, head);
            std::vector<std::vector<std::string>> lines(cols);
            std::size_t height = 1;
            for (std::size_t c = 0; c < cols; ++c) {
                lines[c] = wrap(c < cells.size() ? cells[c] : "", widths[c] - 8);
                height = std::max(height, lines[c].size());
            }
            const double line_h = size * 1.3;
            const double row_h = static_cast<double>(height) * line_h + 4;
            need(row_h);
            double x = kMargin;
            for (std::size_t c = 0; c < cols; ++c) {
                if (head) {
                    cairo_set_source_rgb(cr_, 0.94, 0.94, 0.94);
                    cairo_rectangle(cr_, x, y_, widths[c], row_h);
                    cairo_fill(cr_);
                }
                cairo_set_source_rgb(cr_, 0.78, 0.78, 0.78);
                cairo_set_line_width(cr_, 0.5);
                cairo_rectangle(cr_, x, y_, widths[c], row_h);
                cairo_stroke(cr_);
                cairo_set_source_rgb(cr_, 0, 0, 0);
                for (std::size_t k = 0; k < lines[c].size(); ++k) {
                    cairo_move_to(cr_, x + 4, y_ + 2 + size + static_cast<double>(k) * line_h);
                    cairo_show_text(cr_, lines[c][k].c_str());
                }
                x += widths[c];
            }
            y_ += row_h;
        };
        draw_row(header, true);
        for (const auto& r : rows)
            draw_row(r, false);
        y_ += 8;
    }

    void chart(const Chart& c)
    {
        const Svg svg(c.svg);
        // Charts are drawn at 96 px per inch; PDF points are 72 per inch. Never wider than the text.
        double w = c.width * 0.75, h = c.height * 0.75;
        if (w > width()) {
            h *= width() / w;
            w = width();
        }
        need(h + 24);
        svg.render(cr_, kMargin, y_, w, h);
        y_ += h + 2;
        font(8, false);
        cairo_set_source_rgb(cr_, 0.33, 0.33, 0.33);
        show(kMargin, c.title, 8);
        cairo_set_source_rgb(cr_, 0, 0, 0);
        y_ += 6;
    }

private:
    double width() const { return kPageW - 2 * kMargin; }

    void font(double size, bool bold)
    {
        cairo_select_font_face(
            cr_, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
        cairo_set_font_size(cr_, size);
    }

    double text_width(const std::string& s)
    {
        cairo_text_extents_t ext;
        cairo_text_extents(cr_, s.c_str(), &ext);
        return ext.x_advance;
    }

    // Greedy word wrap; a word wider than the line is cut where it must be.
    std::vector<std::string> wrap(const std::string& text, double w)
    {
        std::vector<std::string> out;
        std::string line;
        std::size_t i = 0;
        while (i <= text.size()) {
            const std::size_t j = std::min(text.find(' ', i), text.size());
            std::string word = text.substr(i, j - i);
            const std::string candidate = line.empty() ? word : line + " " + word;
            if (text_width(candidate) <= w || line.empty()) {
                line = candidate;
            } else {
                out.push_back(line);
                line = word;
            }
            while (text_width(line) > w && line.size() > 1) {
                std::size_t cut = line.size() - 1;
                while (cut > 1 && text_width(line.substr(0, cut)) > w)
                    --cut;
                while (cut > 1 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80)
                    --cut; // never split a UTF-8 character
                out.push_back(line.substr(0, cut));
                line = line.substr(cut);
            }
            i = j + 1;
        }
        out.push_back(line);
        return out;
    }

    void show(double x, const std::string& line, double size)
    {
        need(size * 1.35);
        cairo_move_to(cr_, x, y_ + size);
        cairo_show_text(cr_, line.c_str());
        y_ += size * 1.35;
    }

    void need(double h)
    {
        if (y_ + h <= kPageH - kMargin)
            return;
        cairo_show_page(cr_);
        y_ = kMargin;
    }

    cairo_surface_t* surface_ = nullptr;
    cairo_t* cr_ = nullptr;
    double y_ = 0;
};

} // namespace

bool raster_available()
{
    return true;
}
std::string raster_unavailable_reason()
{
    return {};
}

std::string svg_to_png(const std::string& text, double scale)
{
    const Svg svg(text);
    const auto [w, h] = svg_size(text);
    const int pw = static_cast<int>(std::ceil(w * scale)), ph = static_cast<int>(std::ceil(h * scale));
    cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, pw, ph);
    cairo_t* cr = cairo_create(surface);
    std::string out;
    try {
        svg.render(cr, 0, 0, pw, ph);
    } catch (...) {
        cairo_destroy(cr);
        cairo_surface_destroy(surface);
        throw;
    }
    cairo_surface_write_to_png_stream(surface, append, &out);
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
    return out;
}

std::string render_pdf(const Report& r)
{
    std::string out;
    {
        PdfLayout pdf(out);
        for (const auto& b : document_of(r)) {
            switch (b.kind) {
            case Block::Kind::Heading:
                pdf.heading(b.text, b.level);
                break;
            case Block::Kind::Paragraph: {
                std::string text = b.text; // `code` marks are Markdown's and HTML's, not the PDF's
                text.erase(std::remove(text.begin(), text.end(), '`'), text.end());
                pdf.paragraph(text);
                break;
            }
            case Block::Kind::Verdict:
                pdf.verdict(b.text, b.items, verdict_colour(b.text));
                break;
            case Block::Kind::List:
                for (const auto& i : b.items)
                    pdf.paragraph(i, 12, "-");
                break;
            case Block::Kind::Table:
                pdf.table(b.header, b.rows);
                break;
            case Block::Kind::Chart:
                pdf.chart(b.chart);
                break;
            }
        }
    }
    return out;
}

#endif

} // namespace kwb::report
