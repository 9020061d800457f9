// SPDX-License-Identifier: GPL-3.0-or-later
// The tensor-core causal prefill matches an fp32 attention for every built tile configuration
// (block_m x block_n x warps x stages) at head dims 64 and 128, on packed varlen batches whose
// lengths are not multiples of any tile (down to one token), with grouped-query heads (G = 1, 4,
// 8). Bad shapes are refused; the wrong-result hook fails the check.
#include "gpu_plugin.h"

using nlohmann::json;
using namespace kwb::gputest;

int main()
{
    const auto plugin = require_plugin();
    const json base = {{"batch", 3}, {"heads", 8}, {"kv_heads", 2}, {"head_dim", 128}, {"seq_len", 300},
        {"length_spread", 80}, {"block_m", 128}, {"block_n", 64}, {"stages", 2}, {"warps", 8}, {"seed", 5}};
    const auto with = [&](json changes) {
        json p = base;
        p.update(changes);
        return p;
    };
    struct Tile {
        int bm, warps;
    };
    for (int d : {64, 128})
        for (const Tile t : {Tile {64, 4}, Tile {128, 8}, Tile {128, 4}})
            for (int bn : {32, 64, 128})
                for (int stages : {2, 3}) {
                    const json p = with(
                        {{"head_dim", d}, {"block_m", t.bm}, {"warps", t.warps}, {"block_n", bn}, {"stages", stages}});
                    if (!plugin.check("attention_prefill", p).value("ok", false)) {
                        std::printf("skip (does not fit): %s\n", p.dump().c_str());
                        continue;
                    }
                    expect_verified(plugin, "attention_prefill", p);
                }
    for (int kvh : {8, 1}) // G = 1, 8
        expect_verified(plugin, "attention_prefill", with({{"kv_heads", kvh}}));
    // One token, fewer tokens than a tile, a batch of one, and one long ragged batch.
    expect_verified(plugin, "attention_prefill", with({{"seq_len", 1}, {"length_spread", 0}}));
    expect_verified(plugin, "attention_prefill", with({{"seq_len", 17}, {"batch", 5}, {"head_dim", 64}}));
    expect_verified(plugin, "attention_prefill", with({{"seq_len", 1000}, {"batch", 1}, {"length_spread", 0}}));
    expect_verified(plugin, "attention_prefill",
        with({{"seq_len", 2500}, {"batch", 4}, {"length_spread", 100}, {"heads", 16}, {"kv_heads", 4}}));

    Prepared wrong(plugin, "attention_prefill", with({{"inject_fault", "wrong-result"}}));
    KWB_CHECK(wrong && !wrong.verify().at("ok").get<bool>());
    for (const json& bad : {with({{"kv_heads", 3}}), with({{"head_dim", 96}}), with({{"block_m", 96}}),
             with({{"block_n", 48}}), with({{"block_m", 64}, {"warps", 8}}), with({{"stages", 4}})}) {
        const auto c = plugin.check("attention_prefill", bad);
        std::printf("%s refused: %s\n", bad.dump().c_str(), c.dump().c_str());
        KWB_CHECK(!c.value("ok", true) && c.contains("error"));
    }
    return finish("gpu_attention_prefill");
}
