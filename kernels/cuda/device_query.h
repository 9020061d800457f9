// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>

namespace kwb::cuda {

// Each visible CUDA device's hardware sheet as a JSON array, or {"error": "..."} when the
// runtime cannot reach a device (no driver, a driver older than the runtime, no GPU).
nlohmann::json query_devices();

// SMs of the calling thread's current device (launch shapes sized to fill one wave).
int current_sm_count();

} // namespace kwb::cuda
