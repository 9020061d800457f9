// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"
#include "verdict/speed_of_light.h"

// What the speed-of-light guard (verdict/speed_of_light.h) judges an experiment on: each A/B
// arm's judged repetitions (time_ms, and the gbs and tflops that the workload derived from the
// bytes and FLOPs it declares per launch; gflops counts as tflops / 1000) and the roofs of the
// device the samples were taken on:
// - a GPU: the measured ceilings stored for its UUID on this machine (`kwb calibrate`), else those
//   in the study's hardware snapshot; the catalogue's datasheet peaks and L2 size;
// - a CPU: the entry stored under cpu_ceilings_key(model), written by hand (no calibration
//   measures a CPU), and this machine's caches.
// The compute roof is the datasheet's dense peak for the arm's dtype: bf16 for the built-in CUDA
// workloads (their tensor-core work is bf16, their other FLOPs slower still), the highest dense
// peak the part has for worker and command arms, whose dtype the workbench does not know.
namespace kwb {

SpeedOfLightInput speed_of_light_input(const Study& study, const Experiment& experiment);

// The roofs alone (the roofline draws the same ones).
SpeedOfLightRoofs speed_of_light_roofs(const Study& study, const Experiment& experiment);

} // namespace kwb
