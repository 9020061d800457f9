// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb profile STUDY --arms all`: the CUPTI range profiler over every arm of one experiment
// (engine/run/range_profile_pass.h), one pass an arm and never while PM sampling runs, and the diff
// table baseline -> each other arm by the verdict's noise rule (engine/verdict/range_profile_diff.h).
// Output only: the study is read under its lock (so no run samples while the counters are taken)
// and not written.
#include "builtin_workloads.h"
#include "commands.h"
#include "hardware/gpu_backend.h"
#include "profile_options.h"
#include "run/range_profile_pass.h"
#include "study/study_file.h"
#include "study/study_lock.h"
#include "verdict/range_profile_diff.h"
#include "verdict/verdict.h"
#include "workloads/cuda_workload.h"

#include <fmt/format.h>
#include <optional>

namespace kwb::cli {
namespace {

constexpr int kLaunchesPerArm = 5;

// The noise_k of the verdict profile the experiment is judged under (generic's 2 when it is unknown).
double noise_k_of(const Experiment& e)
{
    try {
        return apply_overrides(make_profile(e.profile, Direction::Lower), e.profile_overrides).noise_k;
    } catch (const std::exception&) {
        return make_profile("generic", Direction::Lower).noise_k;
    }
}

std::string value_text(const std::optional<double>& v, const std::string& unit)
{
    if (!v)
        return "-";
    return fmt::format("{:.4g}{}{}", *v, unit.empty() || unit == "%" ? "" : " ", unit);
}

std::string stats_text(const ArmLaneStats& s, const std::string& unit)
{
    if (!s.mean)
        return "-";
    return fmt::format("{} (n {}, cv {})", value_text(s.mean, unit), s.repetitions,
        s.cv_pct ? fmt::format("{:.2f}%", *s.cv_pct) : std::string("-"));
}

void print_arm(const RangeProfileArm& a)
{
    if (!a.unavailable.empty()) {
        fmt::print("arm {}: cannot be had: {}\n", a.arm, a.unavailable);
        return;
    }
    fmt::print("arm {}: {} launches, {} replay passes a kernel\n", a.arm, a.launches.size(), a.passes);
    for (const auto& name : kernel_names(a)) {
        const auto stats = per_launch_stats(a, name);
        fmt::print("  kernel {}\n", name);
        for (const auto& spec : range_metrics())
            if (const auto it = stats.find(spec.key); it != stats.end())
                fmt::print("    {:<22} {}\n", spec.key, stats_text(it->second, spec.unit));
    }
    for (const auto& n : a.notes)
        fmt::print("  note: {}\n", n);
}

void print_diff(const RangeProfileDiff& d)
{
    fmt::print("diff {} -> {} (a launch is a repetition; beyond noise when |delta%| > {:g} x the larger cv%)\n",
        d.baseline_arm, d.treatment_arm, d.noise_k);
    std::string scope;
    for (const auto& [row_scope, r] : d.rows) {
        if (row_scope != scope) { // a header per scope: kernel names are too long for a column
            scope = row_scope;
            fmt::print(
                "  {}\n", scope == kWholeLaunch ? std::string("per launch, all kernels:") : "kernel " + scope + ":");
            fmt::print("    {:<22} {:>28} {:>28} {:>12} {:>9} {:>8}  {}\n", "metric", d.baseline_arm, d.treatment_arm,
                "delta", "delta%", "noise%", "call");
        }
        const bool pct = r.unit == "%";
        fmt::print("    {:<22} {:>28} {:>28} {:>12} {:>9} {:>8}  {}\n", r.metric, stats_text(r.baseline, r.unit),
            stats_text(r.treatment, r.unit), r.delta ? fmt::format("{:+.4g}{}", *r.delta, pct ? " pt" : "") : "-",
            r.delta_pct ? fmt::format("{:+.1f}%", *r.delta_pct) : "-",
            r.noise_pct ? fmt::format("{:.1f}%", *r.noise_pct) : "-", r.beyond_noise ? "beyond noise" : "within noise");
    }
    for (const auto& n : d.notes)
        fmt::print("  note: {}\n", n);
}

} // namespace

int profile_arms(const ProfileOptions& o)
{
    if (o.device < 0)
        throw BadInput("--device: a CUDA device index is 0 or more");
    // Read under the lock: a run holding it samples PM counters, which the range profiler cannot
    // share (CUPTI_ERROR_HARDWARE_BUSY), and would be slowed by the replay.
    const auto locked = lock_and_load(o.study);
    const Study& study = locked.study;
    const Experiment& e = pick_experiment(study, o);
    if (e.arms.size() < 2)
        throw BadInput(fmt::format("{}: experiment {}: --arms all needs two arms or more", o.study, e.id));
    const Workload* w = builtin_workloads().find(e.workload);
    if (!w)
        throw BadInput(
            fmt::format("{}: experiment {}: unknown workload '{}' (see kwb workloads)", o.study, e.id, e.workload));
    select_cuda_device(o.device);
    const Backend backend = pick_backend(*w, e, o);
    if (backend != Backend::Cuda) {
        // An embedded arm needs the CUDA backend; command and worker arms are reported as such on any.
        for (const Arm& arm : e.arms)
            if (range_profile_unavailable(e, arm, Backend::Cuda).empty()) {
                const std::string why = has_backend(*w, Backend::Cuda) ? cuda_unavailable_reason(w->name()) : "";
                throw BadInput(fmt::format("{}: experiment {}: --arms all: the range profiler needs the CUDA backend "
                                           "(CUPTI counters); {} runs on the cpu backend here{}",
                    o.study, e.id, w->name(), why.empty() ? "" : " (" + why + ")"));
            }
    }
    RangeProfilePassOptions options;
    options.device = o.device;
    options.launches = kLaunchesPerArm;
    options.api = GpuBackend::instance().range_profiler_api();
    options.api_reason = GpuBackend::instance().range_profiler_reason();
    const auto arms = range_profile_arms(*w, e, backend, options);
    std::vector<RangeProfileDiff> diffs;
    for (std::size_t i = 1; i < arms.size(); ++i)
        diffs.push_back(range_profile_diff(arms.front(), arms[i], noise_k_of(e)));
    for (const auto& a : arms)
        if (!a.unavailable.empty())
            fmt::print(stderr, "kwb: {}: arm {}: range profile cannot be had: {}\n", e.id, a.arm, a.unavailable);
    // Exit 1 when an arm that could be profiled was tried and none measured (the plugin's line is
    // in the table and on stderr): nothing was measured that could have been.
    bool tried = false, measured = false;
    for (std::size_t i = 0; i < arms.size(); ++i)
        if (range_profile_unavailable(e, e.arms[i], backend).empty()) {
            tried = true;
            measured = measured || arms[i].unavailable.empty();
        }
    const int status = tried && !measured ? kRunFailed : kOk;
    if (o.json) {
        auto j = range_profile_json(arms, diffs);
        j["experiment"] = e.id;
        j["device"] = o.device;
        j["launches_per_arm"] = kLaunchesPerArm;
        fmt::print("{}\n", nlohmann::json {{"range_profile", j}}.dump(2));
        return status;
    }
    fmt::print("range profile: experiment {}, {} launches an arm, each kernel a range (CUPTI range profiler, kernel "
               "replay: one pass an arm, outside any timed run)\n",
        e.id, kLaunchesPerArm);
    for (const auto& a : arms)
        print_arm(a);
    for (const auto& d : diffs)
        print_diff(d);
    return status;
}

} // namespace kwb::cli
