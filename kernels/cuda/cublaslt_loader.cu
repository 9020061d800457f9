// SPDX-License-Identifier: GPL-3.0-or-later
#include "cublaslt_loader.h"
#include "cuda_check.h"

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
    matmul(a, b, false, c, m, n, k, workspace, stream);
}

void CublasLt::gemm_bf16_wt(
    const void* a, const void* w, float* c, int m, int n, int k, void* workspace, cudaStream_t stream) const
{
    matmul(a, w, true, c, m, n, k, workspace, stream);
}

void CublasLt::matmul(const void* a, const void* b, bool b_is_nk, float* c, int m, int n, int k, void* workspace,
    cudaStream_t stream) const
{
    // Row-major C = A B is column-major C^T = B^T A^T: B (N x K, ld N) times A (K x M, ld K).
    // B stored [N][K] (a weight, y = W x) is column-major K x N (ld K), used transposed.
    const auto& f = *fns;
    struct Plan {
        cublasLtMatmulDesc_t desc;
        cublasLtMatrixLayout_t la, lb, lc;
        cublasLtMatmulAlgo_t algo;
    };
    static std::map<std::tuple<int, int, int, bool>, Plan> plans;
    static std::mutex mutex;
    std::lock_guard lock(mutex);
    auto it = plans.find({m, n, k, b_is_nk});
    if (it == plans.end()) {
        Plan p {};
        check(f.desc_create(&p.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "MatmulDescCreate");
        if (b_is_nk) {
            const cublasOperation_t trans = CUBLAS_OP_T;
            check(f.desc_set(p.desc, CUBLASLT_MATMUL_DESC_TRANSA, &trans, sizeof trans), "MatmulDescSetAttribute");
            check(f.layout_create(&p.la, CUDA_R_16BF, k, n, k), "MatrixLayoutCreate");
        } else
            check(f.layout_create(&p.la, CUDA_R_16BF, n, k, n), "MatrixLayoutCreate");
        check(f.layout_create(&p.lb, CUDA_R_16BF, k, m, k), "MatrixLayoutCreate");
        check(f.layout_create(&p.lc, CUDA_R_32F, n, m, n), "MatrixLayoutCreate");
        cublasLtMatmulPreference_t pref;
        check(f.pref_create(&pref), "MatmulPreferenceCreate");
        const std::size_t ws = workspace_bytes();
        check(f.pref_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws), "PreferenceSetAttribute");
        cublasLtMatmulHeuristicResult_t result {};
        int found = 0;
        check(f.heuristic(
                  static_cast<cublasLtHandle_t>(handle), p.desc, p.la, p.lb, p.lc, p.lc, pref, 1, &result, &found),
            "MatmulAlgoGetHeuristic");
        f.pref_destroy(pref);
        if (found < 1)
            throw GpuError("cuBLASLt has no algorithm for bf16 " + std::to_string(m) + "x" + std::to_string(n) + "x"
                + std::to_string(k));
        p.algo = result.algo;
        it = plans.emplace(std::make_tuple(m, n, k, b_is_nk), p).first;
    }
    const Plan& p = it->second;
    const float alpha = 1.f, beta = 0.f;
    check(f.matmul(static_cast<cublasLtHandle_t>(handle), p.desc, &alpha, b, p.la, a, p.lb, &beta, c, p.lc, c, p.lc,
              &p.algo, workspace, workspace_bytes(), stream),
        "Matmul");
}

} // namespace kwb::cuda
