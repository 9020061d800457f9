// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// kwb/worker/config.h: what every part of kwb/worker.h shares: CUDA or not, the standard
// headers, the protocol's version and message cap.

#if defined(__CUDACC__) || defined(KWB_WORKER_CUDA)
#define KWB_WORKER_HAS_CUDA 1
#include <cuda_runtime.h>
#else
#define KWB_WORKER_HAS_CUDA 0
#endif

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <locale>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unistd.h>
#include <utility>
#include <vector>

namespace kwb::worker {

inline constexpr int kProtocol = 1;
inline constexpr std::size_t kMaxMessageBytes = std::size_t {1} << 20;

} // namespace kwb::worker
