// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb trace`: a study's run timeline as Chrome trace-event JSON for Perfetto and chrome://tracing.
#include "commands.h"
#include "report/trace.h"
#include "study/study_file.h"
#include "util/atomic_file.h"

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
    Study study;
    try {
        study = load_study(o.study);
    } catch (const StudyLoadError& e) {
        throw BadInput(e.what());
    }
    const auto trace = report::trace_of(study);
    try {
        write_file_atomically(o.out, trace.dump() + "\n");
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
    cmd->add_option("--out", o->out, "The trace file to write")->required();
    cmd->callback([&action, o] { action = [o] { return run(*o); }; });
}

} // namespace kwb::cli
