// SPDX-License-Identifier: GPL-3.0-or-later
#include "hardware/binding_classifier.h"

#include <cmath>
#include <fmt/format.h>

namespace kwb {
namespace {

std::string show(const std::optional<double>& v)
{
    return v ? fmt::format("{:.1f}", *v) : std::string("not measured");
}

} // namespace

BindingCall classify_binding(const BindingEvidenceInput& in, const BindingThresholds& t)
{
    BindingCall call;
    auto& ev = call.evidence;
    const auto decide = [&](std::string constraint, std::string axis) {
        call.constraint = std::move(constraint);
        call.axis = std::move(axis);
    };

    // A call only from a faithful profile: kernels that ran slower under the profiler than in the
    // timed run describe another run (a clock, serialisation, a code path the profiler changed), so
    // no class is called from them. Kernels shorter than the timed launch are the normal case of
    // host-side time between launches; the framing-trap warning below covers that.
    bool faithful = true;
    if (in.profiled_ms_per_launch && in.timed_ms_per_launch && *in.timed_ms_per_launch > 0) {
        const double diff = 100.0 * (*in.profiled_ms_per_launch - *in.timed_ms_per_launch) / *in.timed_ms_per_launch;
        if (std::abs(diff) > t.disagreement_pct)
            call.warnings.push_back(
                fmt::format("profiler view and wall-clock disagree: profiled kernels take {:.3f} ms a launch, the "
                            "timed A/B {:.3f} ms "
                            "({:+.1f}%, threshold {:.0f}%); clocks or a different code path under the profiler",
                    *in.profiled_ms_per_launch, *in.timed_ms_per_launch, diff, t.disagreement_pct));
        faithful = diff <= t.disagreement_pct;
        if (!faithful)
            ev.push_back(fmt::format("not determined: the profiled kernels ran {:+.1f}% slower than the timed run "
                                     "({:.3f} vs {:.3f} ms a launch, threshold {:.0f}%), so their counters describe "
                                     "another run; profile again where the two agree",
                diff, *in.profiled_ms_per_launch, *in.timed_ms_per_launch, t.disagreement_pct));
    }
    if (in.kernel_share_pct && *in.kernel_share_pct > 105)
        call.warnings.push_back(
            fmt::format("kernels cover {:.0f}% of the wall clock (over 100%: kernels overlap or the clocks disagree)",
                *in.kernel_share_pct));

    // The framing trap: a kernel-internal constraint binds only the share of the step the kernels cover.
    if (in.kernel_share_pct && *in.kernel_share_pct <= 100 && 100.0 - *in.kernel_share_pct > t.dispatch_share_pct)
        call.warnings.push_back(fmt::format("kernels cover only {:.0f}% of the wall clock ({:.0f}% outside kernels > "
                                            "{:.0f}%): a kernel-internal gain moves the step by at most that share",
            *in.kernel_share_pct, 100.0 - *in.kernel_share_pct, t.dispatch_share_pct));
    if (!faithful)
        return call;

    const double pipe = std::max(in.tensor_pct.value_or(0), in.fma_pct.value_or(0));
    if ((in.tensor_pct || in.fma_pct) && pipe >= t.pipe_near_peak_pct) {
        ev.push_back(fmt::format("tensor pipe {} %, FMA pipe {} %: >= {:.0f}% is near peak", show(in.tensor_pct),
            show(in.fma_pct), t.pipe_near_peak_pct));
        decide("compute", "fewer or cheaper operations: lower precision, a better algorithm; the pipe is saturated");
        return call;
    }
    const std::optional<double> of_ceiling = in.timed_gbs && in.bandwidth_ceiling_gbs && *in.bandwidth_ceiling_gbs > 0
        ? std::optional<double>(100.0 * *in.timed_gbs / *in.bandwidth_ceiling_gbs)
        : std::nullopt;
    const bool dram_bound = in.dram_pct && *in.dram_pct > t.dram_bound_pct;
    if (dram_bound || (of_ceiling && *of_ceiling >= t.ceiling_bound_pct)) {
        if (dram_bound)
            ev.push_back(fmt::format("DRAM throughput {:.1f} % of peak > {:.0f}%", *in.dram_pct, t.dram_bound_pct));
        if (of_ceiling && *of_ceiling >= t.ceiling_bound_pct)
            ev.push_back(fmt::format("the declared bytes move at {:.0f} GB/s in the timed run, {:.0f}% of the measured "
                                     "{} ({:.0f} GB/s) >= {:.0f}%",
                *in.timed_gbs, *of_ceiling,
                in.bandwidth_ceiling_name.empty() ? "bandwidth ceiling" : in.bandwidth_ceiling_name,
                *in.bandwidth_ceiling_gbs, t.ceiling_bound_pct));
        decide("memory-bandwidth",
            "fewer bytes: fuse kernels, store in lower precision, reuse through shared memory or L2");
        return call;
    }
    if (in.blocks_per_sm && in.smem_per_block_kib && *in.blocks_per_sm <= 1
        && *in.smem_per_block_kib > t.smem_bound_kib) {
        ev.push_back(fmt::format("{} block per SM with {:.0f} KiB of shared memory each (> {:.0f} KiB)",
            *in.blocks_per_sm, *in.smem_per_block_kib, t.smem_bound_kib));
        decide("smem", "shared memory per block: smaller tiles or fewer stages so two blocks fit an SM");
        return call;
    }
    if (in.tensor_pct && in.occupancy_pct && *in.tensor_pct<t.tensor_low_pct&& * in.occupancy_pct> t.occupancy_ok_pct) {
        ev.push_back(
            fmt::format("tensor pipe {:.1f} % < {:.0f}% while occupancy {:.1f} % > {:.0f}%: warps are resident "
                        "but the tensor pipe waits",
                *in.tensor_pct, t.tensor_low_pct, *in.occupancy_pct, t.occupancy_ok_pct));
        decide("compute-suboptimal",
            "feed the tensor pipe: larger tiles, asynchronous copies (TMA / cp.async), more stages, warp "
            "specialisation");
        return call;
    }
    if (in.launches_per_s && in.kernel_share_pct) {
        const double dispatch = 100.0 - *in.kernel_share_pct;
        if (*in.launches_per_s > t.launches_per_s && dispatch > t.dispatch_share_pct) {
            ev.push_back(fmt::format("{:.0f} launches/s > {:.0f} and {:.0f}% of the step outside kernels > {:.0f}%",
                *in.launches_per_s, t.launches_per_s, dispatch, t.dispatch_share_pct));
            decide("launch-overhead", "fewer launches: fuse kernels, CUDA graphs, a persistent kernel");
            return call;
        }
    }
    if (in.sm_active_pct && *in.sm_active_pct < t.sm_active_low_pct) {
        ev.push_back(fmt::format("SMs have work {:.1f} % of cycles < {:.0f}%: too few blocks or tail waves",
            *in.sm_active_pct, t.sm_active_low_pct));
        decide("scheduler", "more parallel work: more blocks than SMs, split-K, smaller blocks, balanced waves");
        return call;
    }
    if (in.sm_pct && in.dram_pct && *in.sm_pct >= t.extremes_pct && *in.dram_pct >= t.extremes_pct) {
        ev.push_back(fmt::format("SM {:.1f} % and DRAM {:.1f} % both >= {:.0f}%: at the roofline ridge", *in.sm_pct,
            *in.dram_pct, t.extremes_pct));
        decide("at-extremes", "none left in this kernel: change the algorithm or the problem it solves");
        return call;
    }
    const std::string readings
        = fmt::format("tensor {} %, FMA {} %, DRAM {} %, SM {} %, occupancy {} %, SMs active {} %", show(in.tensor_pct),
            show(in.fma_pct), show(in.dram_pct), show(in.sm_pct), show(in.occupancy_pct), show(in.sm_active_pct));
    // The matrix's last row: every axis measured and none above its threshold. Without the DRAM
    // and a pipe reading there is nothing to say that of, so the call stays empty.
    if (in.dram_pct && (in.tensor_pct || in.fma_pct)) {
        ev.push_back(fmt::format("no axis above its threshold ({}): the matrix reads this as already at the extremes "
                                 "of the tile axis",
            readings));
        decide("at-extremes",
            "pivot the axis: quantisation, speculative decoding, an algorithmic restructure; kill tile sweeps");
        return call;
    }
    ev.push_back(fmt::format("not enough measured to call it: {}", readings));
    return call;
}

nlohmann::json binding_metrics_json(const BindingEvidenceInput& in)
{
    nlohmann::json j = nlohmann::json::object();
    const auto put = [&](const char* name, const auto& v) {
        if (v)
            j[name] = *v;
    };
    put("tensor_pct", in.tensor_pct);
    put("fma_pct", in.fma_pct);
    put("dram_pct", in.dram_pct);
    put("sm_pct", in.sm_pct);
    put("occupancy_pct", in.occupancy_pct);
    put("sm_active_pct", in.sm_active_pct);
    put("smem_per_block_kib", in.smem_per_block_kib);
    put("blocks_per_sm", in.blocks_per_sm);
    put("launches_per_s", in.launches_per_s);
    put("kernel_share_pct", in.kernel_share_pct);
    put("profiled_ms_per_launch", in.profiled_ms_per_launch);
    put("timed_ms_per_launch", in.timed_ms_per_launch);
    put("timed_gbs", in.timed_gbs);
    put("bandwidth_ceiling_gbs", in.bandwidth_ceiling_gbs);
    return j;
}

nlohmann::json binding_thresholds_json(const BindingThresholds& t)
{
    return {{"pipe_near_peak_pct", t.pipe_near_peak_pct}, {"dram_bound_pct", t.dram_bound_pct},
        {"smem_bound_kib", t.smem_bound_kib}, {"tensor_low_pct", t.tensor_low_pct},
        {"occupancy_ok_pct", t.occupancy_ok_pct}, {"launches_per_s", t.launches_per_s},
        {"dispatch_share_pct", t.dispatch_share_pct}, {"sm_active_low_pct", t.sm_active_low_pct},
        {"extremes_pct", t.extremes_pct}, {"disagreement_pct", t.disagreement_pct},
        {"ceiling_bound_pct", t.ceiling_bound_pct}};
}

} // namespace kwb
