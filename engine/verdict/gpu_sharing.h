// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// "The GPU to ourselves": a repetition during which another process had work on the study's GPU
// timed that process as much as the kernel, by an amount nobody measured. The one owner of which
// repetitions were shared (from NVML's `other_gpu_processes` lane, sampling/nvml_source.h) and of
// what that does to the final verdict (docs/verdict.md, "Another process on the GPU").
//
// Derived at read time from what every GPU run already records: each repetition's start (t_s)
// and duration on the lanes' clock, and the lane's readings. A repetition is shared when a
// reading during it, or the nearest one on each side when none fell inside it (a repetition
// shorter than the sampler period), counted another process.

#include "study/study.h"
#include "verdict/verdict_types.h"

#include <optional>

namespace kwb {

inline constexpr const char* kOtherGpuProcessesLane = "other_gpu_processes";

// Whether each sample of `e` was shared, by index into e.samples (false for warm-up and
// discarded ones, which are never judged). Empty without the lane.
std::vector<bool> shared_repetitions(const Experiment& e);

// The judged repetitions looked at and those shared; nullopt when the run recorded no process
// list (a CPU run, no NVML, a study older than the lane).
std::optional<GpuSharingSummary> gpu_sharing_evidence(const Experiment& e);

// Any shared repetition makes the final verdict INCONCLUSIVE, with the count in its reasons
// ("another process used the GPU in 12 of 12 repetitions"); none leaves it as it was.
void apply_gpu_sharing(FinalVerdict& verdict, const GpuSharingSummary& sharing);

} // namespace kwb
