// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <functional>
#include <string>
#include <vector>

// `kwb run STUDY --devices 0,1,...` (docs/cluster.md): the study's runnable experiments (grid
// cells, A/Bs: each is independent, its arms interleaved on one device) run in parallel, one
// worker process per listed device. Each worker is `kwb run STUDY --cell ID --device D`: it locks
// and writes only its part file (study/study_parts.h). The parent holds the study's lock the whole
// time and folds each part into the study as its worker ends, so the study on disk gains each
// cell's samples and verdicts when that cell finishes. A signal stops every worker at its next
// boundary (each saves its part) and the parent folds what they kept; exit 130.
namespace kwb::cli {

struct DevicesRunRequest {
    std::string study;
    std::vector<int> devices; // distinct; CUDA indices for GPU runs, worker slots for CPU runs
    std::string backend; // passed on to each worker; empty: each experiment's own
    bool json_progress = false; // relay the workers' streams, each line with "device"; one "end"
    bool no_cupti = false;
};

// Checks one runnable experiment of the loaded study exactly as `kwb run` would (throws BadInput)
// and returns the backend it will run on ("cpu" or "cuda").
using ExperimentCheck = std::function<std::string(const Study&, Experiment&)>;

int run_on_devices(const DevicesRunRequest& request, const ExperimentCheck& check);

} // namespace kwb::cli
