// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb profile --arms all` on the GPU: the CUPTI range profiler over two tile configurations of the
// plugin's tiled GEMM (bf16 4096^3, block 64x128 against 128x128, 8 warps, block_k 32, 3 stages).
// Checks, for both arms: measured (not "cannot be had"), 5 launches, DRAM bytes read > 0,
// registers per thread > 0, shared memory per block > 0, L2 hit rate and achieved occupancy within
// [0, 100]; the diff table has a row for every metric; and the one expectation the tiling fixes:
// each 64-row block re-reads B's panel, so the 64x128 tile looks up more L2 sectors than the
// 128x128 one (about 3:2 from the loads' count), a row beyond its noise. Prints the text table and
// the JSON. Runs the kwb program beside this one ($KWB_PROGRAM overrides) in a temporary folder;
// with $OUT set the study and both outputs are copied there. Skipped (77) with no usable GPU or
// where the counters are restricted.
#include "gpu_plugin.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using nlohmann::json;
using namespace kwb::gputest;
namespace fs = std::filesystem;

namespace {

fs::path kwb_program()
{
    if (const char* p = std::getenv("KWB_PROGRAM"))
        return p;
    return fs::read_symlink("/proc/self/exe").parent_path() / "kwb";
}

std::string read(const fs::path& p)
{
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

int sh(const std::string& command)
{
    std::printf("$ %s\n", command.c_str());
    std::fflush(stdout);
    const int rc = std::system(command.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

double mean_of(const json& stats, const char* key)
{
    if (!stats.contains(key) || !stats[key].at("mean").is_number())
        return -1.0;
    return stats[key].at("mean").get<double>();
}

const json* row_of(const json& diff, const std::string& metric)
{
    for (const auto& r : diff.at("rows"))
        if (r.value("scope", "") == "launch" && r.value("metric", "") == metric)
            return &r;
    return nullptr;
}

} // namespace

int main()
{
    const Plugin plugin = require_plugin();
    if (const char* s = plugin.api->cupti_status(0); s && *s)
        skip(std::string("CUPTI counters unavailable: ") + s);
    if (!fs::exists(kwb_program()))
        skip("no kwb program at " + kwb_program().string());
    char tmpl[] = "/tmp/kwb_gpu_range_profile_XXXXXX";
    const fs::path dir = mkdtemp(tmpl);
    const fs::path study = dir / "tiles.json", text = dir / "table.txt", out = dir / "table.json",
                   err = dir / "err.txt";
    const std::string kwb = kwb_program().string();

    const int made = sh(kwb
        + " new --workload gemm --param impl=tiled --param m=4096 --param n=4096 --param k=4096 --param block_n=128"
          " --param block_k=32 --param stages=3 --param warps=8 --vary block_m=64,128 --backend cuda --out "
        + study.string() + " --force 2>" + err.string());
    KWB_CHECK(made == 0);
    if (made != 0) {
        std::printf("kwb new failed: %s\n", read(err).c_str());
        return finish("gpu_range_profile");
    }
    const int rc_text = sh(kwb + " profile " + study.string() + " --arms all >" + text.string() + " 2>" + err.string());
    std::printf("%s%s", read(text).c_str(), read(err).c_str());
    KWB_CHECK(rc_text == 0);
    const int rc_json
        = sh(kwb + " profile " + study.string() + " --arms all --json >" + out.string() + " 2>" + err.string());
    std::printf("%s", read(err).c_str());
    KWB_CHECK(rc_json == 0);

    json j;
    try {
        j = json::parse(read(out)).at("range_profile");
    } catch (const std::exception& e) {
        std::printf("kwb profile --arms all --json is not the documented object: %s\n", e.what());
        ++failures();
    }
    if (j.is_object()) {
        std::printf("%s\n", j.dump(1).c_str());
        KWB_CHECK(j.at("arms").size() == 2);
        double sectors[2] = {-1, -1};
        for (std::size_t i = 0; i < j.at("arms").size() && i < 2; ++i) {
            const auto& arm = j.at("arms")[i];
            const auto& launch = arm.at("launch");
            const std::string name = arm.value("arm", "?");
            const double dram = mean_of(launch, "dram_read_bytes"), regs = mean_of(launch, "registers_per_thread"),
                         smem = mean_of(launch, "smem_per_block_bytes"), hit = mean_of(launch, "l2_hit_pct"),
                         occ = mean_of(launch, "occupancy_pct");
            sectors[i] = mean_of(launch, "l2_sectors");
            std::printf("arm %s: DRAM read %.4g B, L2 sectors %.4g, L2 hit %.2f %%, occupancy %.2f %%, %g registers, "
                        "%g B shared memory per block, %d launches, %d passes\n",
                name.c_str(), dram, sectors[i], hit, occ, regs, smem, arm.value("launches", 0), arm.value("passes", 0));
            if (arm.contains("unavailable"))
                std::printf("arm %s unavailable: %s\n", name.c_str(), arm.at("unavailable").dump().c_str());
            KWB_CHECK(!arm.contains("unavailable"));
            KWB_CHECK(arm.value("launches", 0) == 5);
            KWB_CHECK(launch.contains("dram_read_bytes") && launch["dram_read_bytes"].value("n", 0) == 5);
            KWB_CHECK(dram > 0);
            KWB_CHECK(regs > 0);
            KWB_CHECK(smem > 0);
            KWB_CHECK(hit >= 0 && hit <= 100);
            KWB_CHECK(occ >= 0 && occ <= 100);
            KWB_CHECK(sectors[i] > 0);
        }
        const auto& diffs = j.at("diffs");
        KWB_CHECK(diffs.size() == 1);
        if (!diffs.empty()) {
            const auto& d = diffs[0];
            KWB_CHECK(d.at("notes").empty());
            for (const char* m : {"kernel_ms", "dram_read_bytes", "dram_write_bytes", "l2_sectors", "l2_hit_pct",
                     "occupancy_pct", "registers_per_thread", "smem_per_block_bytes"})
                if (!row_of(d, m)) {
                    std::printf("no diff row for %s\n", m);
                    ++failures();
                }
            KWB_CHECK(sectors[0] > sectors[1]); // 64-row blocks re-read B twice as often
            if (const json* l2 = row_of(d, "l2_sectors"))
                KWB_CHECK(l2->value("beyond_noise", false));
        }
    }
    std::error_code ec;
    if (const char* o = std::getenv("OUT"))
        for (const fs::path& f : {study, text, out})
            fs::copy_file(
                f, fs::path(o) / ("range-profile-" + f.filename().string()), fs::copy_options::overwrite_existing, ec);
    fs::remove_all(dir, ec);
    return finish("gpu_range_profile");
}
