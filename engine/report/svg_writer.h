// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A few SVG primitives for the report's charts: a plot frame, linear scales with round ticks,
// shapes and text. Text is XML-escaped here, once, so no chart can emit a malformed document.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kwb::report {

struct Frame {
    double left, top, right, bottom;
};

// Maps data [d0, d1] onto pixels [p0, p1] (p1 < p0 for a y axis); ticks at round steps.
struct Scale {
    double d0, d1, p0, p1;
    double operator()(double v) const { return p0 + (v - d0) / (d1 - d0) * (p1 - p0); }
    std::vector<double> ticks() const;
    static Scale nice(double lo, double hi, double p0, double p1);
};

std::string xml_escape(std::string_view text);

// About how wide `s` is drawn at `size` px in DejaVu Sans (0.6 em a character, 0.64 bold),
// counting UTF-8 code points: enough to keep a label inside its chart and off its neighbours.
double text_width(std::string_view s, double size, bool bold = false);

class SvgWriter {
public:
    SvgWriter(double width, double height);
    void line(double x1, double y1, double x2, double y2, const std::string& colour, double width);
    void dashed_line(double x1, double y1, double x2, double y2, const std::string& colour);
    void rect(
        double x, double y, double w, double h, const std::string& fill, double opacity, const std::string& stroke);
    void circle(double x, double y, double r, const std::string& fill, double opacity);
    void diamond(double x, double y, double r, const std::string& fill);
    void polygon(const std::vector<std::pair<double, double>>& pts, const std::string& fill, double opacity,
        const std::string& stroke);
    void polyline(const std::vector<std::pair<double, double>>& pts, const std::string& colour, double width);
    void text(double x, double y, std::string_view s, double size, const char* anchor = "start",
        const std::string& colour = "#000000");
    void text_rotated(double x, double y, std::string_view s, double size);
    // Text turned by `degrees` (clockwise, as SVG turns it) about its start point.
    void text_at_angle(
        double x, double y, std::string_view s, double size, double degrees, const std::string& colour = "#000000");
    // Text on a white, slightly transparent box: readable where it crosses lines (bold by default).
    void label_box(double x, double y, std::string_view s, double size, const char* anchor,
        const std::string& colour = "#000000", bool bold = true);
    void axes(const Frame& f);
    void axes_x(const Frame& f);
    void grid_y(const Frame& f, const Scale& ys);
    void grid_x(const Frame& f, const Scale& xs);
    void ticks_y(const Frame& f, const Scale& ys);
    void ticks_x(const Frame& f, const Scale& xs);
    std::string finish();

private:
    std::string body_;
    double width_, height_;
};

// The width and height attributes of an <svg> document this writer produced.
std::pair<double, double> svg_size(const std::string& svg);

} // namespace kwb::report
