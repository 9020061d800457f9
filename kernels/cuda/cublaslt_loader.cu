// SPDX-License-Identifier: GPL-3.0-or-later
#include "cublaslt_loader.h"
#include "cuda_check.h"

#include <cstdio>
#include <cstdlib>
#include <cublasLt.h> // types and enums only: nothing is linked
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <tuple>

namespace kwb::cuda {

struct CublasLt::Fns {
    decltype(&cublasLtCreate) create;
    decltype(&cublasLtMatmulDescCreate) desc_create;
    decltype(&cublasLtMatmulDescDestroy) desc_destroy;
    decltype(&cublasLtMatmulDescSetAttribute) desc_set;
    decltype(&cublasLtMatrixLayoutCreate) layout_create;
    decltype(&cublasLtMatrixLayoutDestroy) layout_destroy;
    decltype(&cublasLtMatmulPreferenceCreate) pref_create;
    decltype(&cublasLtMatmulPreferenceDestroy) pref_destroy;
    decltype(&cublasLtMatmulPreferenceSetAttribute) pref_set;
    decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic;
    decltype(&cublasLtMatmul) matmul;
};

namespace {

std::string g_why;

template<typename F> bool bind(void* lib, const char* name, F& fn)
{
    fn = reinterpret_cast<F>(::dlsym(lib, name));
    if (!fn)
        g_why = std::string("libcublasLt has no symbol ") + name;
    return fn != nullptr;
}

CublasLt* load()
{
    const char* path = std::getenv("KWB_CUBLASLT");
    void* lib = ::dlopen(path && *path ? path : "libcublasLt.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char* err = ::dlerror();
        g_why = std::string("cuBLASLt could not be loaded: ") + (err ? err : "libcublasLt.so.13 not found")
            + " (set KWB_CUBLASLT to the library's path)";
        return nullptr;
    }
    static CublasLt::Fns f {};
    const bool ok = bind(lib, "cublasLtCreate", f.create) && bind(lib, "cublasLtMatmulDescCreate", f.desc_create)
        && bind(lib, "cublasLtMatmulDescDestroy", f.desc_destroy)
        && bind(lib, "cublasLtMatmulDescSetAttribute", f.desc_set)
        && bind(lib, "cublasLtMatrixLayoutCreate", f.layout_create)
        && bind(lib, "cublasLtMatrixLayoutDestroy", f.layout_destroy)
        && bind(lib, "cublasLtMatmulPreferenceCreate", f.pref_create)
        && bind(lib, "cublasLtMatmulPreferenceDestroy", f.pref_destroy)
        && bind(lib, "cublasLtMatmulPreferenceSetAttribute", f.pref_set)
        && bind(lib, "cublasLtMatmulAlgoGetHeuristic", f.heuristic) && bind(lib, "cublasLtMatmul", f.matmul);
    if (!ok)
        return nullptr;
    static CublasLt lt;
    cublasLtHandle_t h = nullptr;
    if (f.create(&h) != CUBLAS_STATUS_SUCCESS) {
        g_why = "cublasLtCreate failed (no usable GPU?)";
        return nullptr;
    }
    lt.fns = &f;
    lt.handle = h;
    return &lt;
}

void check(cublasStatus_t status, const char* what)
{
    if (status != CUBLAS_STATUS_SUCCESS)
        throw GpuError(std::string("cuBLASLt ") + what + " failed with status " + std::to_string(int(status)));
}

} // namespace

const CublasLt* CublasLt::get()
{
    static const CublasLt* lt = load();
    return lt;
}

const std::string& CublasLt::why()
{
    return g_why;
}

void CublasLt::gemm_bf16(
    const void* a, const void* b, float* c, int m, int n, int k, void* workspace, cudaStream_t stream) const
{
    matmul(Call {a, b, c, m, n, k}, false, workspace, stream);
}

void CublasLt::gemm_bf16_wt(
    const void* a, const void* w, float* c, int m, int n, int k, void* workspace, cudaStream_t stream) const
{
    matmul(Call {a, w, c, m, n, k}, true, workspace, stream);
}

void CublasLt::gemm(const Call& call, void* workspace, cudaStream_t stream) const
{
    matmul(call, false, workspace, stream);
}

namespace {

struct Plan {
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulAlgo_t algo;
    std::string note;
};

using PlanKey = std::tuple<int, int, int, bool, int, int>;

PlanKey key_of(const CublasLt::Call& c, bool b_is_nk)
{
    return {c.m, c.n, c.k, b_is_nk, static_cast<int>(c.c_type), static_cast<int>(c.algo)};
}

std::map<PlanKey, Plan>& plans()
{
    static std::map<PlanKey, Plan> p;
    return p;
}

std::mutex& plans_mutex()
{
    static std::mutex m;
    return m;
}

constexpr int kCandidates = 8;
constexpr int kTimedLaunches = 5;

} // namespace

std::string CublasLt::algo_note(const Call& call) const
{
    std::lock_guard lock(plans_mutex());
    const auto it = plans().find(key_of(call, false));
    return it == plans().end() ? std::string() : it->second.note;
}

void CublasLt::matmul(const Call& call, bool b_is_nk, void* workspace, cudaStream_t stream) const
{
    // Row-major C = A B is column-major C^T = B^T A^T: B (N x K, ld N) times A (K x M, ld K).
    // B stored [N][K] (a weight, y = W x) is column-major K x N (ld K), used transposed.
    const auto& f = *fns;
    const auto lt = static_cast<cublasLtHandle_t>(handle);
    const int m = call.m, n = call.n, k = call.k;
    const float alpha = 1.f, beta = 0.f;
    std::lock_guard lock(plans_mutex());
    auto it = plans().find(key_of(call, b_is_nk));
    if (it == plans().end()) {
        Plan p {};
        check(f.desc_create(&p.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "MatmulDescCreate");
        if (b_is_nk) {
            const cublasOperation_t trans = CUBLAS_OP_T;
            check(f.desc_set(p.desc, CUBLASLT_MATMUL_DESC_TRANSA, &trans, sizeof trans), "MatmulDescSetAttribute");
            check(f.layout_create(&p.la, CUDA_R_16BF, k, n, k), "MatrixLayoutCreate");
        } else
            check(f.layout_create(&p.la, CUDA_R_16BF, n, k, n), "MatrixLayoutCreate");
        check(f.layout_create(&p.lb, CUDA_R_16BF, k, m, k), "MatrixLayoutCreate");
        check(f.layout_create(&p.lc, call.c_type == COut::BF16 ? CUDA_R_16BF : CUDA_R_32F, n, m, n),
            "MatrixLayoutCreate");
        cublasLtMatmulPreference_t pref;
        check(f.pref_create(&pref), "MatmulPreferenceCreate");
        const std::size_t ws = workspace_bytes();
        check(f.pref_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws), "PreferenceSetAttribute");
        const int wanted = call.algo == Algo::Best ? kCandidates : 1;
        cublasLtMatmulHeuristicResult_t results[kCandidates] {};
        int found = 0;
        check(f.heuristic(lt, p.desc, p.la, p.lb, p.lc, p.lc, pref, wanted, results, &found), "MatmulAlgoGetHeuristic");
        f.pref_destroy(pref);
        if (found < 1)
            throw GpuError("cuBLASLt has no algorithm for bf16 " + std::to_string(m) + "x" + std::to_string(n) + "x"
                + std::to_string(k));
        p.algo = results[0].algo;
        if (call.algo == Algo::Best) {
            // Each candidate: one untimed launch, then kTimedLaunches between one event pair.
            cudaEvent_t start, stop;
            KWB_CUDA(cudaEventCreate(&start));
            KWB_CUDA(cudaEventCreate(&stop));
            float best = 0, first = 0;
            int best_i = -1, timed = 0;
            for (int i = 0; i < found; ++i) {
                const auto run = [&] {
                    return f.matmul(lt, p.desc, &alpha, call.b, p.la, call.a, p.lb, &beta, call.c, p.lc, call.c, p.lc,
                        &results[i].algo, workspace, workspace_bytes(), stream);
                };
                if (results[i].state != CUBLAS_STATUS_SUCCESS || run() != CUBLAS_STATUS_SUCCESS)
                    continue;
                KWB_CUDA(cudaEventRecord(start, stream));
                for (int r = 0; r < kTimedLaunches; ++r)
                    check(run(), "Matmul (candidate)");
                KWB_CUDA(cudaEventRecord(stop, stream));
                KWB_CUDA(cudaEventSynchronize(stop));
                float ms = 0;
                KWB_CUDA(cudaEventElapsedTime(&ms, start, stop));
                ms /= kTimedLaunches;
                ++timed;
                if (i == 0)
                    first = ms;
                if (best_i < 0 || ms < best) {
                    best = ms;
                    best_i = i;
                }
            }
            cudaEventDestroy(start);
            cudaEventDestroy(stop);
            if (best_i < 0)
                throw GpuError("cuBLASLt: none of the heuristic's " + std::to_string(found) + " algorithms ran for "
                    + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
            p.algo = results[best_i].algo;
            char note[160];
            std::snprintf(note, sizeof note, "best of %d timed: candidate %d at %.4f ms, the heuristic's first %.4f ms",
                timed, best_i + 1, best, first);
            p.note = note;
        } else {
            p.note = "the heuristic's first algorithm";
        }
        it = plans().emplace(key_of(call, b_is_nk), p).first;
    }
    const Plan& p = it->second;
    check(f.matmul(lt, p.desc, &alpha, call.b, p.la, call.a, p.lb, &beta, call.c, p.lc, call.c, p.lc, &p.algo,
              workspace, workspace_bytes(), stream),
        "Matmul");
}

} // namespace kwb::cuda
