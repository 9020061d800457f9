// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/descriptions/builtin_descriptions.h"
#include "workloads/descriptions/param_helpers.h"

namespace kwb {

const WorkloadDescription& bandwidth_description()
{
    static const WorkloadDescription d {
        "bandwidth",
        "memory bandwidth: STREAM copy a = b or triad a = b + 3*c over fp32 arrays of size_mb MiB each; on the GPU the "
        "kernel that measures the device's memory ceiling",
        {Backend::Cpu, Backend::Cuda},
        []() -> std::vector<ParamSpec> {
            ParamSpec size {"size_mb", 64, int_values({1, 4, 16, 64, 128}),
                "MiB per array; past the last-level cache (L2 on a GPU) it measures DRAM bandwidth"};
            size.cuda_default = 1024;
            auto iterations = iterations_param(10, {1, 10, 50});
            iterations.cuda_default = 10;
            return {
                {"op", "triad", {"triad", "copy"},
                    "triad: a = b + 3*c (two reads, one write); copy: a = b (one read, one write)"},
                size,
                only_on(Backend::Cpu, threads_param()),
                iterations,
                only_on(
                    Backend::Cuda, {"vector_width", 4, int_values({1, 2, 4, 8}), "fp32 elements per thread access"}),
                only_on(Backend::Cuda, {"block_threads", 256, int_values({128, 256, 512, 1024}), "threads per block"}),
                cache_param(),
                {"skip_work_pct", 0.0, {0.0, 90.0, 99.99},
                    "test aid for the speed-of-light guard, never a measurement: the kernel processes only the first "
                    "(100 "
                    "- skip_work_pct)% of the elements while gbs still counts them all, and the correctness check is "
                    "bypassed (a kernel that skips its work and a check that does not look); a number in [0, 100)"},
            };
        }(),
        []() -> std::vector<MetricSpec> {
            return {time_metric("one pass over the arrays"),
                {"gbs", "GB/s", Direction::Higher,
                    "STREAM bytes (copy 2, triad 3 times size_mb MiB: reads plus the write; write-allocate not "
                    "counted) / time_ms"}};
        }(),
        // It absorbed the CPU `triad` workload; studies that name it still load.
        {"triad"},
        false,
    };
    return d;
}

} // namespace kwb
