// SPDX-License-Identifier: GPL-3.0-or-later
// Arms whose buffer-defining parameters are equal (sizes, dtype, seeds) run their kernels on one
// set of device buffers (kernels/cuda/buffer_pool.h), whatever their kernel tunables; arms with
// other data get their own. Sharing never lets an arm pass on another's output: a wrong treatment
// fails its check on the shared buffers, one that writes nothing fails on every element although
// the baseline's correct output was there a moment before, and the baseline passes again after.
#include "gpu_plugin.h"

#include <cstdint>
#include <cstdlib>
#include <vector>

using nlohmann::json;
using namespace kwb::gputest;

namespace {

std::uint64_t set_of(const json& verify)
{
    return verify.value("buffer_set", std::uint64_t {0});
}

// Prepares and checks each configuration; every one must pass. Their buffer sets, in order (0 for
// one that failed).
std::vector<std::uint64_t> checked_sets(
    const Plugin& plugin, const std::string& workload, const std::vector<json>& arms)
{
    std::vector<std::unique_ptr<Prepared>> prepared; // all alive at once, as an experiment's arms
    for (const auto& p : arms) {
        prepared.push_back(std::make_unique<Prepared>(plugin, workload, p));
        if (!*prepared.back())
            std::printf(
                "prepare %s %s refused: %s\n", workload.c_str(), p.dump().c_str(), prepared.back()->error.c_str());
        KWB_CHECK(*prepared.back());
    }
    std::vector<std::uint64_t> sets;
    for (std::size_t i = 0; i < arms.size(); ++i) {
        const auto v = *prepared[i] ? prepared[i]->verify() : json::object();
        std::printf("%s %s: %s\n", workload.c_str(), arms[i].dump().c_str(), v.dump().c_str());
        KWB_CHECK(v.value("ok", false));
        sets.push_back(v.value("ok", false) ? set_of(v) : 0);
    }
    return sets;
}

} // namespace

int main()
{
    const auto plugin = require_plugin();

    // bandwidth: vector width and block size are the kernel's; op and size define the data, and
    // the engine's cache / iterations do not.
    {
        const json copy = {{"op", "copy"}, {"bytes_mib", 64}, {"vector_width", 4}};
        json wide = copy, cold = copy, smaller = copy, triad = copy;
        wide.update({{"vector_width", 8}, {"block_threads", 512}});
        cold.update({{"cache", "cold"}, {"iterations", 3}});
        smaller["bytes_mib"] = 32;
        triad["op"] = "triad";
        const auto s = checked_sets(plugin, "bandwidth", {copy, wide, copy, cold, smaller, triad});
        KWB_CHECK(s[0] != 0);
        KWB_CHECK(s[1] == s[0]); // another kernel, the same data
        KWB_CHECK(s[2] == s[0]); // an A/A
        KWB_CHECK(s[3] == s[0]);
        KWB_CHECK(s[4] != s[0] && s[4] != 0); // other sizes: buffers of its own
        KWB_CHECK(s[5] != s[0] && s[5] != s[4] && s[5] != 0);
    }

    // Correctness on shared buffers: each check poisons the output before its own launch.
    {
        const json copy = {{"op", "copy"}, {"bytes_mib", 16}, {"vector_width", 4}};
        json wrong = copy, blank = copy;
        wrong.update({{"vector_width", 8}, {"inject_fault", "wrong-result"}});
        blank["inject_fault"] = "no-write";
        Prepared base(plugin, "bandwidth", copy), treatment(plugin, "bandwidth", wrong),
            silent(plugin, "bandwidth", blank);
        KWB_CHECK(base && treatment && silent);
        if (base && treatment && silent) {
            const auto b = base.verify();
            KWB_CHECK(b.value("ok", false));
            const auto t = treatment.verify();
            std::printf("wrong treatment on shared buffers: %s\n", t.dump().c_str());
            KWB_CHECK(!t.value("ok", true));
            KWB_CHECK(t.value("mismatches", 0LL) == 1);
            KWB_CHECK(set_of(t) == set_of(b) && set_of(b) != 0);
            KWB_CHECK(base.verify().value("ok", false));
            // The baseline's correct copy is in the shared output now; an arm whose kernel writes
            // nothing must still fail, on every element.
            const auto s = silent.verify();
            std::printf("an arm that writes nothing, after a correct one: %s\n", s.dump().c_str());
            KWB_CHECK(!s.value("ok", true));
            KWB_CHECK(s.value("mismatches", 0LL) == 16LL * 1024 * 1024 / 4);
            KWB_CHECK(set_of(s) == set_of(b));
            KWB_CHECK(base.verify().value("ok", false));
            KWB_CHECK(!base.run(2, false).contains("error") && !treatment.run(2, true).contains("error"));
        }
    }

    // A set lives while an arm holds it: once every arm is released the next prepare gets a new one.
    {
        std::uint64_t first = 0;
        {
            const auto s = checked_sets(plugin, "bandwidth", {{{"op", "copy"}, {"bytes_mib", 8}}});
            first = s[0];
        }
        const auto again = checked_sets(plugin, "bandwidth", {{{"op", "copy"}, {"bytes_mib", 8}}});
        KWB_CHECK(again[0] != 0 && again[0] != first);
    }

    // KWB_GPU_SEPARATE_BUFFERS=1: every arm its own set, as before the pool.
    {
        setenv("KWB_GPU_SEPARATE_BUFFERS", "1", 1);
        const json copy = {{"op", "copy"}, {"bytes_mib", 8}};
        const auto s = checked_sets(plugin, "bandwidth", {copy, copy});
        unsetenv("KWB_GPU_SEPARATE_BUFFERS");
        KWB_CHECK(s[0] != 0 && s[1] != 0 && s[0] != s[1]);
    }

    // gemm: tile configurations share A, B and C at one shape; another shape has its own; a wrong
    // tile fails on the shared buffers.
    {
        const json tile = {{"m", 520}, {"n", 264}, {"k", 136}, {"impl", "tiled"}, {"block_n", 64}};
        json other = tile, wrong = tile, shape = tile;
        other.update({{"block_n", 128}, {"stages", 4}});
        wrong["inject_fault"] = "wrong-result";
        shape["k"] = 128;
        const auto s = checked_sets(plugin, "gemm", {tile, other, shape});
        KWB_CHECK(s[0] != 0 && s[1] == s[0] && s[2] != s[0] && s[2] != 0);
        Prepared base(plugin, "gemm", tile), bad(plugin, "gemm", wrong);
        KWB_CHECK(base && bad);
        if (base && bad) {
            const auto b = base.verify(), w = bad.verify();
            std::printf("gemm wrong tile on shared buffers: %s\n", w.dump().c_str());
            KWB_CHECK(b.value("ok", false) && !w.value("ok", true));
            KWB_CHECK(set_of(w) == set_of(b) && set_of(b) != 0);
        }
    }

    // rmsnorm, prefill and decode: vector widths / tiles / splits share; another seed or size does not.
    {
        const json r = {{"rows", 77}, {"hidden", 1024}, {"vector_width", 8}};
        json r2 = r, r3 = r;
        r2.update({{"vector_width", 4}, {"rows_per_block", 2}});
        r3["rows"] = 78;
        const auto s = checked_sets(plugin, "rmsnorm", {r, r2, r3});
        KWB_CHECK(s[0] != 0 && s[1] == s[0] && s[2] != s[0] && s[2] != 0);

        const json p = {{"batch", 3}, {"heads", 8}, {"kv_heads", 2}, {"head_dim", 64}, {"seq_len", 200},
            {"length_spread", 50}, {"block_m", 128}, {"block_n", 64}, {"stages", 2}, {"warps", 8}, {"seed", 5}};
        json p2 = p, p3 = p;
        p2.update({{"block_m", 64}, {"warps", 4}, {"block_n", 32}, {"stages", 3}});
        p3["seed"] = 6;
        const auto t = checked_sets(plugin, "attention_prefill", {p, p2, p3});
        KWB_CHECK(t[0] != 0 && t[1] == t[0] && t[2] != t[0] && t[2] != 0);

        const json d = {{"batch", 4}, {"heads", 8}, {"kv_heads", 2}, {"head_dim", 64}, {"context", 300},
            {"length_spread", 50}, {"page_size", 16}, {"splits", 1}, {"stages", 3}, {"seed", 3}};
        json d2 = d, d3 = d, d4 = d;
        d2.update({{"splits", 4}, {"stages", 2}, {"impl", "mma"}});
        d3["seed"] = 4;
        d4["kv_dtype"] = "fp8";
        const auto u = checked_sets(plugin, "attention_decode", {d, d2, d3, d4});
        KWB_CHECK(u[0] != 0 && u[1] == u[0] && u[2] != u[0] && u[3] != u[0] && u[2] != 0 && u[3] != 0);
    }
    return finish("gpu_shared_buffers");
}
