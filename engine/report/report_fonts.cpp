// SPDX-License-Identifier: GPL-3.0-or-later
#include "report/report_fonts.h"

#include <cstdlib>
#include <filesystem>
#include <fontconfig/fontconfig.h>
#include <mutex>
#include <system_error>
#include <vector>

namespace kwb {
namespace {

namespace fs = std::filesystem;

constexpr const char* kFamily = "DejaVu Sans";
constexpr const char* kFaces[] = {"DejaVuSans.ttf", "DejaVuSans-Bold.ttf"};

bool config_has_family(FcConfig* config)
{
    FcPattern* pattern = FcPatternCreate();
    FcPatternAddString(pattern, FC_FAMILY, reinterpret_cast<const FcChar8*>(kFamily));
    FcObjectSet* objects = FcObjectSetBuild(FC_FAMILY, FC_FILE, nullptr);
    FcFontSet* found = FcFontList(config, pattern, objects);
    const bool any = found && found->nfont > 0;
    if (found)
        FcFontSetDestroy(found);
    FcObjectSetDestroy(objects);
    FcPatternDestroy(pattern);
    return any;
}

std::vector<std::string> candidate_dirs()
{
    std::vector<std::string> dirs;
    if (const char* env = std::getenv("KWB_FONT_DIR"); env && *env)
        dirs.emplace_back(env);
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec)
        dirs.push_back((exe.parent_path().parent_path() / "share" / "kernel-workbench" / "fonts").string());
#ifdef KWB_BUILD_FONT_DIR
    dirs.emplace_back(KWB_BUILD_FONT_DIR);
#endif
    return dirs;
}

} // namespace

ReportFonts setup_report_fonts(const std::string& dir)
{
    ReportFonts out;
    // fontconfig prints its complaints about a missing configuration itself; they are the
    // symptom this answers, so the configuration is loaded quietly first.
    FcConfig* current = FcConfigGetCurrent();
    if (current && config_has_family(current)) {
        out.system_had_them = true;
        return out;
    }
    FcConfig* own = FcConfigCreate();
    int added = 0;
    for (const char* face : kFaces) {
        const std::string file = (fs::path(dir) / face).string();
        if (fs::exists(file) && FcConfigAppFontAddFile(own, reinterpret_cast<const FcChar8*>(file.c_str())))
            ++added;
    }
    if (added == 0 || !config_has_family(own)) {
        FcConfigDestroy(own);
        out.problem = "no DejaVu Sans face: fontconfig finds none and " + (dir.empty() ? std::string("no folder") : dir)
            + " has none; chart labels may be missing (install fonts-dejavu-core or set KWB_FONT_DIR)";
        return out;
    }
    FcConfigSetCurrent(own); // the configuration now belongs to fontconfig
    FcConfigDestroy(own);
    out.shipped_dir = dir;
    return out;
}

const ReportFonts& ensure_report_fonts()
{
    static ReportFonts fonts;
    static std::once_flag once;
    std::call_once(once, [] {
        for (const auto& dir : candidate_dirs()) {
            fonts = setup_report_fonts(dir);
            if (fonts.problem.empty())
                return;
        }
        if (fonts.problem.empty())
            fonts.problem = "no DejaVu Sans face found; chart labels may be missing";
    });
    return fonts;
}

} // namespace kwb
