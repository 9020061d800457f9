// SPDX-License-Identifier: GPL-3.0-or-later
// Paged decode attention matches an fp32 attention over the unpaged cache: ragged context lengths
// (not multiples of the page size, the 64-token tile or the split), every page size, a shuffled
// page table, every GQA group size, head dims 64 and 128, split-KV off and on (more splits than
// tiles too, so some splits are empty; up to 256 splits), every ring depth, programmatic and plain
// launches, the early start (KV in flight before the PDL wait) against a late writer of the newest
// row, the auto split count, bf16 and fp8 KV; the tensor-core kernel (impl=mma) at the same
// kinds of shapes, its swizzled K/V rows again at every ring depth and page size (the early start's
// newest row put back swizzled); pages in order. Bad shapes are refused.
#include "gpu_plugin.h"

using nlohmann::json;
using namespace kwb::gputest;

int main()
{
    const auto plugin = require_plugin();
    const json base = {{"batch", 5}, {"heads", 32}, {"kv_heads", 8}, {"head_dim", 128}, {"context", 1000},
        {"length_spread", 90}, {"page_size", 16}, {"splits", 1}, {"stages", 3}, {"kv_dtype", "bf16"}, {"seed", 7}};
    const auto with = [&](json changes) {
        json p = base;
        p.update(changes);
        return p;
    };
    for (const char* dtype : {"bf16", "fp8"})
        for (int d : {64, 128})
            for (int splits : {1, 3, 16})
                expect_verified(
                    plugin, "attention_decode", with({{"kv_dtype", dtype}, {"head_dim", d}, {"splits", splits}}));
    for (int page : {16, 32, 64, 128})
        expect_verified(plugin, "attention_decode", with({{"page_size", page}, {"context", 777}, {"seed", page}}));
    for (int kvh : {32, 16, 4}) // groups 1, 2, 8
        for (const char* dtype : {"bf16", "fp8"})
            expect_verified(plugin, "attention_decode", with({{"kv_heads", kvh}, {"kv_dtype", dtype}, {"splits", 2}}));
    for (int stages : {2, 4, 5, 6})
        expect_verified(plugin, "attention_decode", with({{"stages", stages}, {"splits", 5}}));
    // Fine splits through the combine (warps over splits, D / 32 dims a lane): split counts that are
    // not multiples of its warps, up to the 256 limit, D 64 and 128, and a plain launch besides the
    // programmatic one; the deepest rings with few splits.
    for (int d : {64, 128})
        for (int splits : {63, 128, 256})
            expect_verified(plugin, "attention_decode",
                with({{"head_dim", d}, {"splits", splits}, {"context", 4000}, {"seed", splits + d}}));
    for (int pdl : {0, 1})
        for (const char* impl : {"simt", "mma"})
            expect_verified(plugin, "attention_decode", with({{"impl", impl}, {"pdl", pdl}, {"splits", 7}}));
    // early: tiles in flight before the wait, the newest row re-read after it. The check stales that
    // row and has a late writer restore it while the attention starts, so a kernel attending to
    // its early copy fails; splits 1 and several, a newest row inside any tile of a split.
    for (int pdl : {0, 1})
        for (const char* impl : {"simt", "mma"})
            for (int splits : {1, 5, 0})
                expect_verified(plugin, "attention_decode",
                    with({{"impl", impl}, {"pdl", pdl}, {"early", 1}, {"splits", splits}, {"context", 300},
                        {"seed", 40 + splits}}));
    for (int d : {64, 128})
        expect_verified(plugin, "attention_decode",
            with({{"kv_dtype", "fp8"}, {"head_dim", d}, {"early", 1}, {"splits", 3}, {"page_size", 32}}));
    expect_verified(plugin, "attention_decode",
        with({{"batch", 1}, {"context", 32767}, {"length_spread", 0}, {"splits", 16}, {"stages", 6}}));
    // splits 0: the auto count (about two blocks per SM), alone and ragged.
    for (const char* impl : {"simt", "mma"}) {
        expect_verified(plugin, "attention_decode",
            with({{"impl", impl}, {"batch", 1}, {"context", 32767}, {"length_spread", 0}, {"splits", 0}}));
        expect_verified(plugin, "attention_decode", with({{"impl", impl}, {"splits", 0}, {"stages", 2}}));
    }
    expect_verified(
        plugin, "attention_decode", with({{"kv_dtype", "fp8"}, {"splits", 0}, {"context", 3000}, {"page_size", 32}}));
    // Short contexts: one token, less than one page, one tile plus one token.
    expect_verified(plugin, "attention_decode", with({{"context", 1}, {"length_spread", 0}, {"splits", 4}}));
    expect_verified(plugin, "attention_decode", with({{"context", 13}, {"batch", 3}}));
    expect_verified(plugin, "attention_decode", with({{"context", 65}, {"length_spread", 0}, {"page_size", 32}}));
    // Long ragged contexts, many sequences, split and not.
    expect_verified(plugin, "attention_decode",
        with({{"batch", 64}, {"context", 8191}, {"length_spread", 100}, {"splits", 1}, {"page_size", 64}}));
    expect_verified(plugin, "attention_decode",
        with({{"batch", 2}, {"context", 32768}, {"length_spread", 10}, {"splits", 32}, {"kv_dtype", "fp8"}}));
    expect_verified(
        plugin, "attention_decode", with({{"batch", 1}, {"context", 8192}, {"length_spread", 0}, {"splits", 32}}));

    // impl=mma (bf16 only): the same shapes through the tensor-core kernel.
    for (int d : {64, 128})
        for (int splits : {1, 3, 16})
            expect_verified(plugin, "attention_decode", with({{"impl", "mma"}, {"head_dim", d}, {"splits", splits}}));
    for (int kvh : {32, 16, 8, 4})
        expect_verified(plugin, "attention_decode", with({{"impl", "mma"}, {"kv_heads", kvh}, {"splits", 2}}));
    for (int page : {16, 128})
        for (int stages : {2, 4, 6})
            expect_verified(plugin, "attention_decode",
                with({{"impl", "mma"}, {"page_size", page}, {"stages", stages}, {"context", 777}, {"seed", page}}));
    expect_verified(
        plugin, "attention_decode", with({{"impl", "mma"}, {"context", 1}, {"length_spread", 0}, {"splits", 4}}));
    expect_verified(plugin, "attention_decode", with({{"impl", "mma"}, {"context", 13}, {"batch", 3}}));
    expect_verified(plugin, "attention_decode",
        with({{"impl", "mma"}, {"batch", 64}, {"context", 8191}, {"length_spread", 100}, {"page_size", 64}}));
    expect_verified(plugin, "attention_decode",
        with({{"impl", "mma"}, {"batch", 1}, {"context", 32768}, {"length_spread", 0}, {"splits", 32}}));
    for (int stages : {5, 6})
        expect_verified(plugin, "attention_decode",
            with({{"impl", "mma"}, {"batch", 1}, {"context", 32767}, {"length_spread", 0}, {"splits", 16},
                {"stages", stages}}));
    expect_verified(plugin, "attention_decode",
        with({{"impl", "mma"}, {"batch", 1}, {"context", 32768}, {"length_spread", 0}, {"splits", 128}}));
    expect_verified(plugin, "attention_decode", with({{"impl", "mma"}, {"head_dim", 64}, {"splits", 100}}));

    // impl=mma reads swizzled K and V rows with ldmatrix: ragged lengths over every page size and
    // ring depth, every group, D 64 and 128, split and not (empty splits too), the early start
    // against the late writer (its newest row put back in the swizzled layout), the shortest contexts.
    const auto with_mma = [&](json changes) {
        json p = with({{"impl", "mma"}});
        p.update(changes);
        return p;
    };
    for (int d : {64, 128})
        for (int splits : {1, 3, 16, 100})
            expect_verified(plugin, "attention_decode", with_mma({{"head_dim", d}, {"splits", splits}}));
    for (int kvh : {32, 16, 4})
        expect_verified(plugin, "attention_decode", with_mma({{"kv_heads", kvh}, {"splits", 2}}));
    for (int page : {16, 32, 64, 128})
        for (int stages : {2, 3, 6})
            expect_verified(plugin, "attention_decode",
                with_mma({{"page_size", page}, {"stages", stages}, {"context", 777}, {"seed", page + stages}}));
    for (int pdl : {0, 1})
        for (int splits : {1, 5, 0})
            expect_verified(plugin, "attention_decode",
                with_mma({{"pdl", pdl}, {"early", 1}, {"splits", splits}, {"context", 300}, {"seed", 50 + splits}}));
    for (int context : {1, 13, 65})
        expect_verified(
            plugin, "attention_decode", with_mma({{"context", context}, {"length_spread", 0}, {"splits", 4}}));
    expect_verified(plugin, "attention_decode",
        with_mma({{"batch", 1}, {"context", 32767}, {"length_spread", 0}, {"splits", 0}, {"stages", 2}}));
    expect_verified(plugin, "attention_decode",
        with_mma({{"batch", 64}, {"context", 8191}, {"length_spread", 100}, {"page_size", 64}}));
    // page_order=ordered (each sequence's pages consecutive), both kernels, split and not.
    for (const json& order : {with({{"page_order", "ordered"}}), with({{"page_order", "ordered"}, {"impl", "mma"}}),
             with_mma({{"page_order", "ordered"}, {"splits", 0}})})
        expect_verified(plugin, "attention_decode", order);

    // The declared work per launch, for the roofline and the speed-of-light guard: equal contexts
    // (length_spread 0) make the cached tokens batch x context. FLOPs: 4 x tokens x heads x
    // head_dim; bytes: K and V, 2 x tokens x kv_heads x head_dim x 2 (bf16).
    {
        Prepared w(plugin, "attention_decode", with({{"length_spread", 0}, {"context", 1024}}));
        KWB_CHECK(w);
        const auto run = w.run(1, false);
        const double tokens = 5.0 * 1024;
        std::printf("declared per launch: %s\n", run.dump().c_str());
        KWB_CHECK(run.value("flops_per_launch", 0.0) == 4 * tokens * 32 * 128);
        KWB_CHECK(run.value("bytes_per_launch", 0.0) == 2 * tokens * 8 * 128 * 2);
    }

    Prepared wrong(plugin, "attention_decode", with({{"inject_fault", "wrong-result"}}));
    KWB_CHECK(wrong && !wrong.verify().at("ok").get<bool>());
    for (const json& bad : {with({{"kv_heads", 3}}), with({{"heads", 48}, {"kv_heads", 3}}), with({{"head_dim", 96}}),
             with({{"page_size", 48}}), with({{"kv_dtype", "fp16"}}), with({{"stages", 7}}), with({{"pdl", 2}}),
             with({{"splits", 257}}), with({{"splits", -1}}), with({{"impl", "mma"}, {"kv_dtype", "fp8"}}),
             with({{"page_order", "random"}})}) {
        const auto c = plugin.check("attention_decode", bad);
        std::printf("%s refused: %s\n", bad.dump().c_str(), c.dump().c_str());
        KWB_CHECK(!c.value("ok", true) && c.contains("error"));
    }
    return finish("gpu_attention_decode");
}
