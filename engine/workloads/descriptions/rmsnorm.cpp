// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/descriptions/builtin_descriptions.h"
#include "workloads/descriptions/param_helpers.h"

namespace kwb {

const WorkloadDescription& rmsnorm_description()
{
    static const WorkloadDescription d {
        "rmsnorm",
        "RMSNorm of rows x hidden fp32 activations times a weight vector; vector_width floats per loop step",
        {Backend::Cpu, Backend::Cuda},
        []() -> std::vector<ParamSpec> {
            ParamSpec rows {
                "rows", 512, int_values({64, 256, 512, 1024, 2048}), "rows (tokens) normalised independently"};
            rows.cuda_default = 8192;
            ParamSpec width {"vector_width", 4, int_values({1, 4, 8}),
                "elements per access and partial sums in the reduction (1 = scalar loop; cpu: 1, 4, 8, 16 fp32; cuda: "
                "1, 2, 4, 8 bf16)"};
            width.cuda_default = 8;
            auto iterations = iterations_param(100, {1, 100, 500});
            iterations.cuda_default = 10;
            return {
                rows,
                {"hidden", 4096, int_values({1024, 2048, 4096, 8192}), "elements per row"},
                width,
                only_on(Backend::Cpu, threads_param()),
                iterations,
                only_on(
                    Backend::Cuda, {"rows_per_block", 1, int_values({1, 2, 4}), "rows one thread block normalises"}),
                cache_param(),
            };
        }(),
        []() -> std::vector<MetricSpec> {
            return {time_metric("one rows x hidden RMSNorm"),
                {"gbs", "GB/s", Direction::Higher,
                    "bytes read once and written once (cpu: 2 * 4 * rows * hidden fp32; cuda: bf16 x and y) / time_ms; "
                    "the second read of x is not counted"}};
        }(),
        {},
        false,
    };
    return d;
}

} // namespace kwb
