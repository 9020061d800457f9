// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"
#include "verdict/speed_of_light.h"

// What the speed-of-light guard (verdict/speed_of_light.h) judges an experiment on: each A/B
// arm's judged repetitions and the roofs of the device the samples were taken on, as
// verdict/speed_of_light_roofs.h takes them from the study, with what this machine adds: the
// measured ceilings stored here for the GPU's UUID (`kwb calibrate`), the hand-written entry of a
// CPU model (cpu_ceilings_key) and this machine's caches.
namespace kwb {

SpeedOfLightInput speed_of_light_input(const Study& study, const Experiment& experiment);

// The roofs alone (the roofline draws the same ones).
SpeedOfLightRoofs speed_of_light_roofs(const Study& study, const Experiment& experiment);

} // namespace kwb
