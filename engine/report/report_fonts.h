// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

// The reports' own font (issue 32): PNG and PDF charts go through librsvg (Pango) and cairo, both
// of which find fonts through fontconfig. On a machine with no fontconfig configuration (the H200
// server: "Fontconfig error: Cannot load default config file") every label, tick and legend of a
// chart came out empty and the PDF fell back to an unnamed Type 3 font. So before the first
// raster, when fontconfig cannot name a "DejaVu Sans" face, kwb makes a fontconfig configuration of
// its own from the DejaVu faces it ships (share/kernel-workbench/fonts beside bin/, as the package
// and the remote bundle install them) and makes it current for the process.
namespace kwb {

struct ReportFonts {
    bool system_had_them = false; // fontconfig found DejaVu Sans as configured
    std::string shipped_dir; // the folder of the faces added, when kwb added its own
    std::string problem; // empty, or why the charts may lack their text (one line)
};

// Once per process (later calls return the first answer). Where the faces are looked for, first
// found: $KWB_FONT_DIR, <executable>/../share/kernel-workbench/fonts, the build tree's copy.
const ReportFonts& ensure_report_fonts();

// The same from a given folder, for tests; not once-guarded.
ReportFonts setup_report_fonts(const std::string& dir);

} // namespace kwb
