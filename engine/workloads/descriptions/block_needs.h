// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hardware/hardware_traps.h"
#include "study/study.h"

#include <nlohmann/json.hpp>
#include <optional>

// What one thread block of a built-in workload's CUDA kernel needs, computed from its parameters
// without a GPU: the configurations the hardware page checks for traps (hardware/study_traps.h).
namespace kwb {

// gemm's tiled and wgmma kernels for cuda-resolved parameters; nullopt for impl cublaslt.
std::optional<BlockNeeds> gemm_cuda_block_needs(const nlohmann::json& resolved_params);

// One arm of an experiment that may run on a GPU (backend cuda or auto): its parameters resolved
// for the cuda backend of its built-in workload; nullopt for workloads without a tile to speak
// of, cpu experiments and arms whose parameters belong to another backend.
std::optional<BlockNeeds> builtin_block_needs(const Experiment& experiment, const Arm& arm);

} // namespace kwb
