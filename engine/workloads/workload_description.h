// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "util/direction.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

// What a workload is, as data: its name, backends, parameters and metrics. The analysis library
// owns it, so the editors, `kwb new` and the study checks read one description without linking a
// kernel or a runner; a Workload (workloads/workload.h) is a description plus the code that runs it.
namespace kwb {

enum class Backend { Cpu, Cuda };
std::string_view to_string(Backend b);

// A failure of one workload: bad parameters, a failed allocation, a device fault. The runner
// reports it and stops the experiment (exit 1) after saving what finished.
class WorkloadError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct ParamSpec {
    std::string name;
    nlohmann::json default_value; // a number or a string
    std::vector<nlohmann::json> values; // listed values: each runs one repetition in seconds on 2 cores
    std::string description;
    std::vector<Backend> only_on {}; // empty: every backend of the workload; else those that have it
    nlohmann::json cuda_default {}; // the default on the cuda backend where it differs (null: same)
};

struct MetricSpec {
    std::string name; // e.g. "time_ms"
    std::string unit; // e.g. "ms"
    Direction direction = Direction::Lower;
    std::string description;
};

struct WorkloadDescription {
    std::string name;
    std::string text; // one paragraph: what it computes, on each backend
    std::vector<Backend> backends;
    std::vector<ParamSpec> params;
    std::vector<MetricSpec> metrics;
    // Older names that still load (a workload that absorbed another keeps its name as an alias).
    std::vector<std::string> aliases {};
    // Measures nothing real (synthetic draws for testing the statistics); every listing marks it.
    bool synthetic = false;
};

// The value of an integer parameter given in JSON: an integer, or a float with no fraction
// (2.0: a hand-edited study, another JSON writer) within +-9e15, where doubles still hold every
// integer exactly. nullopt for anything else, so a huge or fractional value is never cast.
std::optional<long long> whole_number(const nlohmann::json& value);

bool has_backend(const WorkloadDescription& workload, Backend backend);
// True when `given` names only parameters the backend has (what `--backend auto` needs to pick it).
bool params_fit_backend(const WorkloadDescription& workload, const nlohmann::json& given, Backend backend);

// Fills defaults in and checks every given name is a parameter of the workload and of the
// right kind (number vs string). Throws WorkloadError naming the parameter. With a backend, the
// defaults are that backend's and a parameter the backend lacks is refused ("gemm: parameter
// 'block' exists on the cpu backend only"); parameters of other backends are left out.
nlohmann::json resolve_params(
    const WorkloadDescription& workload, const nlohmann::json& given, std::optional<Backend> backend = std::nullopt);

// The parameters an experiment's backend setting has ("cpu", "cuda"; "auto": every parameter of
// any backend), and name -> default for them (the cuda default on "cuda"): the arm editor's rows
// and the defaults the arm diff fills in.
std::vector<ParamSpec> params_on(const WorkloadDescription& workload, std::string_view backend_setting);
nlohmann::json defaults_on(const WorkloadDescription& workload, std::string_view backend_setting);

// The JSON description as `kwb workloads --json` lists it.
nlohmann::json describe_workload(const WorkloadDescription& workload);

// "a, b, c": the names of a workload's parameters and metrics, for the error messages that list
// what would have been valid.
std::string param_names(const WorkloadDescription& workload);
std::string metric_names(const WorkloadDescription& workload);

} // namespace kwb
