// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hardware/measured_ceilings.h"
#include "study/study.h"
#include "verdict/speed_of_light.h"

// The roofs of the device an experiment ran on, and its arms' judged repetitions, from the study
// and what this machine adds to it: one owner for the speed-of-light guard (run/speed_of_light_input.h
// fills `LocalCeilings` from this machine's files) and the roofline (verdict/roofline.h, which the
// window and the reports draw from the study alone).
// - a GPU: the measured ceilings stored for its UUID on this machine, else those in the study's
//   hardware snapshot; the catalogue's datasheet peaks and L2 size;
// - a CPU: the entry stored under cpu_ceilings_key(model), written by hand (no calibration
//   measures a CPU), and the caches of this machine (or of the snapshot's CPU of that model).
// The compute roof is the datasheet's dense peak for the arm's dtype: bf16 for the built-in CUDA
// workloads (their tensor-core work is bf16, their other FLOPs slower still), the highest dense
// peak the part has for worker and command arms, whose dtype the workbench does not know.
namespace kwb {

// What this machine knows beyond the study file; empty when only the study is read.
struct LocalCeilings {
    MeasuredCeilings gpu; // stored here for the experiment's GPU (by UUID)
    MeasuredCeilings cpu; // stored here for the experiment's CPU model (by hand)
    double cpu_cache_bytes = 0; // this machine's caches, when its CPU is the experiment's
};

SpeedOfLightRoofs device_roofs(const Study& study, const Experiment& experiment, const LocalCeilings& here = {});

// One arm's judged repetitions (not warm-up, discarded or failed): time_ms, gbs, and tflops
// (gflops counts as tflops / 1000); a value that is missing, not finite or not positive is absent.
SpeedOfLightArm speed_of_light_arm(const Experiment& experiment, const std::string& arm);

} // namespace kwb
