// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb run --devices` on real GPUs (issue 16; docs/cluster.md): a 2x2 GEMM grid spread over every
// GPU here (at most two), each cell's worker on the GPU it was given, and the identity stored
// per cell that GPU's own (its index and uuid from `kwb devices --json`). Runs the `kwb` beside
// this program; exits 77 with one line where no GPU is usable.
#include "gpu_check.h"
#include "gpu_plugin.h"
#include "study/study_file.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <unistd.h>

using kwb::gputest::run_capture;

int main()
{
    namespace fs = std::filesystem;
    // Skips only where no GPU is usable. kwb is built with this test (tests/gpu/CMakeLists.txt):
    // its absence, or a kwb that lists no CUDA device where the plugin sees one, is a failure.
    (void)kwb::gputest::require_plugin();
    const fs::path kwb = fs::read_symlink("/proc/self/exe").parent_path() / "kwb";
    if (!fs::exists(kwb)) {
        std::printf("FAILED: no kwb beside this program (%s)\n", kwb.string().c_str());
        return 1;
    }
    int status = 0;
    const auto sheet = nlohmann::json::parse(
        run_capture(fmt::format("'{}' devices --json 2>/dev/null", kwb.string()), status), nullptr, false);
    std::map<int, std::string> uuid_of;
    if (sheet.is_object())
        for (const auto& d : sheet.value("devices", nlohmann::json::array()))
            if (d.value("kind", "") == "cuda")
                uuid_of[d.value("index", -1)] = d.value("uuid", "");
    if (uuid_of.empty()) {
        std::printf("FAILED: the plugin sees a GPU but kwb devices --json lists no CUDA device\n");
        return 1;
    }
    const std::string devices = uuid_of.size() >= 2 ? "0,1" : "0";

    char dir_template[] = "/tmp/gpu_devices_run.XXXXXX";
    const fs::path dir = mkdtemp(dir_template);
    const fs::path study = dir / "grid.json";
    const std::string make
        = fmt::format("'{}' new --workload gemm --param m=2048 --param n=2048 --param k=2048 --grid block_n=64,128 "
                      "--grid stages=3,4 --backend cuda --runs 5 --out '{}' 2>&1",
            kwb.string(), study.string());
    std::printf("%s", run_capture(make, status).c_str());
    KWB_CHECK(status == 0);
    const std::string run = fmt::format("'{}' run '{}' --devices {} 2>&1", kwb.string(), study.string(), devices);
    std::printf("%s", run_capture(run, status).c_str());
    KWB_CHECK(status == 0);

    const kwb::Study s = kwb::load_study(study);
    std::set<int> used;
    for (const auto& e : s.experiments) {
        KWB_CHECK(e.status == kwb::ExperimentStatus::Done);
        KWB_CHECK(e.final_verdict.has_value());
        KWB_CHECK(e.device.kind == "cuda");
        KWB_CHECK(e.placement && e.placement->device && e.device.index);
        if (!e.placement || !e.placement->device || !e.device.index)
            continue;
        // The worker ran on the device it was given, and the identity stored is that GPU's.
        KWB_CHECK(*e.placement->device == *e.device.index);
        KWB_CHECK(e.device.uuid == uuid_of[*e.device.index]);
        used.insert(*e.device.index);
        std::printf("%s: GPU %d (%s), %s\n", e.id.c_str(), *e.device.index, e.device.uuid.c_str(),
            e.final_verdict ? std::string(kwb::to_string(e.final_verdict->word)).c_str() : "no verdict");
    }
    KWB_CHECK(used.size() == (devices == "0,1" ? 2u : 1u));
    KWB_CHECK(s.grids.front().interaction.has_value());
    std::error_code ec;
    fs::remove_all(dir, ec);
    return kwb::gputest::finish("gpu_devices_run");
}
