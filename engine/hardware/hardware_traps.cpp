// SPDX-License-Identifier: GPL-3.0-or-later
#include "hardware/hardware_traps.h"

#include "util/hardware_text.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace kwb {
namespace {

constexpr double kKiB = 1024.0;

double number_of(const nlohmann::json& o, const char* key)
{
    const auto it = o.find(key);
    return it != o.end() && it->is_number() ? it->get<double>() : 0.0;
}

// "8.9" -> 89; 0 when unreadable.
int sm_number(const std::string& cc)
{
    const auto dot = cc.find('.');
    if (dot == std::string::npos)
        return 0;
    try {
        return std::stoi(cc.substr(0, dot)) * 10 + std::stoi(cc.substr(dot + 1));
    } catch (const std::exception&) {
        return 0;
    }
}

std::string kib(double bytes)
{
    const double k = bytes / kKiB;
    return k == std::floor(k) ? fmt::format("{:.0f} KiB", k) : fmt::format("{:.1f} KiB", k);
}

const char* kTrapRule = "Playbook phase 2, hardware traps: pull the SM limits before writing code; Hopper-default "
                        "tiles (~96 KB of smem per CTA, tuned for 228 KB) leave 1 block/SM on a 100 KB part";

} // namespace

std::optional<GpuLimits> gpu_limits(const nlohmann::json& device)
{
    if (!device.is_object() || device.value("kind", "") != "cuda")
        return std::nullopt;
    GpuLimits l;
    l.name = device.value("name", "");
    l.sm = device.value("compute_capability", "");
    l.smem_per_sm_bytes = number_of(device, "smem_per_sm_bytes");
    l.smem_per_block_optin_bytes = number_of(device, "smem_per_block_optin_bytes");
    l.threads_per_sm = static_cast<int>(number_of(device, "max_threads_per_sm"));
    l.max_blocks_per_sm = static_cast<int>(number_of(device, "max_blocks_per_sm"));
    l.from = "device sheet";
    // A sheet recorded by an older kwb may lack a limit the catalogue states.
    if (const GpuPart* part = find_gpu_part(l.name)) {
        const GpuLimits c = gpu_limits(*part);
        if (l.sm.empty())
            l.sm = c.sm;
        if (l.smem_per_sm_bytes <= 0)
            l.smem_per_sm_bytes = c.smem_per_sm_bytes;
        if (l.smem_per_block_optin_bytes <= 0)
            l.smem_per_block_optin_bytes = c.smem_per_block_optin_bytes;
        if (l.threads_per_sm <= 0)
            l.threads_per_sm = c.threads_per_sm;
        if (l.max_blocks_per_sm <= 0)
            l.max_blocks_per_sm = c.max_blocks_per_sm;
    }
    if (l.smem_per_sm_bytes <= 0)
        return std::nullopt;
    return l;
}

GpuLimits gpu_limits(const GpuPart& part)
{
    return {part.name, part.sm, part.smem_per_sm_kib * kKiB, part.smem_per_block_optin_kib * kKiB, part.threads_per_sm,
        part.max_blocks_per_sm, "catalogue"};
}

BlockOccupancy block_occupancy(const BlockNeeds& needs, const GpuLimits& limits)
{
    BlockOccupancy o;
    o.fits = limits.smem_per_block_optin_bytes <= 0 || needs.smem_bytes <= limits.smem_per_block_optin_bytes;
    if (!o.fits)
        return o;
    const double reserved = sm_number(limits.sm) >= 80 ? kReservedSmemPerBlock : 0.0;
    int blocks = limits.max_blocks_per_sm > 0 ? limits.max_blocks_per_sm : 32;
    o.limiter = "blocks per SM";
    if (needs.smem_bytes > 0 && limits.smem_per_sm_bytes > 0) {
        const int by_smem = static_cast<int>(std::floor(limits.smem_per_sm_bytes / (needs.smem_bytes + reserved)));
        if (by_smem < blocks) {
            blocks = by_smem;
            o.limiter = "shared memory";
        }
    }
    if (needs.threads > 0 && limits.threads_per_sm > 0) {
        const int by_threads = limits.threads_per_sm / needs.threads;
        if (by_threads < blocks) {
            blocks = by_threads;
            o.limiter = "threads";
        }
    }
    o.blocks_per_sm = std::max(blocks, 0);
    return o;
}

std::string occupancy_line(const std::string& who, const BlockNeeds& needs, const GpuLimits& limits)
{
    const BlockOccupancy o = block_occupancy(needs, limits);
    const std::string head = fmt::format(
        "{} ({}): {} of shared memory, {} threads per block", who, needs.config, kib(needs.smem_bytes), needs.threads);
    if (!o.fits)
        return fmt::format("{}; {} allows {} per block: it does not launch", head, limits.name,
            kib(limits.smem_per_block_optin_bytes));
    return fmt::format("{} -> {} block{} per SM on {} (limited by {})", head, o.blocks_per_sm,
        o.blocks_per_sm == 1 ? "" : "s", limits.name, o.limiter);
}

std::vector<TrapWarning> config_traps(const std::string& who, const BlockNeeds& needs, const GpuLimits& limits)
{
    std::vector<TrapWarning> out;
    const BlockOccupancy o = block_occupancy(needs, limits);
    if (!o.fits) {
        out.push_back(
            {fmt::format("{} ({}) needs {} of shared memory per block; {} allows {}: it cannot launch there", who,
                 needs.config, kib(needs.smem_bytes), limits.name, kib(limits.smem_per_block_optin_bytes)),
                kTrapRule});
        return out;
    }
    if (o.blocks_per_sm == 1 && needs.smem_bytes > kSmemBoundBytes)
        out.push_back({fmt::format("{} ({}) uses {} of shared memory per block: 1 block per SM of {} on {} "
                                   "(the smem-bound signature, 1 block/SM with > 90 KiB; a tile tuned for a "
                                   "bigger part?)",
                           who, needs.config, kib(needs.smem_bytes), kib(limits.smem_per_sm_bytes), limits.name),
            kTrapRule});
    return out;
}

std::vector<TrapWarning> architecture_traps(const GpuLimits& limits)
{
    std::vector<TrapWarning> out;
    const int sm = sm_number(limits.sm);
    if (sm <= 0)
        return out;
    const std::string arch = sm_name(limits.sm);
    if (limits.smem_per_sm_bytes > 0 && limits.smem_per_sm_bytes <= 100 * kKiB)
        out.push_back({fmt::format("{} has {} of shared memory per SM: Hopper-default tiles (~96 KB per CTA, tuned "
                                   "for 228 KB) leave 1 block per SM here; revisit the tiles first",
                           arch, kib(limits.smem_per_sm_bytes)),
            kTrapRule});
    if (sm < 89)
        out.push_back({fmt::format("{} has no FP8 tensor-core mma (FP8 arrives with sm_89): an FP8 path is emulated "
                                   "here",
                           arch),
            "Playbook phase 2 reference table: FP8 TFLOPS is '-' for sm_80 and sm_86"});
    if (sm == 89) {
        out.push_back({"sm_89: cuBLASLt FP8 requires the TN layout (NN returns CUBLAS_STATUS_NOT_SUPPORTED)",
            "Playbook phase 2, hardware traps: cuBLASLt FP8 on Ada requires TN layout"});
        out.push_back({"sm_89: cuBLASLt's heuristic FP8 dispatch reached ~24% of theoretical; license an FP8 path on "
                       "a direct-mma (cutlass) smoke, not a cuBLASLt one",
            "Playbook phase 2, hardware traps: cuBLASLt heuristic dispatch != cutlass direct mma"});
    }
    if (sm < 100)
        out.push_back({fmt::format("{} has no native FP4 mma (NVFP4 is sm_100+): emulated FP4 is slower than W4A16 "
                                   "Marlin here",
                           arch),
            "Playbook phase 2, hardware traps: sm_89 has no native FP4 mma; NVFP4 is sm_100+ only"});
    if (sm == 90)
        out.push_back({"sm_90: TMA + wgmma kernels are built for sm_90a and run on no other architecture (name it "
                       "under hardware specificity on phase 7)",
            "Playbook phase 7, tradeoff axis 'hardware specificity': does this break on sm_80 / sm_89 / sm_100?"});
    return out;
}

} // namespace kwb
