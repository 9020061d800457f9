// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hardware/gpu_backend_abi.h"
#include "study/kernel_inventory.h"
#include "study/study.h"
#include "workloads/workload.h"

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

// The embedded workloads' kernels through the driver's function attributes (docs/git-arms.md):
// for each A/B arm of an experiment that runs this project's CUDA workloads, the kernel its
// configuration launches, its registers, static shared memory and local memory as
// cudaFuncGetAttributes reads them in the GPU backend plugin (gpu_backend_abi.h,
// KwbGpuKernelAttributesApi), and its SASS hash where cuobjdump can read the plugin file. Recorded
// with source "driver" in STUDY.kernels.json like a commit arm's build, so an embedded A/B (gemm
// tiled block_m 64 vs 128) shows its resource diff. RunSession::plan asks it.
namespace kwb {

struct EmbeddedKernels {
    std::map<std::string, KernelInventory> arms; // arm name -> its kernels; empty: nothing to record
    std::vector<std::string> notes; // why nothing was recorded (CPU backend, an older plugin)
};

// The plugin's reply for one arm as an inventory (source "driver"); an {"error"} reply gives one
// with no kernels and the error as its note.
KernelInventory driver_inventory(const nlohmann::json& reply);

// The kernels of every A/B arm of `e` (workload `w`, on `backend`, CUDA device `device`). `api` null:
// the plugin lacks the table, `api_reason` says why. On the CPU backend nothing is recorded and
// a note says so. `sass` (may be empty): the plugin file's kernels as cuobjdump read them, whose
// hashes are matched by name and arch.
EmbeddedKernels embedded_kernels(const Workload& w, const Experiment& e, Backend backend, int device,
    const KwbGpuKernelAttributesApi* api, const std::string& api_reason, const KernelInventory& sass = {});

// Writes `k` as experiment `id`'s inventories in the study's kernels file (nothing when empty).
void record_embedded_kernels(const std::string& study_path, const std::string& id, const EmbeddedKernels& k);

} // namespace kwb
