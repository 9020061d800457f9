// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/kernel_inventory.h"
#include "study/study.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

// The kernels table of a report (docs/report.md): every CUDA kernel of both arms of an A/B, from
// the study's STUDY.kernels.json (study/kernel_inventory.h) and their diff (diff_kernels: differing
// kernels first), with the occupancy each allows on the study's device (hardware/kernel_occupancy.h)
// and the identical-SASS reason of verdict/kernel_code.h. It computes no rule of its own: it lays
// out what those owners say, so the Markdown, HTML, PDF and JSON reports show the same table.
namespace kwb::report {

// One arm's figures of one kernel; `present` false: the kernel is not in that arm.
struct KernelArmFigures {
    bool present = false;
    std::string sass_sha256; // empty: its SASS could not be read
    std::optional<int> registers; // per thread
    std::optional<int> static_smem_bytes;
    std::optional<int> local_bytes; // per thread
    std::optional<double> occupancy_pct; // on `KernelsReport::device`; null where it cannot be said
    std::string occupancy_limiter; // "registers", "shared memory", ...
};

struct KernelRowReport {
    std::string name, binary, arch;
    KernelArmFigures baseline, treatment;
    // "same", "differs", "only in baseline", "only in treatment", "unknown" (a hash not read).
    std::string sass;
    bool differs = false; // code or resources differ (kernel_inventory.h KernelDiffRow::differs)
};

struct KernelsReport {
    std::string baseline_source, treatment_source; // "cuobjdump", "driver", or "" (nothing read)
    std::string device; // the catalogue part occupancy is computed on; empty: none known
    int block_threads = 0; // the block size occupancy assumes
    std::vector<KernelRowReport> rows; // differing kernels first
    std::optional<std::string> identical_sass_reason; // every kernel's SASS the same in both arms
    std::vector<std::string> notes; // "baseline: cuobjdump is not on PATH ..."
};

// The table of experiment `e` from `all`; nullopt when either A/B arm has no inventory.
std::optional<KernelsReport> kernels_report(const KernelInventories& all, const Study& study, const Experiment& e);

// `experiments[].kernels` of the JSON report (docs/report.md).
nlohmann::json kernels_json(const KernelsReport& k);
// The table every document format prints: one row per kernel, baseline -> treatment per figure.
std::vector<std::string> kernels_table_header();
std::vector<std::vector<std::string>> kernels_table_rows(const KernelsReport& k);
// The line above the table: where the figures come from and what occupancy assumes.
std::string kernels_source_line(const KernelsReport& k);

} // namespace kwb::report
