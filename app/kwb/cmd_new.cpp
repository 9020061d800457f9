// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb new`: writes a ready-to-run single-variable A/B study for a built-in workload (spec/cli.md).
// The arms store every parameter (defaults filled in), so a later change of a workload's default
// cannot silently change what a saved study runs, and the arm diff sees every setting.
#include "builtin_workloads.h"
#include "commands.h"
#include "hardware/device_sheet.h"
#include "ledger_hook.h"
#include "new_options.h"
#include "run/split_half_check.h"
#include "study/arm_roles.h"
#include "study/grid.h"
#include "study/plan_limits.h"
#include "study/study_file.h"
#include "util/atomic_file.h"
#include "verdict/verdict.h"
#include "workloads/command/command_study.h"
#include "workloads/command/command_workload.h"
#include "workloads/cuda_workload.h"
#include "workloads/new_ab.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <optional>
#include <utility>

namespace kwb::cli {
namespace new_form {

// Runs per arm as the plan stores them: whole ABBA blocks, an odd --runs rounded up with a note.
int planned_runs(const NewOptions& o)
{
    if (o.order != "abba" || o.runs < 1)
        return o.runs;
    const int runs = whole_abba_runs(o.runs);
    if (runs != o.runs)
        fmt::print(stderr,
            "kwb: note: --runs {} rounded up to {}: an ABBA plan runs whole blocks (A B | B A), two runs per arm, "
            "so a linear drift cancels\n",
            o.runs, runs);
    return runs;
}

ParamSpec find_param(const Workload& w, const std::string& name, const std::string& option)
{
    const auto specs = w.params();
    for (const auto& p : specs)
        if (p.name == name)
            return p;
    throw BadInput(
        fmt::format("{}: {} has no parameter '{}' (parameters: {})", option, w.name(), name, param_names(w)));
}

// A value typed as its parameter's default: integers stay integers, so block=32 is 32, not 32.0.
nlohmann::json typed_value(const ParamSpec& spec, const std::string& text, const std::string& option)
{
    const auto& d = spec.default_value;
    const char* begin = text.data();
    const char* end = text.data() + text.size();
    if (d.is_number_integer()) {
        long long v = 0;
        const auto [ptr, ec] = std::from_chars(begin, end, v);
        if (ec != std::errc() || ptr != end)
            throw BadInput(fmt::format("{}: parameter '{}' takes an integer, got '{}'", option, spec.name, text));
        return v;
    }
    if (d.is_number()) {
        double v = 0;
        const auto [ptr, ec] = std::from_chars(begin, end, v);
        if (ec != std::errc() || ptr != end)
            throw BadInput(fmt::format("{}: parameter '{}' takes a number, got '{}'", option, spec.name, text));
        return v;
    }
    return text;
}

std::pair<std::string, std::string> split_assignment(const std::string& text, const std::string& option)
{
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        throw BadInput(fmt::format("{}: expected NAME=VALUE, got '{}'", option, text));
    return {text.substr(0, eq), text.substr(eq + 1)};
}

nlohmann::json resolved(const Workload& w, const nlohmann::json& given, Backend backend, const std::string& what)
{
    try {
        return resolve_params(w, given, backend);
    } catch (const WorkloadError& e) {
        throw BadInput(fmt::format("{}: {}", what, e.what()));
    }
}

// One --grid NAME=a,b[,c[,d]]: a parameter of the workload and its 2 to 4 levels, the first the
// baseline level.
GridVariable parse_grid_variable(const Workload& w, const std::string& text, const nlohmann::json& fixed)
{
    const auto [name, values_text] = split_assignment(text, "--grid");
    const ParamSpec spec = find_param(w, name, "--grid");
    if (fixed.contains(name))
        throw BadInput(fmt::format("--grid: '{}' is also fixed with --param; it can be one or the other", name));
    GridVariable v {name, {}};
    size_t start = 0;
    while (true) {
        const auto comma = values_text.find(',', start);
        v.levels.push_back(typed_value(spec, values_text.substr(start, comma - start), "--grid"));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    if (v.levels.size() < kGridMinLevels || v.levels.size() > kGridMaxLevels)
        throw BadInput(
            fmt::format("--grid: expected {}=a,b[,c[,d]] ({} to {} levels, the first the baseline), got '{}'", name,
                kGridMinLevels, kGridMaxLevels, text));
    return v;
}

// The backend the arms are written for: the one asked for, or for `auto` the cuda backend when
// the given parameters need it (block_n exists on cuda only) or a GPU is usable here and they
// fit it; else the cpu. A study written on a laptop for a GPU server names cuda explicitly.
Backend study_backend(const Workload& w, const std::string& option, const nlohmann::json& given)
{
    if (option == "cuda" || !has_backend(w, Backend::Cpu)) // a cuda-only workload (attention_decode)
        return Backend::Cuda;
    if (option == "cpu" || !has_backend(w, Backend::Cuda))
        return Backend::Cpu;
    if (!params_fit_backend(w, given, Backend::Cpu))
        return Backend::Cuda;
    return params_fit_backend(w, given, Backend::Cuda) && cuda_unavailable_reason(w.name()).empty() ? Backend::Cuda
                                                                                                    : Backend::Cpu;
}

Study build_study_for(const NewOptions& o, const Workload& workload, std::optional<Backend> fixed_backend)
{
    const Workload* w = &workload;

    nlohmann::json fixed = nlohmann::json::object();
    for (const auto& p : o.params) {
        const auto [name, text] = split_assignment(p, "--param");
        fixed[name] = typed_value(find_param(*w, name, "--param"), text, "--param");
    }
    GridGroup grid;
    std::string vary;
    nlohmann::json a, b;
    if (!o.grids.empty()) {
        grid.id = "grid-1";
        for (const auto& g : o.grids)
            grid.variables.push_back(parse_grid_variable(*w, g, fixed));
        if (const auto problem = grid_shape_problem(grid); !problem.empty())
            throw BadInput(fmt::format("--grid: {}", problem));
    } else {
        const auto [name, values_text] = split_assignment(o.vary, "--vary");
        vary = name;
        const ParamSpec spec = find_param(*w, vary, "--vary");
        if (fixed.contains(vary))
            throw BadInput(fmt::format("--vary: '{}' is also fixed with --param; it can be one or the other", vary));
        const auto comma = values_text.find(',');
        if (comma == std::string::npos || values_text.find(',', comma + 1) != std::string::npos)
            throw BadInput(fmt::format("--vary: expected {}=BASELINE,TREATMENT (two values), got '{}'", vary, o.vary));
        a = typed_value(spec, values_text.substr(0, comma), "--vary");
        b = typed_value(spec, values_text.substr(comma + 1), "--vary");
        if (a == b)
            throw BadInput(
                fmt::format("--vary: the baseline and treatment values of '{}' are the same ({})", vary, a.dump()));
    }

    const auto metrics = w->metrics();
    if (metrics.empty())
        throw BadInput(fmt::format("--workload: {} declares no metric", w->name()));
    const MetricSpec* metric = &metrics.front();
    if (!o.metric.empty()) {
        metric = nullptr;
        for (const auto& m : metrics)
            if (m.name == o.metric)
                metric = &m;
        if (!metric)
            throw BadInput(
                fmt::format("--metric: {} has no metric '{}' (metrics: {})", w->name(), o.metric, metric_names(*w)));
    }
    for (const auto& g : o.guards)
        if (std::none_of(metrics.begin(), metrics.end(), [&](const MetricSpec& m) { return m.name == g; }))
            throw BadInput(fmt::format("--guard: {} has no metric '{}'", w->name(), g));

    if (o.backend == "cuda" && !has_backend(*w, Backend::Cuda))
        throw BadInput(fmt::format("--backend: {} has no cuda backend", w->name()));
    nlohmann::json probe = grid.variables.empty() ? fixed : grid_cell_params(grid, fixed, {0, 0});
    if (grid.variables.empty())
        probe[vary] = b;
    const Backend backend = fixed_backend ? *fixed_backend : study_backend(*w, o.backend, probe);
    nlohmann::json base = fixed, treat = fixed;
    if (grid.variables.empty()) {
        base[vary] = a;
        treat[vary] = b;
        base = resolved(*w, base, backend, "--vary");
        treat = resolved(*w, treat, backend, "--vary");
    }

    if (o.runs < 1)
        throw BadInput("--runs: must be at least 1");
    if (o.warmup < 0)
        throw BadInput("--warmup: must not be negative");
    if (o.split_half < 0)
        throw BadInput("--split-half: must not be negative");
    RunPlan plan;
    plan.runs_per_arm = planned_runs(o);
    plan.warmup_runs = o.warmup;
    plan.min_rep_ms = o.min_rep_ms;
    plan.order = o.order == "abba" ? RunOrder::Abba : RunOrder::RandomisedBlocks;
    plan.seed = o.seed;
    plan.stop = o.stop == "duration" ? StopRule::Duration : o.stop == "decision" ? StopRule::Decision : StopRule::Count;
    plan.duration_s = o.duration_s;
    plan.max_seconds = o.max_seconds;
    plan.split_halves = o.split_half;
    // Every plan number in its documented range (study/plan_limits.h), as the loader checks it.
    for (const auto& p : plan_problems(plan)) {
        static const std::map<std::string, std::string> option
            = {{"runs_per_arm", "--runs"}, {"warmup_runs", "--warmup"}, {"split_halves", "--split-half"},
                {"duration_s", "--duration"}, {"max_seconds", "--max-seconds"}, {"min_rep_ms", "--min-rep-ms"}};
        const auto it = option.find(p.field);
        throw BadInput(fmt::format("{}: {}", it == option.end() ? p.field : it->second, p.problem));
    }
    // The study must load again: kwb new never writes a plan that kwb run would refuse.
    if (!(o.max_seconds > 0) || !std::isfinite(o.max_seconds))
        throw BadInput("--max-seconds: must be a number of seconds above 0");
    if (!(o.duration_s >= 0) || !std::isfinite(o.duration_s))
        throw BadInput("--duration: must be a number of seconds, 0 or more");
    if (plan.stop == StopRule::Duration && !(o.duration_s > 0))
        throw BadInput("--duration: --stop duration needs a duration in seconds above 0");
    Profile profile;
    try {
        profile = make_profile(o.profile, metric->direction);
    } catch (const std::invalid_argument& ex) {
        throw BadInput(fmt::format("--profile: {}", ex.what()));
    }
    if (o.split_half > 0 && plan.stop != StopRule::Duration && plan.runs_per_arm < 2 * profile.min_n)
        fmt::print(stderr,
            "kwb: note: the split-half stability check splits the baseline in halves of at least min_n = {} runs; "
            "with --runs {} it will not be assessed (use --runs {} or more)\n",
            profile.min_n, plan.runs_per_arm, 2 * profile.min_n);

    // The one way a new A/B is made, the window's too (workloads/new_ab.h). A grid's cells take
    // this experiment's plan, profile and controls, each with the arms of its cell.
    const WorkloadDescription described = w->describe();
    NewAbRequest request;
    request.workload = &described;
    request.baseline = base;
    request.treatment = treat;
    request.backend = backend;
    request.backend_setting = fixed_backend               ? std::string(to_string(backend))
        : o.backend == "auto" && backend == Backend::Cuda ? "cuda"
                                                          : o.backend;
    request.metric = metric->name;
    request.profile = o.profile;
    request.plan = plan;
    request.guards = o.guards;
    request.aa_arm = o.aa_arm && grid.variables.empty(); // a grid's A/A: set_grid_aa_arm below
    Experiment e;
    try {
        e = new_ab_experiment(request);
    } catch (const WorkloadError& ex) {
        throw BadInput(fmt::format("--param: {}", ex.what()));
    }
    // Where the GPU is here, a configuration it cannot hold is refused now, with the numbers.
    if (!fixed_backend && grid.variables.empty() && backend == Backend::Cuda
        && cuda_unavailable_reason(w->name()).empty())
        for (const auto& arm : e.arms)
            if (const auto why = check_cuda_config(w->name(), arm.params, selected_cuda_device()); !why.empty())
                throw BadInput(fmt::format("--vary: {} arm: {}", arm.name, why));
    // Parameter values are the workload's to check, now rather than as a failed run later.
    for (const auto& arm : e.arms) {
        try {
            w->validate(arm.params, backend);
        } catch (const WorkloadError& ex) {
            throw BadInput(fmt::format("arm {}: {}", arm.name, ex.what()));
        }
    }

    Study s;
    if (!grid.variables.empty()) {
        const auto& v0 = grid.variables[0];
        const auto& v1 = grid.variables[1];
        const auto levels = [](const GridVariable& v) {
            std::string text;
            for (const auto& l : v.levels)
                text += fmt::format("{}{}", text.empty() ? "" : ", ", l.dump());
            return text;
        };
        s.name = o.name.empty()
            ? fmt::format("{}: {}x{} grid of {} x {}", w->name(), v0.levels.size(), v1.levels.size(), v0.name, v1.name)
            : o.name;
        s.description = fmt::format("Grid of {}: {} in {{{}}} x {} in {{{}}}; each cell runs as its own A/B, "
                                    "interleaved against the baseline cell ({} = {}, {} = {}), every other parameter "
                                    "the same. Written by kwb new.",
            w->name(), v0.name, levels(v0), v1.name, levels(v1), v0.name, v0.levels[0].dump(), v1.name,
            v1.levels[0].dump());
        // Every parameter stored (defaults filled in) in every cell's arms, checked per cell so a
        // level outside a parameter's domain is named with its cell.
        const nlohmann::json shared = resolved(*w, grid_cell_params(grid, fixed, {0, 0}), backend, "--grid");
        for (auto& cell : grid_cell_experiments(grid, e, shared)) {
            for (auto& arm : cell.arms)
                arm.params = resolved(*w, arm.params, backend, fmt::format("--grid: cell {}", arm.name));
            s.experiments.push_back(std::move(cell));
        }
        s.grids.push_back(grid);
        if (o.aa_arm) // the baseline cell again, beside the grid's first cell (study/grid.h)
            if (const auto problem = set_grid_aa_arm(s, grid.id, true); !problem.empty())
                throw BadInput(fmt::format("--aa-arm: {}", problem));
    } else {
        s.name = o.name.empty() ? fmt::format("{}: {} {} vs {}", w->name(), vary, a.dump(), b.dump()) : o.name;
        s.description = fmt::format("Single-variable A/B of {}: {} = {} (baseline) against {} (treatment), every "
                                    "other parameter the same. Written by kwb new.",
            w->name(), vary, a.dump(), b.dump());
        s.experiments.push_back(e);
    }
    s.target.metric = metric->name;
    s.target.direction = metric->direction;
    s.target.unit = metric->unit;
    s.target.kernel = w->description();
    s.target.reference = fmt::format("the built-in reference implementation of {} (verify)", w->name());
    nlohmann::json shape = s.experiments.front().arms.front().params;
    shape.erase(vary);
    for (const auto& v : grid.variables)
        shape.erase(v.name);
    s.target.workload = fmt::format("{} with {}", w->name(), shape.dump());
    const DeviceSheet sheet = collect_devices();
    s.hardware.captured_at = utc_now_iso8601();
    s.hardware.devices = sheet.devices;
    return s;
}

Study build_study(const NewOptions& o)
{
    const Workload* w = builtin_workloads().find(o.workload);
    if (!w)
        throw BadInput(fmt::format(
            "--workload: unknown workload '{}' (workloads: {})", o.workload, workload_names(builtin_workloads())));
    return build_study_for(o, *w, std::nullopt);
}

// Both forms end alike: refuse to overwrite without --force, build, save (a failed save is bad input).
Study write_new_study(const NewOptions& o, Study (*build)(const NewOptions&))
{
    const std::filesystem::path out = o.out;
    check_regular_or_absent(out); // even with --force /dev/null is never replaced (bad input, exit 2)
    std::error_code ec;
    if (!o.force && std::filesystem::exists(out, ec))
        throw BadInput(fmt::format("{}: the file exists; use --force to overwrite it", o.out));
    Study study = build(o);
    try {
        save_study(study, out);
    } catch (const std::exception& e) {
        throw BadInput(e.what());
    }
    return study;
}

// The A/A arm written (study/arm_roles.h), said once: the experiment that carries it, and for a
// grid which cell it runs beside.
void print_aa_note(const Study& study)
{
    for (const auto& e : study.experiments)
        if (const Arm* aa = aa_arm(e)) {
            fmt::print(stderr, "kwb: with an A/A arm ({}{}): the baseline runs again in every block, to the same n\n",
                aa->name, e.kind == kGridCellKind ? fmt::format(", the grid's A/A, in {}", e.id) : std::string());
            return;
        }
}

void check_vary_or_grid(const NewOptions& o)
{
    if (!o.grids.empty() && !o.vary.empty())
        throw BadInput("--grid: a study is either an A/B (--vary) or a grid (--grid twice), not both");
    if (!o.grids.empty() && o.grids.size() != 2)
        throw BadInput(fmt::format("--grid: a grid has two variables; give --grid twice (given {} time{})",
            o.grids.size(), o.grids.size() == 1 ? "" : "s"));
    if (o.vary.empty() && o.grids.empty())
        throw BadInput("--vary: name the one parameter that differs and its two values, e.g. --vary block=32,128 "
                       "(or a grid: --grid NAME=a,b --grid NAME=x,y)");
}

int run(const NewOptions& o)
{
    if (o.old_aa != 0)
        throw BadInput("--aa: renamed: --split-half[=K] is the split-half stability check it ran; --aa-arm adds a "
                       "real A/A arm (the baseline run again beside the A/B)");
    if (!o.git_baseline.empty() || !o.git_treatment.empty())
        return run_git_form(o); // commit arms (docs/git-arms.md): their own checks of the other forms' options
    for (const auto& [option, given] : {std::pair {"--build", !o.build.empty()}, {"--cmd", !o.git_cmd.empty()},
             {"--allow-dirty", o.allow_dirty}, {"--repo", o.repo != "."}})
        if (given)
            throw BadInput(fmt::format("{}: applies to commit arms only (--git-baseline, --git-treatment)", option));
    const bool worker_form = !o.worker.empty() || !o.baseline_worker.empty() || !o.treatment_worker.empty();
    const bool command_form = !o.baseline_cmd.empty() || !o.treatment_cmd.empty();
    if (worker_form && command_form)
        throw BadInput("--worker: a study's arms are commands (--baseline-cmd) or workers (--worker), not both");
    if (!command_form)
        for (const auto& [option, given] :
            {std::pair {"--adapter", !o.adapter.empty()}, {"--check-cmd", !o.check_cmd.empty()},
                {"--adapter-options", !o.adapter_options.empty()}, {"--baseline-check", !o.baseline_check.empty()},
                {"--treatment-check", !o.treatment_check.empty()}, {"--expect-differ", !o.expect_differ.empty()}})
            if (given)
                throw BadInput(
                    fmt::format("{}: applies to external commands only (--baseline-cmd, --treatment-cmd)", option));
    if (!worker_form)
        for (const auto& [option, given] : {std::pair {"--atol", !std::isnan(o.atol)}, {"--rtol", !std::isnan(o.rtol)}})
            if (given)
                throw BadInput(fmt::format("{}: applies to worker arms only (--worker, --baseline-worker)", option));
    if (command_form)
        return run_command_form(o);
    if (worker_form)
        return run_worker_form(o);
    for (const auto& [option, given] : {std::pair {"--timeout", o.timeout != 0},
             {"--max-output", o.max_output_mib != 0}, {"--cwd", !o.cwd.empty()}, {"--env", !o.env.empty()}})
        if (given)
            throw BadInput(
                fmt::format("{}: applies to external commands and workers only (--baseline-cmd, --worker)", option));
    if (o.workload.empty())
        throw BadInput("--workload: a workload is required (see kwb workloads)");
    check_vary_or_grid(o);
    const Study study = write_new_study(o, build_study);
    const auto& e = study.experiments.front();
    fmt::print(stderr, "kwb: wrote {}: {} ({}{} runs per arm, {} order, stop by {})\n", o.out, study.name,
        study.grids.empty() ? ""
                            : fmt::format("{} cell experiments against the baseline cell, ", study.experiments.size()),
        e.plan.runs_per_arm, to_string(e.plan.order), to_string(e.plan.stop));
    print_aa_note(study);
    if (o.expected_noise)
        print_expected_noise(study);
    return kOk;
}

} // namespace new_form

using namespace new_form;

void add_new_command(CLI::App& app, Action& action)
{
    auto* cmd = app.add_subcommand("new", "Write a ready-to-run single-variable A/B study for a built-in workload");
    auto o = std::make_shared<NewOptions>();
    cmd->add_option("--workload", o->workload, "The built-in workload (see kwb workloads)");
    cmd->add_option("--param", o->params, "A parameter both arms share, NAME=VALUE (repeatable)");
    cmd->add_option("--vary", o->vary, "The one parameter that differs: NAME=BASELINE,TREATMENT");
    cmd->add_option("--grid", o->grids,
        "A grid variable instead of --vary: NAME=a,b[,c[,d]], the first level the baseline (give it twice)");
    cmd->add_option("--metric", o->metric, "The target metric (default: the workload's first)");
    cmd->add_option("--runs", o->runs,
           "Runs per arm (count: exactly; decision: at most), whole ABBA blocks: an odd count is rounded up")
        ->capture_default_str();
    cmd->add_option("--out", o->out, "The study file to write")->capture_default_str();
    cmd->add_flag("--force", o->force, "Overwrite an existing file");
    cmd->add_option("--name", o->name, "The study's name");
    cmd->add_option("--order", o->order, "Run order: abba, or random (seeded randomised blocks)")
        ->check(CLI::IsMember({"abba", "random", "randomised-blocks"}))
        ->capture_default_str();
    cmd->add_option("--seed", o->seed, "Seed of the randomised order and the A/A halvings")->capture_default_str();
    cmd->add_option("--stop", o->stop, "Stopping rule: count, duration or decision")
        ->check(CLI::IsMember({"count", "duration", "decision"}))
        ->capture_default_str();
    cmd->add_option("--duration", o->duration_s, "Seconds to run under --stop duration");
    cmd->add_option("--max-seconds", o->max_seconds, "Never run an experiment longer than this")->capture_default_str();
    cmd->add_option("--warmup", o->warmup, "Warm-up runs per arm (run first, never judged)")->capture_default_str();
    cmd->add_option("--min-rep-ms", o->min_rep_ms,
           "Launches per repetition are calibrated so one repetition lasts at least this (0: one launch)")
        ->capture_default_str();
    cmd->add_flag("--split-half{" + std::to_string(kDefaultSplitHalves) + "}", o->split_half,
        "Split-half stability check: split the baseline against itself K times (--split-half gives 5, "
        "--split-half=K)");
    cmd->add_flag("--expected-noise", o->expected_noise,
        "Show the sigma% this benchmark had on each device in the ledger and the runs per arm it suggests "
        "(shown only: the plan and profile stay as given)");
    cmd->add_flag("--aa-arm", o->aa_arm,
        "A real A/A: a third arm that runs the baseline's configuration (or command) again, interleaved, to the "
        "same n; a grid's runs beside its first cell");
    cmd->add_flag("--aa{1}", o->old_aa, "Renamed: --split-half (the split-half stability check) or --aa-arm")
        ->group(""); // hidden: only there to say what it became
    cmd->add_option("--profile", o->profile, "Verdict profile: generic, strict or speedup")->capture_default_str();
    cmd->add_option("--backend", o->backend, "Backend: auto, cpu or cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
        ->capture_default_str();
    cmd->add_option("--guard", o->guards, "A metric that must not regress (repeatable)");
    add_command_form_options(cmd, *o);
    add_worker_form_options(cmd, *o);
    add_git_form_options(cmd, *o);
    cmd->callback([&action, o] { action = [o] { return run(*o); }; });
}

} // namespace kwb::cli
