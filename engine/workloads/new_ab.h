// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"
#include "workloads/workload_description.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

// A new two-arm A/B of a built-in workload, the one way both `kwb new` and the window's A/B page
// make one, so the two write the same shape of study: every parameter stored on both arms (the
// workload's defaults filled in for the backend), the metric, the standard controls unticked, the
// profile and plan asked for, and the real A/A arm when asked for (study/arm_roles.h).
namespace kwb {

struct NewAbRequest {
    const WorkloadDescription* workload = nullptr;
    nlohmann::json baseline = nlohmann::json::object(); // given parameters; the rest take their defaults
    nlohmann::json treatment = nlohmann::json::object();
    Backend backend = Backend::Cpu; // whose defaults fill in the parameters
    std::string backend_setting = "cpu"; // what the study records: "cpu", "cuda" or "auto"
    std::string metric; // the target metric when the workload has it; else its first metric
    std::string id = "ab-1";
    std::string profile = "generic";
    RunPlan plan;
    std::vector<std::string> guards;
    bool aa_arm = false;
};

// Throws WorkloadError (a parameter the backend lacks, a value out of its domain) with the arm's
// name in front ("treatment: ...") and std::invalid_argument without a workload.
Experiment new_ab_experiment(const NewAbRequest& request);

} // namespace kwb
