// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

// Whether an experiment's arms form something the engine can run and judge, whatever machine runs
// it: the one owner of that rule. `kwb run`, the spread-out and Slurm runs (run/runnability.h asks
// here after resolving the workload) and the window's Run button (study/gates.h, run_blocked) all
// ask this function, so a study the window lets run is one kwb runs, and the other way round.
namespace kwb {

// The furthest judged position a study may hold: the order resumes one past it, in an int.
inline constexpr int kMaxSamplePosition = 1 << 30;

struct ShapeCheck {
    std::string problem; // empty: the arms can run; else one sentence, without the experiment's id
    std::vector<std::string> notices; // runnable, but worth saying: "the arms are identical (an A/A run)"
    bool ok() const { return problem.empty(); }
};

// What needs no parameters: the kind and arm count, distinct arm names, a real A/A arm running the
// baseline's configuration, kept samples fitting the order the run resumes. Empty when none.
std::string arms_problem(const Experiment& experiment);

// Two kinds run: "ab" (a single-variable A/B) and "grid-cell" (a cell of a grid group against the
// baseline cell; its arms may differ in the grid's two variables, nothing else). The arms' names are
// distinct, a real A/A arm runs the baseline's configuration, kept samples fit the order the run
// resumes, the profile and its overrides are known. `baseline_params` and `treatment_params` are the
// two arms' parameters with the workload's defaults filled in (study/arm_diff.h).
ShapeCheck check_experiment_shape(const Study& study, const Experiment& experiment,
    const nlohmann::json& baseline_params, const nlohmann::json& treatment_params);

} // namespace kwb
