// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/descriptions/param_helpers.h"

#include <fmt/format.h>

namespace kwb {

std::vector<nlohmann::json> int_values(std::initializer_list<long long> values)
{
    return {values.begin(), values.end()};
}

ParamSpec iterations_param(long long default_value, std::initializer_list<long long> values)
{
    return {"iterations", default_value, int_values(values),
        "timed iterations per repetition; time_ms is their mean and each is kept as an iteration value"};
}

ParamSpec threads_param()
{
    return {"threads", 1, int_values({1, 2}), "worker threads (std::thread, started once in prepare)"};
}

MetricSpec time_metric(std::string_view per_iteration_work)
{
    return {"time_ms", "ms", Direction::Lower,
        fmt::format("mean wall time of one iteration ({}) over the repetition's iterations", per_iteration_work)};
}

ParamSpec only_on(Backend backend, ParamSpec spec)
{
    spec.only_on = {backend};
    return spec;
}

ParamSpec with_cuda_default(ParamSpec spec, nlohmann::json cuda_default)
{
    spec.cuda_default = std::move(cuda_default);
    return spec;
}

ParamSpec cache_param()
{
    return only_on(Backend::Cuda,
        {"cache", "hot", {"hot", "cold"},
            "hot: inputs stay in L2 between launches; cold: L2 flushed before every launch (outside the timed region, "
            "each launch timed with its own events)"});
}

ParamSpec fault_param()
{
    return {"inject_fault", "none", {"none", "wrong-result"},
        "test hook for the correctness gate: wrong-result perturbs the output after computing it, so the check fails "
        "and the run ends without a verdict"};
}

} // namespace kwb
