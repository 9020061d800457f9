// SPDX-License-Identifier: GPL-3.0-or-later
// Every compiled tiled-GEMM configuration (tile, warps, stages) matches the oracle (cuBLASLt, or
// the fp32 reference kernel where cuBLASLt cannot load) at ragged shapes: sizes that divide no
// tile, K and N not multiples of 8 (the element-wise load path) and a tiny 17x33x65.
#include "gpu_plugin.h"

using nlohmann::json;
using namespace kwb::gputest;

namespace {

struct Tile {
    int bm, bn, bk, warps;
};

std::vector<Tile> built_tiles(const Plugin& plugin)
{
    std::vector<Tile> tiles;
    for (int warps : {4, 8})
        for (int bk : {32, 64})
            for (int bm : {64, 128, 256})
                for (int bn : {64, 128, 256}) {
                    const auto r = plugin.check("gemm",
                        {{"m", 256}, {"n", 256}, {"k", 256}, {"block_m", bm}, {"block_n", bn}, {"block_k", bk},
                            {"stages", 2}, {"warps", warps}});
                    if (r.value("ok", false))
                        tiles.push_back({bm, bn, bk, warps});
                }
    return tiles;
}

json params(int m, int n, int k, const Tile& t, int stages)
{
    return {{"m", m}, {"n", n}, {"k", k}, {"impl", "tiled"}, {"block_m", t.bm}, {"block_n", t.bn}, {"block_k", t.bk},
        {"stages", stages}, {"warps", t.warps}, {"cache", "hot"}, {"size", 512}, {"threads", 1}};
}

} // namespace

int main()
{
    const auto plugin = require_plugin();
    const auto tiles = built_tiles(plugin);
    std::printf("%zu tiles built\n", tiles.size());
    KWB_CHECK(tiles.size() == 24);

    for (const auto& t : tiles)
        for (int stages : {2, 3, 4})
            expect_verified(plugin, "gemm", params(1000, 1030, 520, t, stages));
    for (const auto& t : tiles)
        expect_verified(plugin, "gemm", params(17, 33, 65, t, 3));
    const Tile big {128, 256, 32, 8}, small {64, 64, 64, 4};
    for (const auto& t : {big, small}) {
        expect_verified(plugin, "gemm", params(256, 256, 256, t, 3));
        expect_verified(plugin, "gemm", params(1, 1, 1, t, 2));
        expect_verified(plugin, "gemm", params(2048, 1024, 4096, t, 4));
        expect_verified(plugin, "gemm", params(513, 777, 1001, t, 3));
    }

    // The Hopper kernel (impl wgmma), where the GPU and the build have it: every tile and stage count
    // at ragged M, N, K (multiples of 8 for N and K, as TMA needs), and the refusal of other N.
    const auto wg = [](int m, int n, int k, int bn, int stages) {
        return json {{"m", m}, {"n", n}, {"k", k}, {"impl", "wgmma"}, {"block_m", 128}, {"block_n", bn},
            {"block_k", 64}, {"stages", stages}, {"warps", 12}, {"cache", "hot"}, {"size", 512}, {"threads", 1}};
    };
    const auto wg_check = plugin.check("gemm", wg(256, 256, 256, 256, 3));
    if (wg_check.value("ok", false)) {
        for (int bn : {128, 256})
            for (int stages : {2, 3, 4}) {
                expect_verified(plugin, "gemm", wg(1000, 1032, 520, bn, stages));
                expect_verified(plugin, "gemm", wg(256, 256, 256, bn, stages));
            }
        for (int bn : {128, 256}) {
            expect_verified(plugin, "gemm", wg(17, 40, 72, bn, 3));
            expect_verified(plugin, "gemm", wg(2048, 1024, 4096, bn, 4));
            expect_verified(plugin, "gemm", wg(513, 776, 1000, bn, 3));
        }
        const auto ragged = plugin.check("gemm", wg(1000, 1030, 520, 256, 3));
        std::printf("wgmma n=1030: %s\n", ragged.dump().c_str());
        KWB_CHECK(!ragged.value("ok", false));
    } else {
        std::printf("impl wgmma not run here: %s\n", wg_check.dump().c_str());
    }

    // cuBLASLt as a workload arm, checked against the fp32 reference kernel.
    Prepared lt(plugin, "gemm", {{"m", 1000}, {"n", 1030}, {"k", 520}, {"impl", "cublaslt"}});
    if (lt) {
        const auto v = lt.verify();
        std::printf("cublaslt: %s\n", v.dump().c_str());
        KWB_CHECK(v.at("ok").get<bool>());
        KWB_CHECK(v.at("compared").get<std::string>().find("reference kernel") != std::string::npos);
        // The reference arm is what torch.mm gives: bf16 C, the best of the heuristic's candidates.
        KWB_CHECK(v.at("compared").get<std::string>().find("bf16 out") != std::string::npos);
        const auto run = lt.run(2, false);
        const std::string algo = run.value("metrics", nlohmann::json()).value("algo", std::string());
        std::printf("cublaslt algo: %s\n", algo.c_str());
        KWB_CHECK(algo.find("best of") == 0);
        KWB_CHECK(run.at("bytes_per_launch").get<double>() == 2.0 * (1000.0 * 520 + 520.0 * 1030 + 1000.0 * 1030));
        Prepared lt32(plugin, "gemm",
            {{"m", 1000}, {"n", 1030}, {"k", 520}, {"impl", "cublaslt"}, {"c_dtype", "fp32"}, {"algo", "heuristic"}});
        KWB_CHECK(lt32 && lt32.verify().at("ok").get<bool>());
        Prepared lt_wrong(plugin, "gemm",
            {{"m", 128}, {"n", 128}, {"k", 128}, {"impl", "cublaslt"}, {"inject_fault", "wrong-result"}});
        KWB_CHECK(lt_wrong && !lt_wrong.verify().at("ok").get<bool>()); // the check sees the bf16 C
    } else {
        std::printf("cublaslt unavailable here: %s\n", lt.error.c_str());
        KWB_CHECK(lt.error.find("cuBLASLt") != std::string::npos);
    }

    Prepared wrong(plugin, "gemm", {{"m", 128}, {"n", 128}, {"k", 128}, {"inject_fault", "wrong-result"}});
    KWB_CHECK(wrong && !wrong.verify().at("ok").get<bool>());
    return finish("gpu_gemm");
}
