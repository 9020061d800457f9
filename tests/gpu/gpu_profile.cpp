// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb profile` on the GPU: a 2 GiB copy must be called memory-bound and a bf16 8192^3 cuBLASLt
// GEMM compute-bound, and the measured DRAM % and tensor % must rank them that way round (the
// copy reads more DRAM, the GEMM keeps the tensor pipe busier). Runs the kwb program beside this
// one ($KWB_PROGRAM overrides) in a temporary folder; with $OUT set the two studies are copied
// there (profile-copy.json, profile-gemm.json). Skipped (77) with no usable GPU, or where
// the counters are restricted (the limitation kwb stamped is printed).
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

// kwb new + kwb profile --json; the binding section, or null after printing why.
json profile(const fs::path& dir, const std::string& name, const std::string& new_args)
{
    const fs::path study = dir / (name + ".json"), out = dir / (name + ".out"), err = dir / (name + ".err");
    const std::string kwb = kwb_program().string();
    if (sh(kwb + " new " + new_args + " --backend cuda --out " + study.string() + " --force 2>" + err.string()) != 0) {
        std::printf("kwb new failed: %s\n", read(err).c_str());
        return nullptr;
    }
    const int rc = sh(kwb + " profile " + study.string() + " --json >" + out.string() + " 2>" + err.string());
    std::printf("%s", read(err).c_str());
    if (rc != 0) {
        std::printf("kwb profile exited %d\n", rc);
        return nullptr;
    }
    const auto j = json::parse(read(out));
    std::printf("%s: %s\n", name.c_str(), j.at("binding").dump(1).c_str());
    return j.at("binding");
}

double metric(const json& binding, const char* name)
{
    const auto& m = binding.at("metrics");
    return m.contains(name) && m[name].is_number() ? m[name].get<double>() : -1.0;
}

} // namespace

int main()
{
    const Plugin plugin = require_plugin();
    if (const char* s = plugin.api->cupti_status(0); s && *s)
        skip(std::string("CUPTI counters unavailable: ") + s);
    if (!fs::exists(kwb_program()))
        skip("no kwb program at " + kwb_program().string());
    char tmpl[] = "/tmp/kwb_gpu_profile_XXXXXX";
    const fs::path dir = mkdtemp(tmpl);

    const json copy
        = profile(dir, "copy", "--workload bandwidth --param op=copy --param size_mb=2048 --vary vector_width=4,8");
    const json gemm = profile(dir, "gemm",
        "--workload gemm --param impl=cublaslt --param m=8192 --param n=8192 --param k=8192 --vary block_n=64,128");
    KWB_CHECK(!copy.is_null());
    KWB_CHECK(!gemm.is_null());
    if (!copy.is_null() && !gemm.is_null()) {
        KWB_CHECK(copy.value("source", "") == "cupti");
        KWB_CHECK(gemm.value("source", "") == "cupti");
        KWB_CHECK(copy.value("constraint", "") == "memory-bandwidth");
        KWB_CHECK(gemm.value("constraint", "") == "compute");
        const double copy_dram = metric(copy, "dram_pct"), gemm_dram = metric(gemm, "dram_pct");
        const double copy_tensor = metric(copy, "tensor_pct"), gemm_tensor = metric(gemm, "tensor_pct");
        std::printf("DRAM %%: copy %.2f, gemm %.2f; tensor %%: copy %.2f, gemm %.2f\n", copy_dram, gemm_dram,
            copy_tensor, gemm_tensor);
        KWB_CHECK(copy_dram >= 0 && gemm_dram >= 0 && copy_dram > gemm_dram);
        KWB_CHECK(copy_tensor >= 0 && gemm_tensor >= 0 && gemm_tensor > copy_tensor);
        KWB_CHECK(!copy.at("kernels").empty() && copy.at("kernels").at(0).value("samples", 0) > 0);
        KWB_CHECK(!gemm.at("kernels").empty() && gemm.at("kernels").at(0).value("samples", 0) > 0);
    }
    // On the GPU machine the profiled studies come back under $OUT, for the window to replay.
    std::error_code ec;
    if (const char* out = std::getenv("OUT"))
        for (const char* name : {"copy", "gemm"})
            fs::copy_file(dir / (std::string(name) + ".json"),
                fs::path(out) / (std::string("profile-") + name + ".json"), fs::copy_options::overwrite_existing, ec);
    fs::remove_all(dir, ec);
    return finish("gpu_profile");
}
