// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/speed_of_light.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace kwb {
namespace {

std::optional<double> median(std::vector<double> v)
{
    if (v.empty())
        return std::nullopt;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string rate(double gbs)
{
    return gbs >= 1000 ? fmt::format("{:.3g} TB/s", gbs / 1000) : fmt::format("{:.3g} GB/s", gbs);
}

std::string roof_rate(const Roof& r, bool compute)
{
    if (compute)
        return fmt::format("{:.4g} TFLOP/s {}", r.value, r.what);
    return (r.value >= 1000 ? fmt::format("{:.4g} TB/s", r.value / 1000) : fmt::format("{:.4g} GB/s", r.value)) + " "
        + r.what;
}

std::string amount(double x, const char* unit)
{
    if (x >= 1e12)
        return fmt::format("{:.3g} T{}", x / 1e12, unit);
    if (x >= 1e9)
        return fmt::format("{:.3g} G{}", x / 1e9, unit);
    if (x >= 1e6)
        return fmt::format("{:.3g} M{}", x / 1e6, unit);
    if (x >= 1e3)
        return fmt::format("{:.3g} k{}", x / 1e3, unit);
    return fmt::format("{:.3g} {}", x, unit);
}

std::string duration(double ms)
{
    return ms < 0.01 ? fmt::format("{:.3g} us", ms * 1e3) : fmt::format("{:.3g} ms", ms);
}

// An arm's medians over its repetitions. Bytes and FLOPs per launch are rate x time.
struct ArmFigures {
    std::optional<double> time_ms, bytes, gbs, dram_gbs, flops, tflops;
};

ArmFigures figures(const SpeedOfLightArm& arm, double cache_bytes)
{
    std::vector<double> t, b, g, d, f, c;
    for (const auto& r : arm.reps) {
        const bool timed = r.time_ms && *r.time_ms > 0;
        if (timed)
            t.push_back(*r.time_ms);
        if (r.gbs) {
            g.push_back(*r.gbs);
            if (timed) {
                const double bytes = *r.gbs * *r.time_ms * 1e6;
                b.push_back(bytes);
                d.push_back(std::max(0.0, bytes - 2 * cache_bytes) / (*r.time_ms * 1e6));
            } else if (cache_bytes == 0) {
                d.push_back(*r.gbs); // no time: the cache's share cannot be taken off
            }
        }
        if (r.tflops) {
            c.push_back(*r.tflops);
            if (timed)
                f.push_back(*r.tflops * *r.time_ms * 1e9);
        }
    }
    return {median(t), median(b), median(g), median(d), median(f), median(c)};
}

std::string mib(double bytes)
{
    return fmt::format("{:.4g} MiB", bytes / (1024.0 * 1024.0));
}

// "0.12 ms for 2.1 GB is 17.5 TB/s", or the rate alone when the arm has no time.
std::string work_rate(
    const ArmFigures& a, const std::optional<double>& work, const char* unit, double value, bool compute)
{
    const std::string r = compute ? fmt::format("{:.3g} TFLOP/s", value) : rate(value);
    if (a.time_ms && work)
        return fmt::format("{} for {} is {}", duration(*a.time_ms), amount(*work, unit), r);
    return r;
}

} // namespace

SpeedOfLightFinding judge_speed_of_light(const SpeedOfLightInput& in)
{
    SpeedOfLightFinding out;
    const auto& roofs = in.roofs;
    const double factor = 1 + in.margin_pct / 100;
    const std::string x = fmt::format("x {:.2f}", factor);
    const std::string where = fmt::format(
        "roofs of {}, margin {}%", roofs.device.empty() ? std::string("this device") : roofs.device, in.margin_pct);

    std::vector<std::pair<std::string, ArmFigures>> arms;
    bool any_bytes = false, any_flops = false;
    for (const auto& arm : in.arms) {
        arms.emplace_back(arm.name, figures(arm, roofs.cache_bytes));
        any_bytes = any_bytes || arms.back().second.gbs.has_value();
        any_flops = any_flops || arms.back().second.tflops.has_value();
    }
    if (!any_bytes && !any_flops) {
        out.reasons.push_back("speed-of-light guard: not checked: the arms declare no bytes or FLOPs (no GB/s or "
                              "TFLOP/s metric)");
        return out;
    }
    const bool bandwidth_roof = roofs.dram_gbs || roofs.l2_gbs;
    if ((!any_bytes || !bandwidth_roof) && (!any_flops || !roofs.compute_tflops)) {
        out.reasons.push_back(fmt::format("speed-of-light guard: not checked: no {} roof for {} (`kwb calibrate` "
                                          "measures a GPU's ceilings; a CPU's are written by hand, docs/verdict.md)",
            any_bytes ? "bandwidth" : "compute", roofs.device.empty() ? std::string("this device") : roofs.device));
        return out;
    }

    const std::string cache_words = roofs.cache_bytes > 0
        ? fmt::format("beyond twice the {} {}", mib(roofs.cache_bytes), roofs.cache_name)
        : std::string();
    // Per roof: the arms' values for the line that says it held.
    std::vector<std::string> held;
    const auto held_line
        = [&](const std::string& label, const std::vector<std::string>& values, const Roof& roof, bool compute) {
              std::string list;
              for (const auto& v : values)
                  list += (list.empty() ? "" : ", ") + v;
              held.push_back(fmt::format("{}{} within the {} {}", label, list, roof_rate(roof, compute), x));
          };
    std::vector<std::string> dram_values, l2_values, compute_values;

    for (const auto& [name, a] : arms) {
        std::vector<std::string> violations;
        // The bandwidth roofs an arm passed, stated once after its rate: "above the DRAM roof and the L2 roof".
        std::vector<std::string> above;
        bool dram_above = false;
        if (roofs.dram_gbs && a.dram_gbs) {
            dram_above = *a.dram_gbs > roofs.dram_gbs->value * factor;
            if (dram_above)
                above.push_back(fmt::format("the {} {}", roof_rate(*roofs.dram_gbs, false), x));
            dram_values.push_back(fmt::format("{} {}", name, rate(*a.dram_gbs)));
        }
        if (roofs.l2_gbs && a.gbs) {
            if (*a.gbs > roofs.l2_gbs->value * factor)
                above.push_back(fmt::format("the {} {}", roof_rate(*roofs.l2_gbs, false), x));
            l2_values.push_back(fmt::format("{} {}", name, rate(*a.gbs)));
        }
        if (!above.empty()) {
            std::string v = work_rate(a, a.bytes, "B", a.gbs.value_or(a.dram_gbs.value_or(0)), false);
            if (dram_above && roofs.cache_bytes > 0 && a.bytes)
                v += fmt::format(" ({} for the {} {})", rate(*a.dram_gbs),
                    amount(std::max(0.0, *a.bytes - 2 * roofs.cache_bytes), "B"), cache_words);
            v += ", above " + above.front();
            if (above.size() > 1)
                v += " and " + above.back();
            violations.push_back(v);
        }
        if (roofs.compute_tflops && a.tflops) {
            if (*a.tflops > roofs.compute_tflops->value * factor)
                violations.push_back(fmt::format("{}, above the {} {}", work_rate(a, a.flops, "FLOP", *a.tflops, true),
                    roof_rate(*roofs.compute_tflops, true), x));
            compute_values.push_back(fmt::format("{} {:.3g} TFLOP/s", name, *a.tflops));
        }
        if (violations.empty())
            continue;
        std::string joined;
        for (const auto& v : violations)
            joined += (joined.empty() ? "" : "; ") + v;
        out.invalid_arms.push_back(name);
        out.reasons.push_back(fmt::format(
            "speed-of-light guard: {}: {}: invalid, it cannot have done its work ({})", name, joined, where));
    }
    if (!out.invalid_arms.empty())
        return out;

    if (!dram_values.empty())
        held_line(roofs.cache_bytes > 0 ? fmt::format("DRAM bytes {}: ", cache_words) : "DRAM: ", dram_values,
            *roofs.dram_gbs, false);
    if (!l2_values.empty())
        held_line(fmt::format("{}: ", roofs.cache_name), l2_values, *roofs.l2_gbs, false);
    if (!compute_values.empty())
        held_line("compute: ", compute_values, *roofs.compute_tflops, true);
    if (any_flops && !roofs.compute_tflops)
        held.push_back("TFLOP/s not checked (no datasheet peak)");
    if (any_bytes && !bandwidth_roof)
        held.push_back("GB/s not checked (no measured ceiling or datasheet peak)");
    if (held.empty()) // bytes without a time, where the cache's share cannot be taken off
        held.push_back("nothing comparable (GB/s without time_ms, beside a cache)");
    std::string line;
    for (const auto& h : held)
        line += (line.empty() ? "" : "; ") + h;
    out.reasons.push_back(fmt::format("speed-of-light guard holds ({}): {}", where, line));
    return out;
}

void apply_speed_of_light(FinalVerdict& final, const SpeedOfLightFinding& finding)
{
    if (finding.invalid_arms.empty()) {
        final.reasons.insert(final.reasons.end(), finding.reasons.begin(), finding.reasons.end());
        return;
    }
    final.word = VerdictWord::Inconclusive;
    final.reasons.insert(final.reasons.begin(), finding.reasons.begin(), finding.reasons.end());
    final.flags.push_back("speed of light");
}

} // namespace kwb
