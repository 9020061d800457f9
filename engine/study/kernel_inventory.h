// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

// The CUDA kernels of what an arm runs, their code (a SASS hash) and resources (docs/git-arms.md),
// and the diff of two arms' kernels. kwb run reads them when it prepares an arm
// (hardware/cuobjdump.h) and keeps them beside the study, in STUDY.kernels.json
// ({"experiments": {ID: {ARM: inventory}}}); the pages and every report format read that file.
// A figure nobody reported stays empty: never invented.
namespace kwb {

struct KernelResource {
    std::string name; // the function's (mangled) name
    std::string binary; // the file it came from, relative to the arm's worktree
    std::string arch; // "sm_90"
    std::string sass_sha256; // of its SASS text; empty: the SASS could not be read
    std::optional<int> registers; // per thread
    std::optional<int> static_smem_bytes;
    std::optional<int> local_bytes; // local memory per thread (spills, local arrays)
};

struct KernelInventory {
    std::string source; // "cuobjdump" or "driver"; empty: nothing could read the kernels
    std::vector<KernelResource> kernels;
    std::vector<std::string> notes; // "cuobjdump is not on PATH: ..."
    std::string taken_at; // ISO 8601 UTC
};

// experiment id -> arm name -> inventory
using KernelInventories = std::map<std::string, std::map<std::string, KernelInventory>>;

nlohmann::json kernel_inventory_json(const KernelInventory& k);
KernelInventory kernel_inventory_from(const nlohmann::json& j); // throws FormatError naming the field

// STUDY.json -> STUDY.kernels.json
std::filesystem::path kernels_path(const std::filesystem::path& study);
// Empty when the file is absent; throws FormatError when it is malformed.
KernelInventories load_kernel_inventories(const std::filesystem::path& study);
void save_kernel_inventories(const std::filesystem::path& study, const KernelInventories& all);

// One kernel of either arm, matched by binary, name and arch.
struct KernelDiffRow {
    std::string name, binary, arch;
    const KernelResource* baseline = nullptr; // null: only in the treatment
    const KernelResource* treatment = nullptr; // null: only in the baseline
    bool code_differs = false; // SASS hashes differ, or the kernel is in one arm only
    bool resources_differ = false; // registers, static shared memory or local memory differ
    bool differs() const { return code_differs || resources_differ; }
};

struct KernelDiff {
    std::vector<KernelDiffRow> rows; // differing kernels first, then by binary and name
    bool any_kernels = false;
    // Every kernel in both arms, with a known SASS hash, the same in each (nothing else to say).
    bool all_sass_identical = false;
    std::vector<std::string> notes; // "baseline: cuobjdump is not on PATH ..."
};

KernelDiff diff_kernels(const KernelInventory& baseline, const KernelInventory& treatment);

// The verdict's reason when every kernel's SASS is identical in both arms (docs/verdict.md), or
// nullopt: "every CUDA kernel's SASS is identical in both arms (N kernels): a measured difference
// does not come from kernel code".
std::optional<std::string> identical_sass_reason(const KernelDiff& diff);

} // namespace kwb
