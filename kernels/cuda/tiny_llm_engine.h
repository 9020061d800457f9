// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// tiny_llm on the GPU, shared by its files: the parameters (tiny_llm_workload.cu reads and checks
// them), the model's buffers and forward pass (tiny_llm_workload.cu) and the serving of a
// repetition's requests, one after another or continuously batched (tiny_llm_serving.cu).
#include "../cpu/continuous_batching.h"
#include "../cpu/kv_fp8.h"
#include "attention_decode_kernel.cuh"
#include "attention_prefill_kernel.cuh"
#include "cuda_check.h"
#include "device_buffer.h"
#include "gpu_workload.h"
#include "tiny_llm_model.h"
#include "tiny_llm_prefill_gemm.h"

#include <map>
#include <memory>

namespace kwb::cuda::tllm {

inline constexpr const char* kName = "tiny_llm";
struct GemvArgs; // tiny_llm_gemv.cuh
inline constexpr int kGemvMaxRows = 8;

struct Config {
    ModelShape m;
    llm::ScheduleSpec sched;
    int page_size, splits, max_batch;
    int gemv_blocks_per_sm; // 0: as many as fit
    bool gemv_balanced; // the fewest blocks that take the wave's rounds of units whole
    bool mma_attention; // decode attention on tensor cores (decode_mma_kernel), not the fp32 CUDA-core kernel
    bool early_attention; // the step's attention puts its KV tiles in flight before its PDL wait
    bool graph, gemv, fp8, pdl, wrong;
    std::string prefill_gemm; // cublaslt, or an own GEMM for every linear of a prefill: wgmma | tiled
    bool fp8_weights = false; // `weights` fp8: decode steps' GEMVs read e4m3 codes and per-row scales
    explicit Config(const nlohmann::json& p);
    bool poisson() const { return sched.arrivals == llm::Arrivals::Poisson; }
    int rows() const { return poisson() ? max_batch : sched.batch; } // rows of a decode step, at most
    int max_len() const { return sched.prompt_len + sched.gen_tokens; }
    int group() const { return m.heads / m.kv_heads; }
    std::string what() const;
};

using DecodeKernel = void (*)(decode::Params);
using PrefillKernel = void (*)(prefill::Params);
DecodeKernel decode_kernel_for(const Config& c, int& smem);

class TinyLlm final : public GpuWorkload {
public:
    TinyLlm(const Config& cfg, cudaStream_t stream);
    ~TinyLlm() override;

    void launch(cudaStream_t stream) override; // tiny_llm_serving.cu
    nlohmann::json verify(cudaStream_t stream) override;
    double flops_per_launch() const override { return flops_; }
    double bytes_per_launch() const override { return bytes_.total(traffic_); }
    nlohmann::json metrics() const override; // tiny_llm_serving.cu
    nlohmann::json served_json(const std::vector<llm::ServedRequest>& served, double wall_ms,
        const std::vector<llm::ServingTrace::Reading>& readings) const;

    // Continuous batching's side (llm::serve_continuous): synchronous, rows compacted.
    void prefill(int request, int first_row);
    void step(int rows);
    void retire(const std::vector<int>& kept);

private:
    DeviceBuffer& alloc(DeviceBuffer& b, std::size_t bytes)
    {
        b = DeviceBuffer(bytes);
        allocated_ += bytes;
        return b;
    }
    const __nv_bfloat16* w(std::size_t at) const { return weights_.as<__nv_bfloat16>() + at; }
    // The linear weight at `at` for a decode step's GEMV: its bf16 rows, and with fp8 weights its
    // e4m3 codes and row scales too (the GEMV then reads those).
    void set_weights(GemvArgs& a, std::size_t at) const;
    nlohmann::json accuracy_guard(cudaStream_t stream); // tiny_llm_guard.cu: fp8 weights against the bf16 model
    // The guard's pass over `seqs` prompts of `len` tokens, in groups of the batch: each group's
    // prefill, then `steps` greedy steps; with `forced`, each step's input tokens are those
    // (another model's, [seq][position]) instead of this model's own. Fills the last position's
    // logits [seq][position][vocab] and the chosen tokens [seq][position], positions 0..steps.
    void guard_pass(const std::vector<int>& prompts, int seqs, int len, int steps, const std::vector<int>* forced,
        std::vector<float>& logits, std::vector<int>& chosen, cudaStream_t stream);
    const float* gain(std::size_t at) const { return norms_.as<float>() + at; }
    // A linear layer of a prefill (`prefill`) or a decode step: the own prefill GEMM when there is
    // one, else the GEMV for rows <= 8 (decode_gemm gemv), else cuBLASLt.
    bool gemv_serves(int rows, bool prefill) const
    {
        return cfg_.gemv && rows <= kGemvMaxRows && !(prefill && own_gemm_);
    }
    void linear(const __nv_bfloat16* in, int rows, std::size_t at, int n, int k, void* out, cudaStream_t s,
        bool prefill, int glu = 0) const;
    // seqs sequences of `per` tokens, in rows [row0, row0 + seqs) of the lengths, page table and
    // next tokens; the last positions' logits into logits_ rows [0, seqs).
    void forward(int seqs, int per, int row0, const int* cu_seqlens, int max_len, cudaStream_t s) const;
    // A decode step's forward of rows <= 8 with the GEMV (tiny_llm_gemv.cuh): the norms, the
    // residual adds, RoPE and the K/V scatter folded into the GEMVs, launched with PDL when
    // cfg_.pdl. Used when the rows' bf16 input fits a block's shared memory (fused_step).
    bool fused_step(int rows) const;
    void fused_forward(int seqs, cudaStream_t s) const;
    void lm_head_argmax(int seqs, cudaStream_t s) const;
    nlohmann::json argmax_probe(cudaStream_t stream); // tiny_llm_verify.cu
    void prefill(const int* tokens, int prompt_len, const int* cu_seqlens, int row0, cudaStream_t s) const;
    void decode_step(int seqs, cudaStream_t s) const;
    void step(int seqs, cudaStream_t s) const
    {
        const auto g = execs_.find(seqs);
        if (g != execs_.end())
            KWB_CUDA(cudaGraphLaunch(g->second, s));
        else
            decode_step(seqs, s);
    }
    void capture_step(int seqs, cudaStream_t stream);
    void calibrate_fp8(cudaStream_t stream);
    void launch_sequential(cudaStream_t stream);
    void set_row_pages(int row, std::vector<int> pages, cudaStream_t stream);

    Config cfg_;
    WeightLayout layout_;
    std::vector<llm::Request> requests_;
    int max_prompt_ = 0, max_pages_ = 0, pages_ = 0, decode_smem_ = 0, prefill_smem_ = 0;
    DecodeKernel decode_kernel_;
    PrefillKernel prefill_kernel_;
    std::size_t allocated_ = 0;
    DeviceBuffer weights_, norms_, rope_, k_pool_, v_pool_, table_, seq_len_, prompts_, cu_, kv_scale_, amax_;
    DeviceBuffer x_, xn_, act_, qkv_, q_, k_, v_, attn_, delta_, gu_, logits_, next_, o_part_, m_part_, l_part_;
    DeviceBuffer workspace_;
    DeviceBuffer argmax_partial_, argmax_arrived_; // the fused LM head's argmax across its blocks (decode_gemm gemv)
    DeviceBuffer wq_, wscale_; // weights fp8: e4m3 codes from layout_.qkv(0) on, one fp32 scale per row
    std::map<std::size_t, std::size_t> scale_at_; // a linear weight's offset -> its first row's scale
    std::unique_ptr<PrefillGemm> own_gemm_; // prefill_gemm wgmma | tiled: the transposed weights
    std::vector<float> kv_scale_host_; // [layers][2][kv_heads]
    std::vector<std::size_t> prompt_at_; // offset of each request's tokens in prompts_
    std::vector<int> table_host_; // [rows][max_pages]: the page table as first built
    std::vector<cudaEvent_t> events_; // sequential: per request, start, then one per token
    std::map<int, cudaGraph_t> graphs_; // per step width
    std::map<int, cudaGraphExec_t> execs_;
    // Continuous batching: each row's pages, the free pages, the repetition's trace.
    std::vector<std::vector<int>> row_pages_;
    std::vector<int> free_pages_;
    cudaStream_t serving_stream_ = nullptr;
    llm::ServingTrace trace_;
    double flops_ = 0, generated_ = 0;
    llm::DecodeBytes bytes_; // decode_traffic.h: the sizes
    llm::DecodeTraffic traffic_; // of the last repetition (sequential: the schedule's)
};

} // namespace kwb::cuda::tllm
