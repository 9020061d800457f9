#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Worker arms on the GPU machine (issue 27, docs/worker-protocol.md), from a packed folder
# (scripts/gpu/pack.sh carries python/, examples/ and include/): kwb run to a verdict on
#   triton   the Triton matmul, BLOCK_K 32 vs 64, bf16 8192^3, cache cold (1.5-2 ms a launch),
#            then triton.testing.do_bench(return_mode="median") on the same two configurations in
#            the same call, 16 medians each (do_bench flushes L2 too) -> triton-dobench.json
#   sdpa     torch SDPA, the flash backend vs cuDNN (torch's default on the H200)
#   cuda-cpp the CUDA C++ worker (include/kwb/worker.h), a naive vs a shared-memory transpose
#   triton-vs-torch  the Triton matmul (BLOCK_K 64) against torch.mm on the same inputs, cold, 8192^3
#   triton-clock  do_bench, the Triton A/B in kwb, do_bench again, each with its SM clocks (cycles too)
#   triton-aa  A/As of one Triton configuration (identical arms), KWB_AA_STUDIES of them (default 20)
#   triton-duty  do_bench, the Triton A/B in kwb with 100 ms repetitions (do_bench's own duty: its
#            100 ms of back-to-back launches, so both run in the same power state), do_bench again
#   triton-aa3  A/As with a third worker process (--aa-arm: the baseline's command again, started
#            third), KWB_AA3_STUDIES of them (default 4): is the faster arm the later-started process?
#   wall     the same 6-runs-per-arm A/B (BLOCK_K 32 vs 64, 4096^3, hot) as worker arms and as command
#            arms (examples/triton_matmul/as_command.py: a process per repetition), each timed whole
# Every study and its stderr under $OUT/workers/; summary.json at the end (scripts/gpu/summarise_studies.py).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/gpu-out}/workers
mkdir -p "$out"
. "$here/gpu_env.sh"
export PYTHONPATH="$here/python${PYTHONPATH:+:$PYTHONPATH}"
kwb=$here/bin/kwb
stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(triton sdpa cuda-cpp triton-aa)
clocks() { nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader 2>&1; }
study() { # name, then kwb new arguments; runs the study, keeps its files and exit codes
  local name=$1; shift
  local t0=$(date +%s)
  "$kwb" new "$@" --out "$out/$name.json" --force > "$out/$name.new.log" 2>&1
  echo "$name new: exit $? wall $(( $(date +%s) - t0 )) s" >> "$out/exits.txt"
  local t1=$(date +%s%N)
  "$kwb" run "$out/$name.json" --device 0 > "$out/$name.run.log" 2>&1
  echo "$name run: exit $? wall $(( ($(date +%s%N) - t1) / 1000000 )) ms clocks $(clocks)" >> "$out/exits.txt"
}
triton="python3 -m kwb_worker $here/examples/triton_matmul/matmul.py"
for stage in "${stages[@]}"; do
  case $stage in
    triton-clock)
      # do_bench, kwb, do_bench again: the comparison at the clocks of the same minutes, in cycles too.
      python3 "$here/examples/triton_matmul/dobench.py" --size 8192 --block-k 32 64 --medians 16 \
        > "$out/triton-dobench-before.json" 2> "$out/triton-dobench-before.log"
      study triton-clock --worker "$triton" --param M=8192 --param N=8192 --param K=8192 --param cache=cold \
        --vary BLOCK_K=32,64 --runs 16
      python3 "$here/examples/triton_matmul/dobench.py" --size 8192 --block-k 32 64 --medians 16 \
        --study "$out/triton-clock.json" > "$out/triton-dobench-after.json" 2> "$out/triton-dobench-after.log" ;;
    triton-vs-torch)
      # The Triton kernel against torch.mm (cuBLAS) on the same inputs, in kwb, in one call.
      study triton-vs-torch --worker "$triton" --param M=8192 --param N=8192 --param K=8192 --param cache=cold \
        --vary impl=torch,triton --runs 16 ;;
    triton)
      study triton-ab --worker "$triton" --param M=8192 --param N=8192 --param K=8192 --param cache=cold \
        --vary BLOCK_K=32,64 --runs 16
      python3 "$here/examples/triton_matmul/dobench.py" --size 8192 --block-k 32 64 --medians 16 \
        --study "$out/triton-ab.json" > "$out/triton-dobench.json" 2> "$out/triton-dobench.log" ;;
    sdpa)
      study sdpa-ab --worker "python3 -m kwb_worker $here/examples/torch_sdpa/sdpa.py" --vary backend=flash,cudnn \
        --runs 10 ;;
    cuda-cpp)
      nvcc -O3 -arch=sm_90 -I "$here/include" "$here/examples/cuda_cpp/transpose.cu" -o "$out/transpose" \
        > "$out/transpose.build.log" 2>&1
      study transpose-ab --worker "$out/transpose" --vary impl=naive,smem --runs 10 ;;
    triton-duty)
      python3 "$here/examples/triton_matmul/dobench.py" --size 8192 --block-k 32 64 --medians 16 \
        > "$out/triton-duty-dobench-before.json" 2> "$out/triton-duty-dobench-before.log"
      study triton-duty --worker "$triton" --param M=8192 --param N=8192 --param K=8192 --param cache=cold \
        --vary BLOCK_K=32,64 --runs 16 --min-rep-ms 100
      python3 "$here/examples/triton_matmul/dobench.py" --size 8192 --block-k 32 64 --medians 16 \
        --study "$out/triton-duty.json" > "$out/triton-duty-dobench-after.json" \
        2> "$out/triton-duty-dobench-after.log" ;;
    wall)
      # The worker study first warms Triton's disk cache for both arms' kernels: the command arms
      # then pay a process start, imports and a cache load per repetition, not a compile.
      study wall-worker --worker "$triton" --param M=4096 --param N=4096 --param K=4096 --vary BLOCK_K=32,64 --runs 6
      cmdline="python3 $here/examples/triton_matmul/as_command.py --size 4096 --launches 50 --block-k"
      study wall-command --baseline-cmd "$cmdline 32" --treatment-cmd "$cmdline 64" --adapter gbench \
        --backend cuda --runs 6 ;;
    triton-aa3)
      for i in $(seq 1 "${KWB_AA3_STUDIES:-4}"); do
        study "aa3-triton-$i" --baseline-worker "$triton" --treatment-worker "$triton" --aa-arm --param M=4096 \
          --param N=4096 --param K=4096 --runs 6
      done ;;
    triton-aa)
      for i in $(seq "${KWB_AA_FIRST:-1}" "${KWB_AA_STUDIES:-20}"); do
        study "aa-triton-$i" --baseline-worker "$triton" --treatment-worker "$triton" --param M=4096 \
          --param N=4096 --param K=4096 --runs 6
      done ;;
    *) echo "unknown stage $stage" >&2 ;;
  esac
done
python3 "$here/summarise_studies.py" "$out" > "$out/summary.json" 2> "$out/summary.log" || true
