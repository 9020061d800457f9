// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hardware/cuobjdump_text.h"
#include "study/kernel_inventory.h"

#include <filesystem>
#include <string>
#include <vector>

// Reading the CUDA kernels of a build through the toolkit's cuobjdump (docs/git-arms.md):
// `--dump-resource-usage` for registers, shared and local memory, `-sass` for the code's hash.
// Where cuobjdump is absent the inventory says so and holds no kernels: nothing is invented.
namespace kwb {

// cuobjdump's path: $KWB_CUOBJDUMP, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin; empty when none.
std::string find_cuobjdump();

// Every ELF executable, shared library, object and .cubin under `root` (not .git), relative paths.
std::vector<std::filesystem::path> device_code_candidates(const std::filesystem::path& root);

// The kernels of those files. `source` is "cuobjdump" when it ran; notes say what it could not do.
KernelInventory read_build_kernels(const std::filesystem::path& root);
// The kernels of one file (the GPU backend plugin: the embedded workloads' SASS), rows named by
// its file name; the same notes.
KernelInventory read_binary_kernels(const std::filesystem::path& file);

} // namespace kwb
