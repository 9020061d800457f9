// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/kernel_code.h"

#include "verdict/wording.h"

#include <algorithm>
#include <fmt/format.h>

namespace kwb {

bool apply_kernel_code_rule(FinalVerdict& verdict, const KernelDiff& diff)
{
    const auto reason = identical_sass_reason(diff);
    if (!reason || std::find(verdict.reasons.begin(), verdict.reasons.end(), *reason) != verdict.reasons.end())
        return false;
    verdict.reasons.push_back(*reason);
    return true;
}

namespace {

std::string change(const char* what, const std::optional<int>& b, const std::optional<int>& t, const char* unit)
{
    if (b == t || !b || !t)
        return {};
    return fmt::format("{} {} -> {}{}", what, *b, *t, unit);
}

} // namespace

std::optional<std::string> resource_diff_reason(const KernelDiff& diff, const GpuPart* part, std::size_t limit)
{
    // Kernels are paired by name. One kernel only in each arm is also a pair: the arms run two
    // instantiations of one kernel (the driver's inventory of an embedded workload's configuration,
    // tile 64 against 128), and what changed between them is the point.
    struct Pair {
        std::string name;
        const KernelResource *baseline, *treatment;
    };
    std::vector<Pair> pairs;
    const KernelDiffRow *only_b = nullptr, *only_t = nullptr;
    int unmatched_b = 0, unmatched_t = 0;
    for (const auto& row : diff.rows) {
        if (row.baseline && row.treatment) {
            if (row.resources_differ)
                pairs.push_back({row.name, row.baseline, row.treatment});
        } else if (row.baseline) {
            only_b = &row, ++unmatched_b;
        } else if (row.treatment) {
            only_t = &row, ++unmatched_t;
        }
    }
    if (unmatched_b == 1 && unmatched_t == 1 && only_b->arch == only_t->arch)
        pairs.push_back({only_b->name + " -> " + only_t->name, only_b->baseline, only_t->treatment});
    std::vector<std::string> named;
    std::size_t differing = 0;
    for (const auto& pair : pairs) {
        std::vector<std::string> parts;
        for (auto c : {change("registers", pair.baseline->registers, pair.treatment->registers, " per thread"),
                 change("static shared memory", pair.baseline->static_smem_bytes, pair.treatment->static_smem_bytes,
                     " bytes"),
                 change("local memory", pair.baseline->local_bytes, pair.treatment->local_bytes, " bytes per thread")})
            if (!c.empty())
                parts.push_back(std::move(c));
        if (part) {
            const auto ob = kernel_occupancy(*pair.baseline, *part), ot = kernel_occupancy(*pair.treatment, *part);
            if (ob && ot && ob->occupancy_pct != ot->occupancy_pct)
                parts.push_back(fmt::format("occupancy {}% -> {}% (limited by {} on {}, {} threads per block assumed)",
                    wording::num(ob->occupancy_pct), wording::num(ot->occupancy_pct), ot->limiter, part->name,
                    kAssumedBlockThreads));
        }
        if (parts.empty() || ++differing > limit)
            continue;
        std::string joined;
        for (const auto& p : parts)
            joined += (joined.empty() ? "" : ", ") + p;
        named.push_back(fmt::format("{}: {}", pair.name, joined));
    }
    if (named.empty())
        return std::nullopt;
    std::string text = "kernels whose resources differ: ";
    for (std::size_t i = 0; i < named.size(); ++i)
        text += (i ? "; " : "") + named[i];
    if (differing > limit)
        text += fmt::format("; and {} more (STUDY.kernels.json)", differing - limit);
    return text;
}

bool apply_resource_diff_rule(FinalVerdict& verdict, const KernelDiff& diff, const GpuPart* part)
{
    const auto reason = resource_diff_reason(diff, part);
    if (!reason || std::find(verdict.reasons.begin(), verdict.reasons.end(), *reason) != verdict.reasons.end())
        return false;
    verdict.reasons.push_back(*reason);
    return true;
}

} // namespace kwb
