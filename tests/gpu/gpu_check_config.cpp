// SPDX-License-Identifier: GPL-3.0-or-later
// Configurations the device cannot hold are refused before anything runs, in one line with the
// numbers; possible ones report what they need.
#include "gpu_plugin.h"

using nlohmann::json;
using namespace kwb::gputest;

namespace {

std::string kib(long bytes)
{
    char text[32];
    std::snprintf(text, sizeof text, bytes % 1024 ? "%.1f KiB" : "%.0f KiB", bytes / 1024.0);
    return text;
}

void expect_refused(const Plugin& plugin, const std::string& workload, const json& params, const std::string& says)
{
    const auto r = plugin.check(workload, params);
    std::printf("%s %s -> %s\n", workload.c_str(), params.dump().c_str(), r.dump().c_str());
    KWB_CHECK(!r.value("ok", true));
    const auto error = r.value("error", std::string());
    KWB_CHECK(error.find(says) != std::string::npos);
    KWB_CHECK(error.find('\n') == std::string::npos);
    // prepare refuses with the same line.
    Prepared w(plugin, workload, params);
    KWB_CHECK(!w);
    KWB_CHECK(w.error == error);
}

} // namespace

int main()
{
    const auto plugin = require_plugin();
    const long optin = plugin.device.at("smem_per_block_optin_bytes").get<long>();

    // The playbook's trap: 4 stages of a 256x256x64 tile (rows padded by 16 bytes).
    const long need = 4L * (256 * (64 + 8) + 64 * (256 + 8)) * 2;
    KWB_CHECK(need > optin);
    expect_refused(plugin, "gemm", {{"block_m", 256}, {"block_n", 256}, {"block_k", 64}, {"stages", 4}, {"warps", 8}},
        "block 256x256x64, 4 stages needs " + kib(need) + " of shared memory per block; this GPU allows " + kib(optin));
    // Fits in shared memory, but no kernel of that shape is built.
    expect_refused(plugin, "gemm", {{"block_m", 256}, {"block_n", 256}, {"block_k", 32}, {"stages", 2}, {"warps", 4}},
        "is not in this build");
    expect_refused(plugin, "gemm", {{"stages", 5}}, "stages 5 is not supported");
    expect_refused(plugin, "gemm", {{"impl", "tiled"}, {"c_dtype", "bf16"}}, "c_dtype bf16 is for impl cublaslt only");
    expect_refused(plugin, "gemm", {{"impl", "cublaslt"}, {"algo", "fastest"}}, "parameter 'algo' must be one of");
    expect_refused(plugin, "gemm", {{"impl", "cutlass"}}, "parameter 'impl' must be one of tiled, cublaslt");
    expect_refused(
        plugin, "bandwidth", {{"block_threads", 2048}}, "needs 2048 threads per block; this GPU allows 1024");
    expect_refused(plugin, "bandwidth", {{"vector_width", 3}}, "'vector_width' must be 1, 2, 4 or 8, got 3");
    expect_refused(
        plugin, "rmsnorm", {{"hidden", 1001}, {"vector_width", 8}}, "hidden 1001 is not a multiple of vector_width 8");
    expect_refused(plugin, "attention", json::object(), "no workload \"attention\"");

    const auto ok = plugin.check("gemm",
        {{"block_m", 128}, {"block_n", 128}, {"block_k", 32}, {"stages", 3}, {"warps", 8}, {"m", 4096},
            {"threads", 2}});
    std::printf("default gemm -> %s\n", ok.dump().c_str());
    KWB_CHECK(ok.value("ok", false));
    KWB_CHECK(ok.value("smem_bytes_per_block", 0L) == 3L * (128 * 40 + 32 * 136) * 2);
    KWB_CHECK(ok.value("threads_per_block", 0) == 256);
    KWB_CHECK(ok.value("blocks_per_sm", 0) >= 1);
    KWB_CHECK(ok.value("registers_per_thread", 0) > 0);

    const auto names = json::parse(plugin.api->workloads_json());
    KWB_CHECK(names == json({"bandwidth", "gemm", "rmsnorm", "attention_decode", "attention_prefill", "tiny_llm"}));
    return finish("gpu_check_config");
}
