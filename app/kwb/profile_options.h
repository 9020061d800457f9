// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What `kwb profile` and its `--arms all` mode (cmd_profile_arms.cpp) share: the options, and the
// choice of experiment and backend.
#include "study/study.h"
#include "workloads/workload.h"

#include <string>

namespace kwb::cli {

struct ProfileOptions {
    std::string study;
    std::string experiment; // empty: the study's first experiment
    std::string backend; // empty: the experiment's own setting
    std::string arms; // empty: the baseline (the binding pass); "all": the range profiler over every arm
    bool json = false;
    bool no_cupti = false;
    int device = 0;
    double duration_ms = 300;
};

// The experiment `--experiment` names (default: the first); BadInput when there is none.
const Experiment& pick_experiment(const Study& study, const ProfileOptions& o);
// The backend the experiment runs on here; BadInput / runtime_error as kwb run's choice.
Backend pick_backend(const Workload& w, const Experiment& e, const ProfileOptions& o);

// `kwb profile STUDY --arms all` (docs/cli.md).
int profile_arms(const ProfileOptions& o);

} // namespace kwb::cli
