// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb trace`: a study's run timeline as Chrome trace-event JSON for Perfetto and chrome://tracing.
#include "commands.h"
#include "report/trace.h"
#include "study/study_file.h"
#include "util/atomic_file.h"

#include <cstdio>
#include <fmt/format.h>
#include <memory>

namespace kwb::cli {
namespace {

struct TraceOptions {
    std::string study;
    std::string out;
};

int run(const TraceOptions& o)
{
    const bool to_stdout = o.out == "-";
    if (!to_stdout) // before the work: /dev/null is refused, not replaced by a file
        check_regular_or_absent(o.out);
    Study study;
    try {
        study = load_study(o.study);
    } catch (const StudyLoadError& e) {
        throw BadInput(e.what());
    }
    const auto trace = report::trace_of(study);
    if (to_stdout) {
        const std::string text = trace.dump() + "\n";
        std::fwrite(text.data(), 1, text.size(), stdout);
        return kOk; // main checks stdout
    }
    try {
        write_file_atomically(o.out, trace.dump() + "\n");
    } catch (const NotARegularFile&) {
        throw; // made one since the check above: still bad input
    } catch (const std::exception& e) {
        fmt::print(stderr, "kwb: {}: {}\n", o.out, e.what());
        return kRunFailed;
    }
    fmt::print(stderr, "kwb: wrote {} ({} events)\n", o.out, trace.at("traceEvents").size());
    return kOk;
}

} // namespace

void add_trace_command(CLI::App& app, Action& action)
{
    auto o = std::make_shared<TraceOptions>();
    auto* cmd
        = app.add_subcommand("trace", "A study's run timeline as Chrome trace-event JSON (Perfetto, chrome://tracing)");
    cmd->add_option("study", o->study, "The study file")->required();
    cmd->add_option("--out", o->out, "The trace file to write (-: stdout)")->required();
    cmd->callback([&action, o] { action = [o] { return run(*o); }; });
}

} // namespace kwb::cli
