// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "workloads/workload_description.h"

#include <initializer_list>
#include <string_view>

// The parameters and metrics the built-in workloads share, spelled once for every description.
namespace kwb {

// A JSON array of integers, for ParamSpec::values.
std::vector<nlohmann::json> int_values(std::initializer_list<long long> values);

// The ParamSpec of the `iterations` and `threads` parameters, the same for every kernel.
ParamSpec iterations_param(long long default_value, std::initializer_list<long long> values);
ParamSpec threads_param();

// The time_ms MetricSpec of the kernels: the mean over the repetition's iterations.
MetricSpec time_metric(std::string_view per_iteration_work);

// A parameter only one backend has (kwb workloads says so; kwb new refuses it on the other).
ParamSpec only_on(Backend backend, ParamSpec spec);
// The same parameter with another default on the cuda backend.
ParamSpec with_cuda_default(ParamSpec spec, nlohmann::json cuda_default);
// The cuda backend's `cache` parameter: hot (inputs left in L2 between launches) or cold (L2
// flushed before every launch, outside the timed region).
ParamSpec cache_param();
// The `inject_fault` parameter that proves the correctness gate: "wrong-result" perturbs the
// output after it is computed, so the check must fail and the run must end without a verdict.
ParamSpec fault_param();

} // namespace kwb
