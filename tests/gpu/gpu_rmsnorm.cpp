// SPDX-License-Identifier: GPL-3.0-or-later
// RMSNorm matches its fp32 reference for every vector width and rows per block, at the default
// shape and at ragged ones (rows not a multiple of rows_per_block, short and odd rows).
#include "gpu_plugin.h"

using nlohmann::json;
using namespace kwb::gputest;

int main()
{
    const auto plugin = require_plugin();
    for (int width : {1, 2, 4, 8})
        for (int rpb : {1, 2, 4, 8})
            expect_verified(plugin, "rmsnorm",
                {{"rows", 1001}, {"hidden", 1000}, {"vector_width", width}, {"rows_per_block", rpb}});
    expect_verified(plugin, "rmsnorm", {{"rows", 8192}, {"hidden", 4096}, {"vector_width", 8}, {"rows_per_block", 1}});
    expect_verified(plugin, "rmsnorm", {{"rows", 3}, {"hidden", 24}, {"vector_width", 8}, {"rows_per_block", 4}});
    expect_verified(plugin, "rmsnorm", {{"rows", 17}, {"hidden", 8191}, {"vector_width", 1}, {"rows_per_block", 2}});
    expect_verified(plugin, "rmsnorm", {{"rows", 5}, {"hidden", 16384}, {"vector_width", 4}, {"rows_per_block", 8}});

    Prepared wrong(plugin, "rmsnorm", {{"rows", 64}, {"hidden", 512}, {"inject_fault", "wrong-result"}});
    KWB_CHECK(wrong && !wrong.verify().at("ok").get<bool>());
    return finish("gpu_rmsnorm");
}
