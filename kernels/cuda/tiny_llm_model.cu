// SPDX-License-Identifier: GPL-3.0-or-later
#include "../cpu/weight_fp8.h"
#include "device_buffer.h"
#include "tiny_llm_kernels.cuh"
#include "tiny_llm_model.h"

#include <algorithm>
#include <cmath>
#include <cuda_fp8.h>

namespace kwb::cuda::tllm {

WeightLayout::WeightLayout(const ModelShape& s)
    : layers(s.layers)
    , hidden(static_cast<std::size_t>(s.hidden))
{
    const std::size_t h = hidden, f = static_cast<std::size_t>(s.ffn), v = static_cast<std::size_t>(s.vocab);
    qkv_n = static_cast<std::size_t>(s.qkv_width()) * h;
    wo_n = h * h;
    gu_n = 2 * f * h;
    per_layer = qkv_n + wo_n + gu_n + h * f;
    embedding = 0;
    first_layer = v * h;
    lm_head = first_layer + static_cast<std::size_t>(s.layers) * per_layer;
    total = lm_head + v * h;
    norms = (2 * static_cast<std::size_t>(s.layers) + 1) * h;
}

namespace {

template<typename T> void seed_range(T* at, std::size_t n, std::uint64_t seed, float lo, float hi, cudaStream_t stream)
{
    const float scale = (hi - lo) / 16777216.0f; // as fill_uniform computes it, in float
    const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>((n + 255) / 256, 8192));
    seed_tensor<T><<<blocks, 256, 0, stream>>>(at, n, seed, lo, scale);
}

// linear_weights(out, in, seed): uniform on [-a, a], a = sqrt(3 / in) in float.
template<typename T> void seed_linear(T* at, int out, int in, std::uint64_t seed, cudaStream_t stream)
{
    const float a = std::sqrt(3.0f / static_cast<float>(in));
    seed_range(at, static_cast<std::size_t>(out) * in, seed, -a, a, stream);
}

template<typename T> void seed_all(const ModelShape& s, T* w, float* norms, cudaStream_t stream)
{
    const WeightLayout L(s);
    const std::size_t h = static_cast<std::size_t>(s.hidden);
    std::uint64_t seed = s.seed * 1000003u; // make_decoder_weights: one stream per tensor, in this order
    seed_range(w + L.embedding, static_cast<std::size_t>(s.vocab) * h, ++seed, -1.0f, 1.0f, stream);
    for (int l = 0; l < s.layers; ++l) {
        seed_range(norms + L.attn_norm(l), h, ++seed, 0.8f, 1.2f, stream);
        seed_linear(w + L.qkv(l), s.hidden, s.hidden, ++seed, stream);
        seed_linear(w + L.qkv(l) + h * h, s.kv_dim(), s.hidden, ++seed, stream);
        seed_linear(w + L.qkv(l) + h * h + h * s.kv_dim(), s.kv_dim(), s.hidden, ++seed, stream);
        seed_linear(w + L.wo(l), s.hidden, s.hidden, ++seed, stream);
        seed_range(norms + L.ffn_norm(l), h, ++seed, 0.8f, 1.2f, stream);
        seed_linear(w + L.gate_up(l), s.ffn, s.hidden, ++seed, stream);
        seed_linear(w + L.gate_up(l) + h * s.ffn, s.ffn, s.hidden, ++seed, stream);
        seed_linear(w + L.down(l), s.hidden, s.ffn, ++seed, stream);
    }
    seed_range(norms + L.final_norm(), h, ++seed, 0.8f, 1.2f, stream);
    seed_linear(w + L.lm_head, s.vocab, s.hidden, ++seed, stream);
    KWB_CUDA_LAUNCHED("seed_tensor");
}

// y[o] = W[o] . x, fp32, a warp per output.
__global__ void ref_linear(const float* w, const float* x, float* y, int n, int k)
{
    const int o = blockIdx.x * 8 + (threadIdx.x >> 5), lane = threadIdx.x & 31;
    if (o >= n)
        return;
    float acc = 0.f;
    for (int i = lane; i < k; i += 32)
        acc += w[static_cast<std::size_t>(o) * k + i] * x[i];
    for (int s = 16; s > 0; s >>= 1)
        acc += __shfl_xor_sync(0xffffffffu, acc, s);
    if (lane == 0)
        y[o] = acc;
}

// RoPE of Q and K of position pos with angles in double; K and V into the fp32 cache row.
__global__ void ref_rope(float* qkv, float* k_row, float* v_row, int hidden, int kv_dim, int head_dim, int pos)
{
    for (int j = threadIdx.x; j < (hidden + kv_dim) / 2; j += blockDim.x) {
        const int col = 2 * j, i = (col % head_dim) / 2;
        const double angle = pos * pow(kRopeTheta, -2.0 * i / head_dim);
        const double c = cos(angle), s = sin(angle), a = qkv[col], b = qkv[col + 1];
        qkv[col] = static_cast<float>(a * c - b * s);
        qkv[col + 1] = static_cast<float>(a * s + b * c);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < kv_dim; i += blockDim.x) {
        k_row[i] = qkv[hidden + i];
        v_row[i] = qkv[hidden + kv_dim + i];
    }
}

// fp8 e4m3 rounding of a K or V row as the serving path stores it: value / scale to e4m3
// (saturating), back times the scale; scales [2][kv_heads] (K then V), `which` 0 or 1.
__global__ void ref_fp8_round(const float* in, float* out, const float* scales, int kv_dim, int head_dim, int which)
{
    for (int i = threadIdx.x; i < kv_dim; i += blockDim.x) {
        const float s = scales[which * (kv_dim / head_dim) + i / head_dim];
        out[i] = static_cast<float>(__nv_fp8_e4m3(in[i] / s)) * s;
    }
}

// One block per query head over positions 0..pos of the fp32 cache [pos][kv_dim]: explicit
// softmax (pos < 1024: the scores fit shared memory).
__global__ void ref_attention(
    const float* q, const float* keys, const float* values, float* out, int heads, int kv_heads, int head_dim, int pos)
{
    __shared__ float p[1024];
    __shared__ float red[8];
    const int h = blockIdx.x, kvh = h / (heads / kv_heads), kv_dim = kv_heads * head_dim;
    const float* qh = q + h * head_dim;
    for (int j = threadIdx.x; j <= pos; j += blockDim.x) {
        float s = 0.f;
        for (int d = 0; d < head_dim; ++d)
            s += qh[d] * keys[static_cast<std::size_t>(j) * kv_dim + kvh * head_dim + d];
        p[j] = s / sqrtf(static_cast<float>(head_dim));
    }
    __syncthreads();
    float mx = -INFINITY;
    for (int j = 0; j <= pos; ++j)
        mx = fmaxf(mx, p[j]);
    __syncthreads();
    float part = 0.f;
    for (int j = threadIdx.x; j <= pos; j += blockDim.x) {
        p[j] = expf(p[j] - mx);
        part += p[j];
    }
    const float total = block_sum(part, red);
    for (int d = threadIdx.x; d < head_dim; d += blockDim.x) {
        float o = 0.f;
        for (int j = 0; j <= pos; ++j)
            o += p[j] * values[static_cast<std::size_t>(j) * kv_dim + kvh * head_dim + d];
        out[h * head_dim + d] = o / total;
    }
}

__device__ __forceinline__ float as_bf16_value(float v)
{
    return __bfloat162float(__float2bfloat16(v));
}
__device__ __forceinline__ float as_bf16_value(__nv_bfloat16 v)
{
    return __bfloat162float(v);
}

// One block per row of k weights: the row's largest |w| (as bf16), its scale, each weight's e4m3
// code (rounded to nearest even, saturating: __nv_fp8_e4m3's conversion, kv_fp8.h's rule) and
// code x scale back in place.
template<typename T> __global__ void quantise_rows(T* w, int k, __nv_fp8_e4m3* codes, float* scales)
{
    __shared__ float red[32];
    T* row = w + static_cast<std::size_t>(blockIdx.x) * k;
    float m = 0.f;
    for (int i = threadIdx.x; i < k; i += blockDim.x)
        m = fmaxf(m, fabsf(as_bf16_value(row[i])));
    for (int o = 16; o > 0; o >>= 1)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    if ((threadIdx.x & 31) == 0)
        red[threadIdx.x >> 5] = m;
    __syncthreads();
    if (threadIdx.x < 32) {
        m = threadIdx.x < (blockDim.x + 31) / 32 ? red[threadIdx.x] : 0.f;
        for (int o = 16; o > 0; o >>= 1)
            m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
        if (threadIdx.x == 0)
            red[0] = m;
    }
    __syncthreads();
    const float scale = llm::weight_fp8_scale(red[0]);
    for (int i = threadIdx.x; i < k; i += blockDim.x) {
        const __nv_fp8_e4m3 code(as_bf16_value(row[i]) / scale);
        if (codes)
            codes[static_cast<std::size_t>(blockIdx.x) * k + i] = code;
        row[i] = from_float<T>(static_cast<float>(code) * scale);
    }
    if (scales && threadIdx.x == 0)
        scales[blockIdx.x] = scale;
}

} // namespace

std::vector<LinearMatrix> linear_matrices(const ModelShape& s)
{
    const WeightLayout L(s);
    std::vector<LinearMatrix> out;
    std::size_t rows = 0;
    const auto add = [&](std::size_t at, int n, int k) {
        out.push_back({at, n, k, rows});
        rows += static_cast<std::size_t>(n);
    };
    for (int l = 0; l < s.layers; ++l) {
        add(L.qkv(l), s.qkv_width(), s.hidden);
        add(L.wo(l), s.hidden, s.hidden);
        add(L.gate_up(l), 2 * s.ffn, s.hidden);
        add(L.down(l), s.hidden, s.ffn);
    }
    add(L.lm_head, s.vocab, s.hidden);
    return out;
}

void quantise_weights(const ModelShape& s, void* weights, bool bf16, void* codes, float* scales, cudaStream_t stream)
{
    const WeightLayout L(s);
    for (const auto& mat : linear_matrices(s)) {
        auto* c = codes ? static_cast<__nv_fp8_e4m3*>(codes) + (mat.at - L.qkv(0)) : nullptr;
        float* sc = scales ? scales + mat.first_row : nullptr;
        const unsigned blocks = static_cast<unsigned>(mat.rows);
        if (bf16)
            quantise_rows<<<blocks, 256, 0, stream>>>(static_cast<__nv_bfloat16*>(weights) + mat.at, mat.cols, c, sc);
        else
            quantise_rows<<<blocks, 256, 0, stream>>>(static_cast<float*>(weights) + mat.at, mat.cols, c, sc);
    }
    KWB_CUDA_LAUNCHED("quantise_rows");
}

void seed_weights(const ModelShape& s, void* weights, bool bf16, float* norms, cudaStream_t stream)
{
    if (bf16)
        seed_all(s, static_cast<__nv_bfloat16*>(weights), norms, stream);
    else
        seed_all(s, static_cast<float*>(weights), norms, stream);
}

std::vector<float> reference_logits(const ModelShape& s, const std::vector<int>& tokens, int first, cudaStream_t stream,
    std::vector<float>* probes, const Fp8Cache* fp8, bool fp8_weights)
{
    const WeightLayout L(s);
    const int n = static_cast<int>(tokens.size()), h = s.hidden, kv = s.kv_dim();
    if (n > 1024)
        throw ConfigError("tiny_llm: the reference checks at most 1024 positions");
    DeviceBuffer w(L.total * 4), norms(L.norms * 4), tok(tokens.size() * 4);
    seed_weights(s, w.as<void>(), false, norms.as<float>(), stream);
    const float* W = w.as<float>();
    const float* G = norms.as<float>();
    if (probes) {
        const std::size_t h = static_cast<std::size_t>(s.hidden), f = static_cast<std::size_t>(s.ffn);
        const std::size_t at[] = {L.embedding, L.embedding + s.vocab * h - 1, L.qkv(0), L.qkv(0) + h * h,
            L.qkv(0) + h * h + h * kv, L.wo(0), L.gate_up(0), L.gate_up(0) + h * f, L.down(0),
            L.down(s.layers - 1) + h * f - 1, L.lm_head, L.lm_head + s.vocab * h - 1};
        probes->assign(kProbes, 0.f);
        for (int i = 0; i < 12; ++i)
            KWB_CUDA(cudaMemcpyAsync(&(*probes)[i], W + at[i], 4, cudaMemcpyDeviceToHost, stream));
        const std::size_t gat[] = {L.attn_norm(0), L.ffn_norm(0), L.final_norm() + h - 1};
        for (int i = 0; i < 3; ++i)
            KWB_CUDA(cudaMemcpyAsync(&(*probes)[12 + i], G + gat[i], 4, cudaMemcpyDeviceToHost, stream));
    }
    if (fp8_weights) // after the probes: those are the seeded values
        quantise_weights(s, w.as<void>(), false, nullptr, nullptr, stream);
    const std::size_t cache = static_cast<std::size_t>(s.layers) * n * kv;
    DeviceBuffer x(h * 4), xn(h * 4), qkv(s.qkv_width() * 4), attn(h * 4), o(h * 4),
        gu(2 * static_cast<std::size_t>(s.ffn) * 4), u(s.ffn * 4), dn(h * 4), logits(s.vocab * 4), kc(cache * 4),
        vc(cache * 4), kq(fp8 ? cache * 4 : 4), vq(fp8 ? cache * 4 : 4), scales(fp8 ? fp8->scales.size() * 4 : 4);
    if (fp8)
        KWB_CUDA(
            cudaMemcpyAsync(scales.as<void>(), fp8->scales.data(), scales.bytes(), cudaMemcpyHostToDevice, stream));
    KWB_CUDA(cudaMemcpyAsync(tok.as<void>(), tokens.data(), tok.bytes(), cudaMemcpyHostToDevice, stream));
    const auto linear = [&](std::size_t at, const float* in, float* out, int rows, int cols) {
        ref_linear<<<(rows + 7) / 8, 256, 0, stream>>>(W + at, in, out, rows, cols);
    };
    std::vector<float> out;
    for (int pos = 0; pos < n; ++pos) {
        embed<float><<<1, 256, 0, stream>>>(tok.as<int>() + pos, W + L.embedding, x.as<float>(), h);
        for (int l = 0; l < s.layers; ++l) {
            residual_rmsnorm<float><<<1, 256, 0, stream>>>(
                x.as<float>(), l ? dn.as<float>() : nullptr, G + L.attn_norm(l), xn.as<float>(), h, 1);
            linear(L.qkv(l), xn.as<float>(), qkv.as<float>(), s.qkv_width(), h);
            const std::size_t row = (static_cast<std::size_t>(l) * n + pos) * kv;
            ref_rope<<<1, 256, 0, stream>>>(
                qkv.as<float>(), kc.as<float>() + row, vc.as<float>() + row, h, kv, s.head_dim(), pos);
            const std::size_t layer0 = static_cast<std::size_t>(l) * n * kv;
            const bool rounded = fp8 && pos >= fp8->from;
            if (fp8) {
                const float* sc = scales.as<float>() + static_cast<std::size_t>(l) * 2 * s.kv_heads;
                ref_fp8_round<<<1, 256, 0, stream>>>(
                    kc.as<float>() + row, kq.as<float>() + row, sc, kv, s.head_dim(), 0);
                ref_fp8_round<<<1, 256, 0, stream>>>(
                    vc.as<float>() + row, vq.as<float>() + row, sc, kv, s.head_dim(), 1);
            }
            ref_attention<<<s.heads, 256, 0, stream>>>(qkv.as<float>(), (rounded ? kq : kc).as<float>() + layer0,
                (rounded ? vq : vc).as<float>() + layer0, attn.as<float>(), s.heads, s.kv_heads, s.head_dim(), pos);
            linear(L.wo(l), attn.as<float>(), o.as<float>(), h, h);
            residual_rmsnorm<float>
                <<<1, 256, 0, stream>>>(x.as<float>(), o.as<float>(), G + L.ffn_norm(l), xn.as<float>(), h, 1);
            linear(L.gate_up(l), xn.as<float>(), gu.as<float>(), 2 * s.ffn, h);
            swiglu<float><<<1, 256, 0, stream>>>(gu.as<float>(), u.as<float>(), s.ffn);
            linear(L.down(l), u.as<float>(), dn.as<float>(), h, s.ffn);
        }
        residual_rmsnorm<float>
            <<<1, 256, 0, stream>>>(x.as<float>(), dn.as<float>(), G + L.final_norm(), xn.as<float>(), h, 1);
        KWB_CUDA_LAUNCHED("reference layers");
        if (pos < first)
            continue;
        linear(L.lm_head, xn.as<float>(), logits.as<float>(), s.vocab, h);
        KWB_CUDA_LAUNCHED("reference lm_head");
        const std::size_t at = out.size();
        out.resize(at + s.vocab);
        KWB_CUDA(cudaMemcpyAsync(out.data() + at, logits.as<void>(), logits.bytes(), cudaMemcpyDeviceToHost, stream));
        KWB_CUDA(cudaStreamSynchronize(stream));
    }
    return out;
}

} // namespace kwb::cuda::tllm
