// SPDX-License-Identifier: GPL-3.0-or-later
// The bandwidth kernels (copy and triad, every vector width) match their scalar reference exactly,
// count their bytes, and the correctness gate's fault hook makes the check fail.
#include "gpu_plugin.h"

using nlohmann::json;
using namespace kwb::gputest;

int main()
{
    const auto plugin = require_plugin();
    for (const char* op : {"copy", "triad"})
        for (int width : {1, 2, 4, 8})
            for (int threads : {128, 256, 1024})
                expect_verified(plugin, "bandwidth",
                    {{"op", op}, {"bytes_mib", 3}, {"vector_width", width}, {"block_threads", threads}});
    // CPU-only parameters the engine also passes are ignored.
    expect_verified(
        plugin, "bandwidth", {{"op", "triad"}, {"bytes_mib", 64}, {"vector_width", 4}, {"threads", 2}, {"size_mb", 7}});

    Prepared triad(plugin, "bandwidth", {{"op", "triad"}, {"bytes_mib", 16}, {"vector_width", 8}});
    KWB_CHECK(triad);
    if (triad) {
        const auto r = triad.run(2, false);
        KWB_CHECK(r.at("bytes_per_launch").get<double>() == 3.0 * 16 * 1024 * 1024);
        KWB_CHECK(r.at("flops_per_launch").get<double>() == 2.0 * 4 * 1024 * 1024);
    }
    Prepared copy(plugin, "bandwidth", {{"op", "copy"}, {"bytes_mib", 16}});
    KWB_CHECK(copy && copy.run(1, false).at("bytes_per_launch").get<double>() == 2.0 * 16 * 1024 * 1024);

    Prepared wrong(plugin, "bandwidth", {{"op", "copy"}, {"bytes_mib", 4}, {"inject_fault", "wrong-result"}});
    KWB_CHECK(wrong);
    if (wrong) {
        const auto v = wrong.verify();
        std::printf("wrong-result hook: %s\n", v.dump().c_str());
        KWB_CHECK(!v.at("ok").get<bool>());
        KWB_CHECK(v.at("mismatches").get<long>() == 1);
    }
    return finish("gpu_bandwidth");
}
