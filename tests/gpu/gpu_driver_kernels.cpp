// SPDX-License-Identifier: GPL-3.0-or-later
// The embedded workloads' kernels through the driver's function attributes (docs/git-arms.md): a
// tiled GEMM A/B of block_m 64 against 128 run by the `kwb` beside this program records each arm's
// kernel in STUDY.kernels.json with source "driver" (registers, static shared memory, local memory
// from cudaFuncGetAttributes in the plugin), and their registers differ, so the verdict's reasons
// name the resource change. Exits 77 with one line where no GPU is usable.
#include "gpu_check.h"
#include "gpu_plugin.h"
#include "study/kernel_inventory.h"
#include "study/study_file.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <string>
#include <unistd.h>

using kwb::gputest::run_capture;

int main()
{
    namespace fs = std::filesystem;
    (void)kwb::gputest::require_plugin();
    const auto& backend = kwb::GpuBackend::instance();
    if (!backend.kernel_attributes_api()) {
        std::printf(
            "FAILED: the plugin has no kernel attributes table: %s\n", backend.kernel_attributes_reason().c_str());
        return 1;
    }
    const fs::path kwb = fs::read_symlink("/proc/self/exe").parent_path() / "kwb";
    if (!fs::exists(kwb)) {
        std::printf("FAILED: no kwb beside this program (%s)\n", kwb.string().c_str());
        return 1;
    }
    char dir_template[] = "/tmp/gpu_driver_kernels.XXXXXX";
    const fs::path dir = mkdtemp(dir_template);
    const fs::path study = dir / "tile.json";
    int status = 0;
    std::printf("%s",
        run_capture(fmt::format("'{}' new --workload gemm --param m=4096 --param n=4096 --param k=4096 "
                                "--param impl=tiled --vary block_m=64,128 --backend cuda --runs 5 --out '{}' 2>&1",
                        kwb.string(), study.string()),
            status)
            .c_str());
    KWB_CHECK(status == 0);
    std::printf("%s", run_capture(fmt::format("'{}' run '{}' 2>&1", kwb.string(), study.string()), status).c_str());
    KWB_CHECK(status == 0);

    const auto all = kwb::load_kernel_inventories(study);
    KWB_CHECK(all.count("ab-1") == 1);
    if (all.count("ab-1") != 1)
        return kwb::gputest::finish("gpu_driver_kernels");
    const auto& arms = all.at("ab-1");
    KWB_CHECK(arms.count("baseline") && arms.count("treatment"));
    if (!arms.count("baseline") || !arms.count("treatment"))
        return kwb::gputest::finish("gpu_driver_kernels");
    const auto& b = arms.at("baseline");
    const auto& t = arms.at("treatment");
    for (const auto* k : {&b, &t}) {
        KWB_CHECK(k->source == "driver");
        KWB_CHECK(!k->kernels.empty() && k->kernels.front().registers.has_value());
        for (const auto& x : k->kernels)
            std::printf("%s: %s %s registers %d, static smem %d, local %d, SASS %s\n",
                k == &b ? "baseline" : "treatment", x.name.c_str(), x.arch.c_str(), x.registers.value_or(-1),
                x.static_smem_bytes.value_or(-1), x.local_bytes.value_or(-1),
                x.sass_sha256.empty() ? "(none)" : x.sass_sha256.substr(0, 12).c_str());
        for (const auto& n : k->notes)
            std::printf("note: %s\n", n.c_str());
    }
    if (!b.kernels.empty() && !t.kernels.empty()) {
        KWB_CHECK(b.kernels.front().name != t.kernels.front().name); // two instantiations of the tile
        KWB_CHECK(b.kernels.front().registers != t.kernels.front().registers);
        const kwb::KernelDiff diff = kwb::diff_kernels(b, t);
        KWB_CHECK(!diff.all_sass_identical);
    }
    // The verdict names the resource change (verdict/kernel_code.h).
    const kwb::Study s = kwb::load_study(study);
    bool named = false;
    if (!s.experiments.empty() && s.experiments.front().final_verdict)
        for (const auto& r : s.experiments.front().final_verdict->reasons) {
            named = named || r.find("kernels whose resources differ") != std::string::npos;
            std::printf("reason: %s\n", r.c_str());
        }
    KWB_CHECK(named);
    std::error_code ec;
    fs::remove_all(dir, ec);
    return kwb::gputest::finish("gpu_driver_kernels");
}
