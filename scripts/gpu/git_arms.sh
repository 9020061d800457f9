#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Issue 28 on the H200, from a packed folder (scripts/gpu/pack.sh): a CUDA repository made here with
# two commits (the second keeps a 64-float unrolled array live per thread, so registers per thread
# rise and occupancy falls), built by nvcc in kwb's worktrees, run to a verdict as commit arms.
# Writes under $1 (default $OUT)/git_arms: the study, its kernels' file (STUDY.kernels.json:
# registers, shared and local memory and SASS hashes from cuobjdump), the build logs, a JSON report.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${OUT:-$PWD/gpu-out}}/git_arms
mkdir -p "$out"
[ -f "$here/gpu_env.sh" ] && . "$here/gpu_env.sh"
kwb=${KWB:-$here/bin/kwb}
command -v git >/dev/null || { echo "git is not on this machine: build the repository elsewhere and carry it" | tee "$out/ERROR"; exit 1; }
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
export KWB_GIT_CACHE="$out/cache"
repo="$out/repo"
rm -rf "$repo" && mkdir -p "$repo"
cat > "$repo/bench.cu" <<'CU'
#include <cstdio>
#include <cuda_runtime.h>
#ifndef LIVE
#define LIVE 4
#endif
__global__ void __launch_bounds__(256) kernel(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc[LIVE];
#pragma unroll
    for (int k = 0; k < LIVE; ++k) acc[k] = in[(i + k * 977) % n];
    float s = 0;
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int k = 0; k < LIVE; ++k) { acc[k] = acc[k] * 1.0001f + acc[(k + 1) % LIVE]; s += acc[k]; }
    out[i] = s;
}
int main()
{
    const int n = 1 << 24;
    float *in, *out;
    cudaMalloc(&in, n * sizeof(float));
    cudaMalloc(&out, n * sizeof(float));
    cudaMemset(in, 0, n * sizeof(float));
    cudaEvent_t a, b;
    cudaEventCreate(&a); cudaEventCreate(&b);
    kernel<<<n / 256, 256>>>(in, out, n);
    cudaEventRecord(a);
    for (int r = 0; r < 20; ++r) kernel<<<n / 256, 256>>>(in, out, n);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    ms /= 20;
    if (cudaGetLastError() != cudaSuccess) return 1;
    std::printf("{\"context\":{},\"benchmarks\":[{\"name\":\"kernel\",\"run_name\":\"kernel\",\"real_time\":%f,"
                "\"cpu_time\":%f,\"time_unit\":\"ms\",\"iterations\":20}]}\n", ms, ms);
    return 0;
}
CU
echo 4 > "$repo/live"
(cd "$repo" && git init -q && git config user.email kwb@example.com && git config user.name kwb \
  && git add -A && git commit -qm "kernel: 4 live floats per thread")
echo 64 > "$repo/live"
(cd "$repo" && git commit -qam "kernel: 64 live floats per thread (register pressure)")
build="$nvcc -O3 -arch=sm_90 -DLIVE=\$(cat live) bench.cu -o bench"
{
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: $(cat "$here/COMMIT" 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1
  "$nvcc" --version | tail -2
  command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump
} > "$out/env.txt" 2>&1
"$kwb" new --repo "$repo" --git-baseline HEAD~1 --git-treatment HEAD --build "$build" --cmd ./bench \
  --backend cuda --metric time_ms --runs 10 --out "$out/study.json" --force 2>&1 | tee "$out/new.log"
"$kwb" run "$out/study.json" 2>&1 | tee "$out/run.log"
"$kwb" report "$out/study.json" --format json --out "$out/report.json" 2>&1 | tee -a "$out/run.log"
cp -r "$out/cache"/*/logs "$out/build-logs" 2>/dev/null
rm -rf "$out/cache" "$repo"
echo "kernels: $out/study.kernels.json"
