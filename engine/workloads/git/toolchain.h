// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/git_arm.h"

// The toolchain a commit arm's build depends on, as kwb new finds it here: the C++ compiler
// (${CXX:-c++} --version), the CUDA toolkit (nvcc --version's release line), the NVIDIA driver
// (/proc/driver/nvidia/version, else nvidia-smi). Empty where absent.
namespace kwb::git {

Toolchain probe_toolchain();

} // namespace kwb::git
