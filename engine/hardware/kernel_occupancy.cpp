// SPDX-License-Identifier: GPL-3.0-or-later
#include "hardware/kernel_occupancy.h"

#include "hardware/hardware_traps.h"

#include <algorithm>
#include <climits>

namespace kwb {

std::optional<KernelOccupancy> kernel_occupancy(const KernelResource& k, const GpuPart& part, int block_threads)
{
    if (!k.registers || part.regs_per_sm <= 0 || part.threads_per_sm <= 0 || part.max_blocks_per_sm <= 0
        || block_threads <= 0)
        return std::nullopt;
    const int warps_per_block = (block_threads + 31) / 32;
    const int max_warps = part.threads_per_sm / 32;
    // Registers are allocated per warp, in units of 256 (all parts since sm_50).
    const int regs_per_warp = ((std::max(*k.registers, 1) * 32 + 255) / 256) * 256;
    const int by_regs = (part.regs_per_sm / regs_per_warp) / warps_per_block;
    const int by_threads = part.threads_per_sm / (warps_per_block * 32);
    int by_smem = INT_MAX;
    const double smem = k.static_smem_bytes.value_or(0);
    if (smem > 0 && part.smem_per_sm_kib > 0)
        by_smem = static_cast<int>(part.smem_per_sm_kib * 1024 / (smem + kReservedSmemPerBlock));
    KernelOccupancy o;
    o.blocks_per_sm = part.max_blocks_per_sm;
    o.limiter = "blocks per SM";
    for (const auto& [blocks, name] :
        {std::pair {by_threads, "threads"}, std::pair {by_smem, "shared memory"}, std::pair {by_regs, "registers"}})
        if (blocks < o.blocks_per_sm || (blocks == o.blocks_per_sm && std::string(name) == "registers")) {
            o.blocks_per_sm = blocks;
            o.limiter = name;
        }
    o.warps_per_sm = o.blocks_per_sm * warps_per_block;
    o.occupancy_pct = 100.0 * o.warps_per_sm / max_warps;
    return o;
}

const GpuPart* study_gpu_part(const std::string& device_in_use, const nlohmann::json& devices)
{
    if (!device_in_use.empty())
        if (const GpuPart* p = find_gpu_part(device_in_use))
            return p;
    if (devices.is_array())
        for (const auto& d : devices)
            if (d.is_object() && d.value("kind", "") == "cuda")
                if (const GpuPart* p = find_gpu_part(d.value("name", "")))
                    return p;
    return nullptr;
}

} // namespace kwb
