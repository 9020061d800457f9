// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/gates.h"

#include "study/arm_diff.h"
#include "study/arm_roles.h"
#include "study/device_identity.h"
#include "study/experiment_shape.h"
#include "study/machine_load.h"
#include "verdict/gpu_sharing.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <map>

namespace kwb {
namespace {

bool blank(const std::string& s)
{
    return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); });
}

bool usable_number(const std::optional<double>& x)
{
    return x && std::isfinite(*x) && *x > 0;
}

Gate make(std::string id, int phase, bool met, std::string reason, std::string rule)
{
    return {std::move(id), phase, met, met ? std::string() : std::move(reason), std::move(rule)};
}

const char* const kSameDevice = "same device";
const char* const kStableClocks = "stable clocks";
const char* const kNoOtherProcess = "no other process on the device";
const char* const kSameShapes = "same shapes and dtypes";
const char* const kSameWarmup = "same warm-up";

} // namespace

Gate target_gate(const Target& t)
{
    std::string why;
    if (blank(t.metric))
        why = "target: no metric chosen (phase 1: \"one metric, from X to Y\")";
    else if (!usable_number(t.current) || !usable_number(t.goal))
        why = "target: no current and goal values (phase 1: \"from X to Y\")";
    else if (*t.current == *t.goal)
        why = "target: the goal equals the current value (phase 1: \"from X to Y\")";
    return make("target", 1, why.empty(), why,
        "Playbook phase 1: one metric, \"from X to Y\", with its unit. No numbers, no study.");
}

Gate krw_gate(const Target& t)
{
    const bool met = !blank(t.kernel) && !blank(t.reference) && !blank(t.workload);
    return make("krw", 1, met, "kernel/reference/workload: K, R and W are not all pinned (phase 1)",
        "Playbook phase 1: pin K (kernel semantics, dtypes, shapes), R (the reference oracle) and W "
        "(the workload).");
}

Gate prediction_gate(const Prediction& p)
{
    const bool met = p.predicted_delta_pct && std::isfinite(*p.predicted_delta_pct);
    return make("prediction", 4, met, "prediction: no predicted delta% (phase 4: no formula, no run)",
        "Playbook phase 4: a predicted delta from hardware x workload constants, with its magnitude. "
        "No formula, no run.");
}

bool names_sacrifice(const Tradeoff& t)
{
    return t.sacrificed && !blank(t.note);
}

bool tradeoff_named(const std::vector<Tradeoff>& tradeoffs)
{
    return std::any_of(tradeoffs.begin(), tradeoffs.end(), names_sacrifice);
}

std::string tradeoff_question(const std::string& axis)
{
    static const std::map<std::string, std::string> questions = {
        {"loc-complexity", "LOC complexity: how many new state machines, branches or FFI calls were added?"},
        {"hardware-specificity", "Hardware specificity: does this break on sm_80 / sm_90 / sm_100?"},
        {"toolchain-version", "Compiler / runtime version: does this break on another compiler or library version?"},
        {"maintainability", "Maintainability: will this need a re-tune after every model size change?"},
        {"numerical-correctness", "Numerical correctness: has the precision margin been verified?"},
        {"generality", "Generality: does a win at one shape regress at another? (multi-shape A/B mandatory)"},
        {"scheduling-impact", "Scheduling impact: does this change admission policy or introduce serialization?"},
        {"memory-budget", "Memory budget: is the win consuming smem / registers / VRAM headroom needed elsewhere?"},
    };
    const auto it = questions.find(axis);
    return it == questions.end() ? std::string() : it->second;
}

const std::string& tradeoff_gate_reason()
{
    static const std::string reason = "no tradeoff named: a license needs at least one tradeoff axis answered with a "
                                      "named sacrifice (not at the extremes yet)";
    return reason;
}

Gate tradeoff_gate(const std::vector<Tradeoff>& tradeoffs)
{
    return make("tradeoff", 7, tradeoff_named(tradeoffs),
        "tradeoff: none named (phase 7: a license needs a named sacrifice)",
        "Playbook phase 7: name what was sacrificed; \"no tradeoff named = not at the extremes\". A "
        "license with nothing sacrificed is refused.");
}

Gate controls_gate(const Controls& c)
{
    std::string why;
    if (c.checklist.empty())
        why = "matched controls: the checklist is empty (phase 5)";
    else if (std::any_of(c.checklist.begin(), c.checklist.end(), [](const auto& x) { return !x.second; }))
        why = "matched controls: some controls are not checked (phase 5)";
    return make("controls", 5, why.empty(), why,
        "Playbook phase 5: matched controls (same model, dtypes, data, warm-up, duration; no other GPU "
        "process), so the one variable is the only difference.");
}

const std::vector<std::string>& standard_controls()
{
    static const std::vector<std::string> names {kSameDevice, kStableClocks, kNoOtherProcess, kSameShapes, kSameWarmup};
    return names;
}

void record_run_measured_controls(Experiment& e)
{
    std::string how;
    if (const auto ok = no_heavy_process(machine_load(e), how))
        e.controls.checklist[kNoOtherProcess] = *ok;
    if (const auto gpu = gpu_sharing_evidence(e); gpu && gpu->shared > 0) // another process on the GPU itself
        e.controls.checklist[kNoOtherProcess] = false;
}

std::vector<ControlMeasurement> measure_controls(
    const Experiment& e, const nlohmann::json& defaults, const DeviceIdentity* current)
{
    std::vector<ControlMeasurement> out;

    // Same device: the samples already taken and the device that will take the next ones.
    ControlMeasurement device {kSameDevice, std::nullopt, "no device recorded or detected yet"};
    if (current && !current->empty()) {
        device.measured = same_device(e.device, *current);
        device.how = e.device.empty() ? "both arms run interleaved on " + describe(*current)
                                      : "recorded " + describe(e.device) + ", running on " + describe(*current);
    } else if (!e.device.empty()) {
        device.measured = true;
        device.how = "both arms ran interleaved on " + describe(e.device);
    }
    out.push_back(device);

    // Stable clocks: measurable once samples carry clock readings.
    ControlMeasurement clocks {kStableClocks, std::nullopt, "no clock readings recorded (a CPU run, or no NVML)"};
    bool any_clock = false, throttled = false;
    for (const auto& s : e.samples) {
        if (s.warmup || s.discarded)
            continue;
        any_clock = any_clock || s.clock_mhz.has_value();
        throttled = throttled || s.throttled;
    }
    if (any_clock) {
        clocks.measured = !throttled;
        clocks.how = throttled ? "a judged repetition was throttled" : "no judged repetition was throttled";
    }
    out.push_back(clocks);

    // No heavy process beside it: measured by the CPU sampler where it ran (study/machine_load.h).
    ControlMeasurement others {kNoOtherProcess, std::nullopt, ""};
    others.measured = no_heavy_process(machine_load(e), others.how);
    if (const auto gpu = gpu_sharing_evidence(e); gpu && gpu->shared > 0) {
        others.measured = false;
        others.how
            = fmt::format("another process used the GPU in {} of {} repetitions (NVML)", gpu->shared, gpu->repetitions);
    }
    out.push_back(others);

    // Same shapes and dtypes: every parameter but the one varied agrees.
    ControlMeasurement shapes {kSameShapes, std::nullopt, "the experiment has fewer than two arms"};
    if (e.arms.size() >= 2) {
        const ArmDiff d = diff_arms(e.arms[0].params, e.arms[1].params, defaults);
        shapes.measured = d.single_variable();
        shapes.how = d.single_variable() ? "the arms agree on every parameter but the one varied"
                                         : "the arms differ in " + d.names();
    }
    out.push_back(shapes);

    // Same warm-up: one plan serves both arms; after a run, count what each arm discarded.
    ControlMeasurement warmup {
        kSameWarmup, true, "one plan: " + std::to_string(e.plan.warmup_runs) + " warm-up run(s) per arm"};
    if (!e.samples.empty()) {
        std::map<std::string, int> per_arm;
        for (const auto& a : e.arms)
            per_arm[a.name] = 0;
        for (const auto& s : e.samples)
            if (s.warmup)
                ++per_arm[s.arm];
        const bool equal = std::adjacent_find(per_arm.begin(), per_arm.end(), [](const auto& a, const auto& b) {
            return a.second != b.second;
        }) == per_arm.end();
        warmup.measured = equal;
        warmup.how = equal ? "each arm recorded the same number of warm-up runs"
                           : "the arms recorded different numbers of warm-up runs";
    }
    out.push_back(warmup);
    return out;
}

std::vector<Gate> study_gates(const Study& study, const Experiment& e)
{
    std::vector<Gate> gates {target_gate(study.target), krw_gate(study.target)};
    gates.push_back(make("binding", 3, !blank(study.binding.constraint), "binding constraint: not measured (phase 3)",
        "Playbook phase 3: measure the binding constraint first."));
    gates.push_back(prediction_gate(study.prediction));
    gates.push_back(controls_gate(e.controls));
    gates.push_back(tradeoff_gate(study.tradeoffs));
    return gates;
}

std::vector<std::string> missing_gates(const Study& study, const Experiment& e)
{
    std::vector<std::string> out;
    for (const auto& g : study_gates(study, e))
        if (!g.met)
            out.push_back(g.reason);
    return out;
}

std::optional<std::string> run_blocked(const Study& study, const Experiment* e, const nlohmann::json& defaults)
{
    if (!e)
        return std::string("no experiment yet: set up the A/B on phase 5 (workload, arms, the one varied parameter)");
    if (const Gate g = target_gate(study.target); !g.met)
        return g.reason;
    if (const Gate g = prediction_gate(study.prediction); !g.met)
        return g.reason;
    if (e->arms.size() < 2)
        return std::string("arms: an A/B needs a baseline and a treatment (phase 5)");
    // The arms' own rules have one owner, which `kwb run` asks too (study/experiment_shape.h).
    const auto filled = [&](const Arm& arm) {
        nlohmann::json params = defaults.is_object() ? defaults : nlohmann::json::object();
        if (arm.params.is_object())
            for (const auto& [name, value] : arm.params.items())
                params[name] = value;
        return params;
    };
    const AbArms arms = ab_arms(*e);
    if (!arms)
        return std::string("arms: an A/B needs a baseline and a treatment (phase 5)");
    if (const ShapeCheck shape = check_experiment_shape(study, *e, filled(*arms.baseline), filled(*arms.treatment));
        !shape.ok())
        return "arms: " + shape.problem;
    return std::nullopt;
}

} // namespace kwb
