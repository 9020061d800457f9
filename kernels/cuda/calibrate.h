// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>

namespace kwb::cuda {

// The device's measured ceilings: device-to-device copy bandwidth (cudaMemcpyAsync of 1 GiB,
// read + write bytes) and cuBLASLt bf16 GEMM throughput at 8192^3, each
// {"median", "n", "min", "max", "cv_pct", "unit"}, plus "shapes" saying what was measured.
nlohmann::json calibrate_device(int device);

} // namespace kwb::cuda
