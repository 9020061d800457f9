// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb new --worker CMD --vary ...` and `kwb new --baseline-worker CMD --treatment-worker CMD`: the
// worker form (docs/worker-protocol.md). kwb starts each worker once to hello and describe it,
// checks the study against that description (parameter names, kinds and listed values: bad input
// naming the parameter), and records the description in every worker arm; kwb run does the rest.
#include "commands.h"
#include "hardware/device_sheet.h"
#include "ledger_hook.h"
#include "new_options.h"
#include "study/arm_roles.h"
#include "study/plan_limits.h"
#include "study/study_file.h"
#include "workloads/command/process.h"
#include "workloads/new_ab.h"
#include "workloads/worker/worker_workload.h"

#include <cmath>
#include <fmt/format.h>
#include <map>
#include <tuple>

namespace kwb::cli::new_form {
namespace {

WorkerSpec worker_spec(const NewOptions& o, const std::string& cmd)
{
    WorkerSpec w;
    w.cmd = cmd;
    w.cwd = o.cwd;
    for (const auto& kv : o.env) {
        const auto [k, v] = split_assignment(kv, "--env");
        w.env[k] = v;
    }
    if (o.timeout != 0) {
        if (!(o.timeout > 0) || !std::isfinite(o.timeout))
            throw BadInput("--timeout: must be a number of seconds above 0");
        w.timeout_s = o.timeout;
    }
    if (o.max_output_mib != 0) {
        if (!(o.max_output_mib >= kMinOutputMib && o.max_output_mib <= kMaxOutputMib))
            throw BadInput(fmt::format(
                "--max-output: {} must be between {} and {} (MiB)", o.max_output_mib, kMinOutputMib, kMaxOutputMib));
        w.max_output_mib = o.max_output_mib;
    }
    for (const auto& [option, value, field] :
        {std::tuple {"--atol", o.atol, &w.atol}, std::tuple {"--rtol", o.rtol, &w.rtol}}) {
        if (std::isnan(value))
            continue; // not given: the default
        if (!std::isfinite(value) || value < 0)
            throw BadInput(fmt::format("{}: must be a finite number, 0 or more", option));
        *field = value;
    }
    return w;
}

// Starts the worker once: hello and describe. Whatever goes wrong is bad input of `option`.
void describe_into(WorkerSpec& w, const std::string& option, const std::string& arm)
{
    try {
        w.description = worker::describe_worker(w, arm);
    } catch (const WorkloadError& e) {
        throw BadInput(fmt::format("{}: {}", option, e.what()));
    }
}

// Every arm's parameters in its worker's domain (listed values), named by arm and parameter.
void validate_arms(const Study& s)
{
    for (const auto& e : s.experiments)
        for (const auto& arm : e.arms) {
            try {
                worker::described_workload(arm.worker->description)->validate(arm.params, Backend::Cpu);
            } catch (const WorkloadError& ex) {
                throw BadInput(
                    fmt::format("{}: arm {}: {}", e.kind == "ab" ? "--vary" : "--grid", arm.name, ex.what()));
            }
        }
}

Backend worker_backend(const WorkerDescription& d)
{
    return d.device.kind == "cuda" ? Backend::Cuda : Backend::Cpu;
}

// A worker runs where it says it runs (describe's device): --backend may only agree with it.
void check_backend(const NewOptions& o, const WorkerDescription& d, const std::string& option)
{
    const std::string kind(to_string(worker_backend(d)));
    if (o.backend != "auto" && o.backend != kind)
        throw BadInput(fmt::format(
            "--backend {}: the worker of {} runs on {} (its describe answer's device)", o.backend, option, kind));
}

void finish(Study& s, const WorkerSpec& w)
{
    s.target.kernel = fmt::format("the worker {} (`{}`)", w.description.worker, w.cmd);
    s.target.reference = w.description.has_reference
        ? fmt::format("the worker's reference callable (verify, twice per arm)")
        : fmt::format("the baseline arm's output (verify, twice per arm; atol {:g}, rtol {:g})", w.atol, w.rtol);
}

// One worker, arms that differ in its parameters: the built-in form over its description.
Study build_one_worker(const NewOptions& o)
{
    check_vary_or_grid(o);
    WorkerSpec w = worker_spec(o, o.worker);
    describe_into(w, "--worker", "baseline");
    check_backend(o, w.description, "--worker");
    const auto described = worker::described_workload(w.description);
    Study s = build_study_for(o, *described, worker_backend(w.description));
    for (auto& e : s.experiments)
        for (auto& arm : e.arms)
            arm.worker = w;
    validate_arms(s);
    finish(s, w);
    return s;
}

// Two workers: two programs, the arms differ by command; --param values apply to both.
Study build_two_workers(const NewOptions& o)
{
    if (o.baseline_worker.empty() || o.treatment_worker.empty())
        throw BadInput(fmt::format("{}: both --baseline-worker and --treatment-worker are needed",
            o.baseline_worker.empty() ? "--baseline-worker" : "--treatment-worker"));
    if (!o.vary.empty() || !o.grids.empty())
        throw BadInput("--vary: two workers differ by their commands; --vary and --grid need one --worker");
    WorkerSpec b = worker_spec(o, o.baseline_worker), t = worker_spec(o, o.treatment_worker);
    describe_into(b, "--baseline-worker", "baseline");
    describe_into(t, "--treatment-worker", "treatment");
    check_backend(o, b.description, "--baseline-worker");
    check_backend(o, t.description, "--treatment-worker");
    if (b.description.device.kind != t.description.device.kind)
        throw BadInput(fmt::format("--treatment-worker: it runs on {}, the baseline worker on {}; both arms of an "
                                   "A/B run on one device",
            t.description.device.kind, b.description.device.kind));
    const auto base_w = worker::described_workload(b.description);
    const auto treat_w = worker::described_workload(t.description);
    const auto given = [&](const Workload& w, const std::string& option) {
        nlohmann::json fixed = nlohmann::json::object();
        for (const auto& p : o.params) {
            const auto [name, text] = split_assignment(p, "--param");
            fixed[name] = typed_value(find_param(w, name, "--param"), text, "--param");
        }
        try {
            nlohmann::json resolved = resolve_params(w, fixed);
            w.validate(resolved, Backend::Cpu);
            return resolved;
        } catch (const WorkloadError& e) {
            throw BadInput(fmt::format("{}: {}", option, e.what()));
        }
    };
    const WorkloadDescription described = base_w->describe();
    NewAbRequest request;
    request.workload = &described;
    request.baseline = given(*base_w, "--baseline-worker");
    request.treatment = request.baseline;
    request.backend = worker_backend(b.description);
    request.backend_setting = std::string(to_string(request.backend));
    request.metric = o.metric.empty() ? "time_ms" : o.metric;
    request.profile = o.profile;
    request.guards = o.guards;
    request.aa_arm = o.aa_arm;
    if (o.runs < 1)
        throw BadInput("--runs: must be at least 1");
    request.plan.runs_per_arm = planned_runs(o);
    request.plan.warmup_runs = o.warmup;
    request.plan.min_rep_ms = o.min_rep_ms;
    request.plan.order = o.order == "abba" ? RunOrder::Abba : RunOrder::RandomisedBlocks;
    request.plan.seed = o.seed;
    request.plan.stop = o.stop == "duration" ? StopRule::Duration
        : o.stop == "decision"               ? StopRule::Decision
                                             : StopRule::Count;
    request.plan.duration_s = o.duration_s;
    request.plan.max_seconds = o.max_seconds;
    request.plan.split_halves = o.split_half;
    for (const auto& p : plan_problems(request.plan)) {
        static const std::map<std::string, std::string> option
            = {{"runs_per_arm", "--runs"}, {"warmup_runs", "--warmup"}, {"split_halves", "--split-half"},
                {"duration_s", "--duration"}, {"max_seconds", "--max-seconds"}, {"min_rep_ms", "--min-rep-ms"}};
        const auto it = option.find(p.field);
        throw BadInput(fmt::format("{}: {}", it == option.end() ? p.field : it->second, p.problem));
    }
    Experiment e;
    try {
        e = new_ab_experiment(request);
    } catch (const WorkloadError& ex) {
        throw BadInput(fmt::format("--metric: {}", ex.what()));
    }
    for (auto& arm : e.arms)
        arm.worker = b;
    e.arms[1].worker = t;
    e.arms[1].params = given(*treat_w, "--treatment-worker");
    Study s;
    s.name = o.name.empty() ? fmt::format("worker A/B: {} vs {}", b.description.worker, t.description.worker) : o.name;
    s.description = fmt::format(
        "A/B of two workers: `{}` (baseline) against `{}` (treatment). Written by kwb new.", b.cmd, t.cmd);
    const auto metrics = base_w->metrics();
    for (const auto& m : metrics)
        if (m.name == e.metric) {
            s.target.metric = m.name;
            s.target.direction = m.direction;
            s.target.unit = m.unit;
        }
    s.experiments.push_back(std::move(e));
    finish(s, b);
    const DeviceSheet sheet = collect_devices();
    s.hardware.captured_at = utc_now_iso8601();
    s.hardware.devices = sheet.devices;
    s.target.workload = fmt::format("{} with {}", b.description.worker, request.baseline.dump());
    return s;
}

Study build_worker_study(const NewOptions& o)
{
    if (!o.workload.empty())
        throw BadInput("--workload: the worker form takes no --workload (the worker describes its parameters)");
    if (!o.worker.empty() && (!o.baseline_worker.empty() || !o.treatment_worker.empty()))
        throw BadInput("--worker: give one --worker (arms differ by --vary / --grid) or --baseline-worker and "
                       "--treatment-worker, not both");
    return o.worker.empty() ? build_two_workers(o) : build_one_worker(o);
}

} // namespace

int run_worker_form(const NewOptions& o)
{
    const Study study = write_new_study(o, build_worker_study);
    const auto& e = study.experiments.front();
    const WorkerSpec& w = *e.arms[0].worker;
    fmt::print(stderr, "kwb: wrote {}: {} ({} runs per arm, {} order; worker {} on {}{})\n", o.out, study.name,
        e.plan.runs_per_arm, to_string(e.plan.order), w.description.worker, w.description.device.kind,
        w.description.has_reference ? ", checked against its reference" : ", checked against the baseline's output");
    print_aa_note(study);
    if (o.expected_noise)
        print_expected_noise(study);
    return kOk;
}

void add_worker_form_options(CLI::App* cmd, NewOptions& o)
{
    cmd->add_option("--worker", o.worker,
        "A worker command (docs/worker-protocol.md); the arms differ by --vary or --grid over its parameters");
    cmd->add_option("--baseline-worker", o.baseline_worker, "The baseline's worker command (two-worker form)");
    cmd->add_option("--treatment-worker", o.treatment_worker, "The treatment's worker command (two-worker form)");
    cmd->add_option("--atol", o.atol,
        "Worker arms without a reference: absolute tolerance against the baseline's output (default 1e-5)");
    cmd->add_option("--rtol", o.rtol,
        "Worker arms without a reference: relative tolerance against the baseline's output (default 1e-3)");
}

} // namespace kwb::cli::new_form
