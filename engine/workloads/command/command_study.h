// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/plan_limits.h"
#include "study/study.h"

#include <stdexcept>
#include <string>
#include <vector>

// A new command A/B study (docs/adapters.md): what `kwb new --baseline-cmd ... --treatment-cmd ...`
// writes and what the window's File > New command A/B creates, by one rule. The request names
// each arm's command (with its own cwd, env, timeout, check command; one adapter for both, so the
// arms are read alike), the metric, and the plan; the study comes back ready to save, or a
// CommandStudyError names the field that is wrong.
namespace kwb::command {

struct CommandStudyRequest {
    CommandSpec baseline;
    CommandSpec treatment; // its adapter and adapter_options must equal the baseline's
    std::string metric; // empty: the adapter's default (default_metric)
    std::string name; // empty: "command A/B: <metric>"
    std::vector<std::string> guards;
    RunPlan plan = default_plan();
    std::string profile = "generic";
    bool aa_arm = false; // a third arm, role aa: the baseline command run again (study/arm_roles.h)
    // Where the commands run: "cuda" (they use the GPU at kwb run's --device, recorded as the
    // experiment's device), "cpu", or "auto" (the CPU, unless the run names a device where a GPU is:
    // run/runnability.h).
    std::string backend = "auto";
    // Fingerprint fields the arms are expected to report differently (the benchmark's name when
    // the two programs name theirs apart): reported with the verdict, not blockers. Each must be a
    // field the adapter reports (command::fingerprint_fields).
    std::vector<std::string> expect_differ;

    // kwb new's defaults: kDefaultRunsPerArm, one warm-up, ABBA; no launch calibration (a command's
    // repetition is what it is).
    static RunPlan default_plan();
};

// Which field of the request is wrong, for kwb to name its option and the window its field:
// "baseline", "treatment", "adapter", "metric", "profile", "backend", "expect_differ", or a plan field ("runs_per_arm",
// "warmup_runs", "duration_s", "max_seconds", "split_halves", ...).
class CommandStudyError : public std::invalid_argument {
public:
    CommandStudyError(std::string field, const std::string& problem)
        : std::invalid_argument(problem)
        , m_field(std::move(field))
    {
    }
    const std::string& field() const { return m_field; }

private:
    std::string m_field;
};

// The metric judged when none is named: under auto, time_ms (a kernel benchmark's time); for a
// named adapter, its first documented key's metric. Throws CommandStudyError("adapter") for an
// unknown adapter or bad options.
std::string default_metric(const std::string& adapter, const nlohmann::json& adapter_options = {});

// The study: one experiment "ab-1" of the command workload with the arms "baseline" and
// "treatment", its plan (runs rounded up to whole ABBA blocks), the target (metric, unit and
// direction from metric_spec), a description and the name. The hardware sheet is left for the
// caller to capture (kwb: in process; the window: through its kwb devices child).
Study new_command_study(const CommandStudyRequest& request);

} // namespace kwb::command
