// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What `kwb profile` and its `--arms all` mode (cmd_profile_arms.cpp) share: the options, and the
// choice of experiment and backend.
#include "study/study.h"
#include "study/study_lock.h"
#include "workloads/workload.h"

#include <optional>
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

// The study read under its lock, which is held as long as the result lives: one writer per study,
// as kwb run (the binding pass saves into it), and no run sampling PM counters while a profile
// takes them. BadInput when it is locked (naming the holder) or cannot be read.
struct LockedStudy {
    std::optional<StudyLock> lock;
    Study study;
};
LockedStudy lock_and_load(const std::string& path);

// `kwb profile STUDY --arms all` (docs/cli.md).
int profile_arms(const ProfileOptions& o);

} // namespace kwb::cli
