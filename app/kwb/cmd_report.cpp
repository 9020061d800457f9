// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb report`: the verdict report of a study (spec/cli.md). The model, the formats and the charts
// live in engine/report; this maps options to them, writes, and applies --fail-on.
#include "commands.h"
#include "report/render.h"
#include "study/study_file.h"
#include "util/atomic_file.h"
#ifdef KWB_HAVE_RASTER
#include "report/report_fonts.h"
#endif

#include <cstdio>
#include <fmt/format.h>
#include <memory>
#include <set>
#include <sstream>

namespace kwb::cli {
namespace {

struct ReportOptions {
    std::string study;
    std::string format;
    std::string out;
    std::string fail_on;
    std::string command_line;
};

std::set<std::string> parse_fail_on(const std::string& list)
{
    std::set<std::string> words;
    std::stringstream in(list);
    std::string w;
    while (std::getline(in, w, ',')) {
        for (auto& c : w)
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        if (w.empty())
            continue;
        if (w != "KILL" && w != "NOISE" && w != "INCONCLUSIVE" && w != "LICENSE")
            throw BadInput(
                fmt::format("--fail-on: unknown verdict \"{}\" (expected kill, noise, inconclusive or license)", w));
        words.insert(w);
    }
    return words;
}

int run(const ReportOptions& o)
{
    const auto format = report::parse_format(o.format);
    if (!format)
        throw BadInput(fmt::format("--format: unknown format \"{}\" (expected md, html, pdf or json)", o.format));
    const auto fail_on = parse_fail_on(o.fail_on);
    const bool to_stdout = o.out.empty() || o.out == "-";
    if (!to_stdout) // before the work: /dev/null is refused, not replaced by a file
        check_regular_or_absent(o.out);
    if (*format == report::Format::Pdf && !report::raster_available()) {
        fmt::print(stderr, "kwb: --format pdf: {}\n", report::raster_unavailable_reason());
        return kRunFailed;
    }
    report::Report r;
    try {
        r = report::report_from_file(o.study, o.command_line);
    } catch (const StudyLoadError& e) {
        throw BadInput(e.what());
    }
    report::attach_aa_history(r); // the A/A history of this machine's state directory (run/aa_history.h)
    if (!to_stdout) {
        try {
            for (const auto& p : report::write_report(r, *format, o.out))
                fmt::print(stderr, "kwb: wrote {}\n", p.string());
        } catch (const NotARegularFile&) {
            throw; // bad input (a chart's name beside it is a FIFO, say), not a failed write
        } catch (const std::exception& e) {
            fmt::print(stderr, "kwb: {}: {}\n", o.out, e.what());
            return kRunFailed;
        }
    } else {
        std::string text;
        switch (*format) {
        case report::Format::Html:
            text = report::render_html(r);
            break;
        case report::Format::Json:
            text = report::render_json(r).dump(2) + "\n";
            break;
        case report::Format::Pdf:
            text = report::render_pdf(r);
            break;
        case report::Format::Markdown: {
            // Charts need files; on stdout the report says where they would be and keeps tables.
            std::vector<report::Attachment> charts;
            text = report::render_markdown(r, "report", charts);
            if (!charts.empty())
                fmt::print(stderr,
                    "kwb: {} charts not written (Markdown on stdout); use --out FILE to write them beside it\n",
                    charts.size());
            break;
        }
        }
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
    }
#ifdef KWB_HAVE_RASTER
    if (*format == report::Format::Pdf)
        if (const auto& fonts = ensure_report_fonts(); !fonts.problem.empty())
            fmt::print(stderr, "kwb: warning: {}\n", fonts.problem);
#endif
    if (!r.final_word.empty() && fail_on.count(r.final_word)) {
        fmt::print(stderr, "kwb: --fail-on: the final verdict is {}\n", r.final_word);
        return kFailOn;
    }
    return kOk;
}

} // namespace

void add_report_command(CLI::App& app, Action& action, int argc, char** argv)
{
    auto o = std::make_shared<ReportOptions>();
    for (int i = 0; i < argc; ++i)
        o->command_line += (i ? " " : "") + std::string(argv[i]);
    auto* cmd = app.add_subcommand("report", "The verdict report of a study: Markdown, HTML, PDF or JSON");
    cmd->add_option("study", o->study, "The study file")->required();
    cmd->add_option("--format", o->format, "md, html, pdf or json")->required();
    cmd->add_option("--out", o->out, "Write here (Markdown: charts as PNG files beside it); default or -: stdout");
    cmd->add_option("--fail-on", o->fail_on,
        "Comma list of verdicts (kill, noise, inconclusive) that make kwb exit 3 after writing");
    cmd->callback([&action, o] { action = [o] { return run(*o); }; });
}

} // namespace kwb::cli
