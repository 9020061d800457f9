// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"
#include "workloads/workload.h"

#include <string>
#include <string_view>
#include <vector>

// Whether one experiment can run here, and on which backend: the one function every caller asks
// (`kwb run`, its spread-out workers, Slurm submission, the window through `kwb run`). It adds to
// the shape rule (study/experiment_shape.h) what needs the workload and this machine: the workload
// and metric exist, the parameters resolve, the backend is chosen and can hold the configuration.
namespace kwb {

struct Runnability {
    // Bad input: the study must change (one sentence, without the experiment's id); empty when none.
    std::string problem;
    // The study is fine, but this machine cannot run it as asked (no usable CUDA device here).
    std::string unavailable;
    std::vector<std::string> notices; // runnable, but worth saying once
    const Workload* workload = nullptr;
    Backend backend = Backend::Cpu;
    bool runnable() const { return problem.empty() && unavailable.empty(); }
};

// `backend_option` overrides the experiment's own backend ("auto", "cpu", "cuda"; empty: the
// experiment's). CUDA configurations are checked against the selected CUDA device
// (workloads/cuda_workload.h, select_cuda_device). An external command runs on the CPU unless its
// backend is cuda, or auto with `device_named` (the run named a device) where a GPU is visible.
Runnability check_runnable(const WorkloadRegistry& registry, const Study& study, const Experiment& experiment,
    std::string_view backend_option, bool device_named = false);

} // namespace kwb
