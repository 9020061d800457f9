// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The check of a worker arm's settings, before anything starts: analysis (it runs no process), so
// the window's worker-arm editor asks the same rule as kwb new and kwb run.
#include "study/worker_spec.h"

#include <string>

namespace kwb::worker {

// The workload name of every worker experiment.
inline constexpr const char* kWorkerWorkload = "worker";

// A command, a positive timeout, an existing cwd, a cap in range (the tolerances are the study
// codec's: worker_spec.h). Throws WorkloadError naming the arm and the field.
void validate(const WorkerSpec& spec, const std::string& arm);

} // namespace kwb::worker
