// SPDX-License-Identifier: GPL-3.0-or-later
#include "report/svg_writer.h"

#include "verdict/wording.h"

#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

namespace kwb::report {

std::vector<double> Scale::ticks() const
{
    const double lo = std::min(d0, d1), hi = std::max(d0, d1);
    const double raw = (hi - lo) / 6;
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(raw > 0))
        return {};
    const double mag = std::pow(10, std::floor(std::log10(raw)));
    double step = mag;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * mag >= raw) {
            step = m * mag;
            break;
        }
    // Counted, not accumulated: a step below the spacing of doubles at this magnitude (a range
    // of 1e-14 around 75) would never advance `t += step`. About 6 ticks; 64 is a hard bound.
    std::vector<double> out;
    const double first = std::ceil(lo / step);
    for (int k = 0; k < 64; ++k) {
        const double t = (first + k) * step;
        if (t > hi + step * 1e-9)
            break;
        out.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
    }
    return out;
}

Scale Scale::nice(double lo, double hi, double p0, double p1)
{
    // A range too narrow to draw at its magnitude (readings equal but for rounding, 75.60975609755230
    // and ...232) is drawn as a flat one, +-1 around it.
    if (!(hi - lo > 1e-9 * std::max(std::fabs(lo), std::fabs(hi)))) {
        const double mid = std::isfinite(lo + hi) ? (lo + hi) / 2 : 0;
        lo = mid - 1;
        hi = mid + 1;
    }
    return Scale {lo, hi, p0, p1};
}

std::string xml_escape(std::string_view text)
{
    std::string out;
    for (char c : text) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&apos;";
            break;
        default:
            // Control characters are not allowed in XML 1.0; drop them.
            if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t')
                out += c;
        }
    }
    return out;
}

SvgWriter::SvgWriter(double width, double height)
    : width_(width)
    , height_(height)
{
}

void SvgWriter::line(double x1, double y1, double x2, double y2, const std::string& colour, double width)
{
    body_ += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="{}"/>)"
                         "\n",
        x1, y1, x2, y2, colour, width);
}

void SvgWriter::dashed_line(double x1, double y1, double x2, double y2, const std::string& colour)
{
    body_ += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="1.5" )"
                         R"(stroke-dasharray="5,3"/>)"
                         "\n",
        x1, y1, x2, y2, colour);
}

void SvgWriter::rect(
    double x, double y, double w, double h, const std::string& fill, double opacity, const std::string& stroke)
{
    body_
        += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}" fill-opacity="{:.2f}")",
            x, y, w, h, fill, opacity);
    body_ += stroke.empty() ? "/>\n"
                            : fmt::format(R"( stroke="{}" stroke-width="1"/>)"
                                          "\n",
                                stroke);
}

void SvgWriter::circle(double x, double y, double r, const std::string& fill, double opacity)
{
    body_
        += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="{:.1f}" fill="{}" fill-opacity="{:.2f}" stroke="#000000" )"
                       R"(stroke-opacity="0.35" stroke-width="0.6"/>)"
                       "\n",
            x, y, r, fill, opacity);
}

void SvgWriter::diamond(double x, double y, double r, const std::string& fill)
{
    polygon({{x, y - r}, {x + r, y}, {x, y + r}, {x - r, y}}, fill, 1.0, "#000000");
}

void SvgWriter::polygon(const std::vector<std::pair<double, double>>& pts, const std::string& fill, double opacity,
    const std::string& stroke)
{
    std::string p;
    for (const auto& [x, y] : pts)
        p += fmt::format("{:.1f},{:.1f} ", x, y);
    body_ += fmt::format(R"(<polygon points="{}" fill="{}" fill-opacity="{:.2f}" stroke="{}" stroke-width="1"/>)"
                         "\n",
        p, fill, opacity, stroke.empty() ? "none" : stroke);
}

void SvgWriter::polyline(const std::vector<std::pair<double, double>>& pts, const std::string& colour, double width)
{
    std::string p;
    for (const auto& [x, y] : pts)
        p += fmt::format("{:.1f},{:.1f} ", x, y);
    body_ += fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="{}"/>)"
                         "\n",
        p, colour, width);
}

void SvgWriter::text(double x, double y, std::string_view s, double size, const char* anchor, const std::string& colour)
{
    body_ += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="{}" text-anchor="{}" fill="{}">{}</text>)"
                         "\n",
        x, y, size, anchor, colour, xml_escape(s));
}

void SvgWriter::text_rotated(double x, double y, std::string_view s, double size)
{
    body_ += fmt::format(R"(<text x="{0:.1f}" y="{1:.1f}" font-size="{2}" text-anchor="middle" )"
                         R"svg(transform="rotate(-90 {0:.1f} {1:.1f})">{3}</text>)svg"
                         "\n",
        x, y, size, xml_escape(s));
}

void SvgWriter::text_at_angle(
    double x, double y, std::string_view s, double size, double degrees, const std::string& colour)
{
    body_ += fmt::format(R"(<text x="{0:.1f}" y="{1:.1f}" font-size="{2}" fill="{3}" )"
                         R"svg(transform="rotate({4:.2f} {0:.1f} {1:.1f})">{5}</text>)svg"
                         "\n",
        x, y, size, colour, degrees, xml_escape(s));
}

double text_width(std::string_view s, double size, bool bold)
{
    std::size_t chars = 0;
    for (unsigned char c : s)
        chars += (c & 0xC0) != 0x80; // count UTF-8 code points, not bytes
    return (bold ? 0.64 : 0.6) * size * static_cast<double>(chars);
}

void SvgWriter::label_box(
    double x, double y, std::string_view s, double size, const char* anchor, const std::string& colour, bool bold)
{
    const double w = text_width(s, size, bold) + 8;
    const std::string_view a(anchor);
    // The box reaches 4 px past the text on each side; the text keeps its anchor.
    const double x0 = a == "middle" ? x - w / 2 : a == "end" ? x - w + 4 : x - 4;
    rect(x0, y - size, w, size + 6, "#ffffff", 0.82, "");
    body_ += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="{}"{} text-anchor="{}" fill="{}">{}</text>)"
                         "\n",
        x, y, size, bold ? R"( font-weight="bold")" : "", anchor, colour, xml_escape(s));
}

void SvgWriter::axes(const Frame& f)
{
    line(f.left, f.top, f.left, f.bottom, "#000000", 1);
    line(f.left, f.bottom, f.right, f.bottom, "#000000", 1);
}

void SvgWriter::axes_x(const Frame& f)
{
    line(f.left, f.bottom, f.right, f.bottom, "#000000", 1);
}

void SvgWriter::grid_y(const Frame& f, const Scale& ys)
{
    for (double t : ys.ticks())
        body_ += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="#b4b4b4" )"
                             R"(stroke-width="0.8" stroke-dasharray="1,3"/>)"
                             "\n",
            f.left, ys(t), f.right, ys(t));
}

void SvgWriter::grid_x(const Frame& f, const Scale& xs)
{
    for (double t : xs.ticks())
        body_ += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="#b4b4b4" )"
                             R"(stroke-width="0.8" stroke-dasharray="1,3"/>)"
                             "\n",
            xs(t), f.top, xs(t), f.bottom);
}

void SvgWriter::ticks_y(const Frame& f, const Scale& ys)
{
    for (double t : ys.ticks()) {
        line(f.left - 4, ys(t), f.left, ys(t), "#000000", 1);
        text(f.left - 7, ys(t) + 4, wording::num(t), 11, "end");
    }
}

void SvgWriter::ticks_x(const Frame& f, const Scale& xs)
{
    for (double t : xs.ticks()) {
        line(xs(t), f.bottom, xs(t), f.bottom + 4, "#000000", 1);
        text(xs(t), f.bottom + 16, wording::num(t), 11, "middle");
    }
}

std::string SvgWriter::finish()
{
    return fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" )"
                       R"(font-family="DejaVu Sans, Helvetica, Arial, sans-serif">)"
                       "\n"
                       R"(<rect x="0" y="0" width="{0}" height="{1}" fill="#ffffff"/>)"
                       "\n{2}</svg>\n",
        width_, height_, body_);
}

std::pair<double, double> svg_size(const std::string& svg)
{
    auto attr = [&](const char* name) {
        const auto p = svg.find(name);
        return p == std::string::npos ? 0.0
                                      : std::strtod(svg.c_str() + p + std::char_traits<char>::length(name), nullptr);
    };
    return {attr("width=\""), attr("height=\"")};
}

} // namespace kwb::report
