// SPDX-License-Identifier: GPL-3.0-or-later
#include "hardware/kernel_evidence.h"

#include <algorithm>

namespace kwb {
namespace {

double ms(std::uint64_t ns)
{
    return static_cast<double>(ns) * 1e-6;
}

double median_of(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The union of the intervals' lengths: concurrent kernels count once.
std::uint64_t busy_ns(std::vector<KernelRecord> sorted)
{
    std::uint64_t total = 0, cur_start = 0, cur_end = 0;
    bool open = false;
    for (const auto& k : sorted) {
        if (k.end_ns <= k.start_ns)
            continue;
        if (!open || k.start_ns > cur_end) {
            if (open)
                total += cur_end - cur_start;
            cur_start = k.start_ns;
            cur_end = k.end_ns;
            open = true;
        } else
            cur_end = std::max(cur_end, k.end_ns);
    }
    if (open)
        total += cur_end - cur_start;
    return total;
}

struct Accumulator {
    std::vector<double> durations;
    int samples = 0;
    double coverage = 0;
    std::map<std::string, double> sums;
    // Samples that carry each lane: the range rule (study/lane_range.h) may have left a lane out
    // of a window, and its mean is over the windows that have it.
    std::map<std::string, int> counts;
};

} // namespace

ProfileEvidence attribute_kernels(const std::vector<KernelRecord>& kernels, const std::vector<PmWindow>& samples,
    double wall_ms, const AttributionRules& rules)
{
    ProfileEvidence out;
    std::vector<KernelRecord> sorted = kernels;
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
    std::map<std::string, Accumulator> by_name;
    std::uint64_t longest = 0;
    for (const auto& k : sorted) {
        const std::uint64_t d = k.end_ns > k.start_ns ? k.end_ns - k.start_ns : 0;
        by_name[k.name].durations.push_back(ms(d));
        longest = std::max(longest, d);
    }
    out.launches = static_cast<int>(sorted.size());
    out.kernel_busy_ms = ms(busy_ns(sorted));
    out.wall_ms = wall_ms;
    if (wall_ms > 0) {
        out.launches_per_s = out.launches / (wall_ms * 1e-3);
        out.kernel_share_pct = 100.0 * out.kernel_busy_ms / wall_ms;
    }

    for (const auto& s : samples) {
        if (s.end_ns <= s.start_ns)
            continue;
        ++out.samples_total;
        // Records that start before the window by more than the longest kernel cannot reach into it.
        const std::uint64_t from = s.start_ns > longest ? s.start_ns - longest : 0;
        auto it = std::lower_bound(
            sorted.begin(), sorted.end(), from, [](const KernelRecord& k, std::uint64_t t) { return k.start_ns < t; });
        std::map<std::string, double> overlap;
        double all = 0;
        for (; it != sorted.end() && it->start_ns < s.end_ns; ++it) {
            const std::uint64_t a = std::max(it->start_ns, s.start_ns), b = std::min(it->end_ns, s.end_ns);
            if (b > a) {
                overlap[it->name] += static_cast<double>(b - a);
                all += static_cast<double>(b - a);
            }
        }
        if (all <= 0)
            continue;
        const auto top = std::max_element(
            overlap.begin(), overlap.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
        const double coverage = std::min(1.0, top->second / static_cast<double>(s.end_ns - s.start_ns));
        if (coverage < rules.min_sample_coverage || top->second / all < rules.min_kernel_purity)
            continue;
        auto& acc = by_name[top->first];
        ++acc.samples;
        acc.coverage += coverage;
        for (const auto& [lane, v] : s.values) {
            acc.sums[lane] += v;
            ++acc.counts[lane];
        }
        ++out.samples_attributed;
    }

    double all_ms = 0;
    for (const auto& [name, acc] : by_name)
        for (double d : acc.durations)
            all_ms += d;
    for (auto& [name, acc] : by_name) {
        KernelEvidence k;
        k.name = name;
        k.launches = static_cast<int>(acc.durations.size());
        for (double d : acc.durations)
            k.total_ms += d;
        k.mean_ms = k.launches ? k.total_ms / k.launches : 0;
        k.median_ms = median_of(acc.durations);
        k.share_pct = all_ms > 0 ? 100.0 * k.total_ms / all_ms : 0;
        k.samples = acc.samples;
        if (acc.samples > 0) {
            k.coverage_pct = 100.0 * acc.coverage / acc.samples;
            for (const auto& [lane, sum] : acc.sums)
                k.means[lane] = sum / acc.counts.at(lane);
        }
        out.kernels.push_back(std::move(k));
    }
    std::sort(out.kernels.begin(), out.kernels.end(),
        [](const KernelEvidence& a, const KernelEvidence& b) { return a.total_ms > b.total_ms; });
    return out;
}

BindingEvidenceInput binding_input(const ProfileEvidence& evidence, int workload_launches,
    std::optional<double> timed_ms_per_launch, std::optional<int> blocks_per_sm,
    std::optional<double> smem_per_block_kib)
{
    BindingEvidenceInput in;
    if (!evidence.kernels.empty()) {
        const auto& m = evidence.kernels.front().means;
        const auto take = [&](const char* lane) -> std::optional<double> {
            const auto it = m.find(lane);
            return it == m.end() ? std::nullopt : std::optional<double>(it->second);
        };
        in.tensor_pct = take("tensor_pct");
        in.fma_pct = take("fma_pct");
        in.dram_pct = take("dram_pct");
        in.sm_pct = take("sm_pct");
        in.occupancy_pct = take("occupancy");
        in.sm_active_pct = take("sm_active_pct");
    }
    in.launches_per_s = evidence.launches_per_s;
    in.kernel_share_pct = evidence.kernel_share_pct;
    in.blocks_per_sm = blocks_per_sm;
    in.smem_per_block_kib = smem_per_block_kib;
    // The union of the kernels' intervals, not the sum of their durations: with programmatic
    // dependent launch a kernel starts before its predecessor ends and waits, so its Activity
    // record covers the wait; summed, the H200's paged decode read 424 ms of kernels in a 331 ms
    // pass (0.752 ms a launch against 0.511 timed).
    if (workload_launches > 0 && evidence.launches > 0)
        in.profiled_ms_per_launch = evidence.kernel_busy_ms / workload_launches;
    in.timed_ms_per_launch = timed_ms_per_launch;
    return in;
}

nlohmann::json kernels_json(const ProfileEvidence& evidence)
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto& k : evidence.kernels) {
        nlohmann::json metrics = nlohmann::json::object();
        for (const auto& [lane, v] : k.means)
            metrics[lane] = v;
        out.push_back({{"name", k.name}, {"launches", k.launches}, {"total_ms", k.total_ms}, {"mean_ms", k.mean_ms},
            {"median_ms", k.median_ms}, {"share_pct", k.share_pct}, {"samples", k.samples},
            {"coverage_pct", k.coverage_pct}, {"metrics", metrics}});
    }
    return out;
}

} // namespace kwb
