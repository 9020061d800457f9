#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs on the GPU machine from the repository root: the GPU tests and benchmarks of a packed
# folder (scripts/gpu/pack.sh, which is the build stage), results as files under $OUT (or
# ./gpu-out). Stages, in the order given (default: all, which fits one 10-minute call on an H200):
#   env        device, driver, clocks, kwb devices
#   tests      every gpu_* test program (exit codes in gpu-tests.txt)
#   calibrate  kwb_gpu_bench calibrate  -> bench-calibrate.json
#   copy       kwb_gpu_bench copy       -> bench-copy.json (2 GiB arrays, every vector width)
#   gemm       kwb_gpu_bench gemm       -> bench-gemm.json (every tiled config vs cuBLASLt, 4096^3, 8192^3)
#   rmsnorm    kwb_gpu_bench rmsnorm    -> bench-rmsnorm.json
#   decode     kwb_gpu_bench decode     -> bench-decode.json (paged decode attention GB/s)
#   decode-fit kwb_gpu_bench decode-fit -> bench-decode-fit.json (batch 1 at contexts 4k-128k, fixed splits:
#              a launch's fixed cost and tile round, fitted; torch's side is torch-decode-fit)
#   prefill    kwb_gpu_bench prefill    -> bench-prefill.json (causal prefill TFLOP/s, every tile config)
#   timeline   kwb_gpu_bench timeline   -> bench-timeline.json (a tiny_llm decode step's kernels, with their
#              overlaps, from CUPTI Activity; the table in bench-timeline.log)
#   torch-attention  torch_attention.py -> torch-attention.json (SDPA decode GB/s, flash prefill TFLOP/s)
#   torch-decode-fit torch_attention.py decode-fit -> torch-decode-fit.json (SDPA decode, batch 1, 4k-128k)
#   torch      torch_reference.py       -> torch.json (copy_ and torch.mm, same GPU, same call)
#   studies    kwb_studies.sh: kwb calibrate, a GEMM A/B to its verdict, the correctness gate,
#              A/A false alarms for the copy and the GEMM (studies-summary.json)
#   ncu        ncu_agreement.sh: every PM lane vs ncu --clock-control none on the copy, the GEMM, the decode
#              -> ncu-agreement.json
#   range      kwb profile --arms all (the range profiler, each arm its own pass) on two tiled-GEMM tile
#              configurations: range-tiles.txt (the diff table) and range-tiles.json
#   bundle     the self-contained kwb of `kwb remote bundle` (unpacked at $KWB_BUNDLE, default
#              /tmp/kwb-bundle) run with an empty environment: --version, devices, a 3-run GEMM A/B on the GPU
#              -> bundle/ (what a server gets from kwb remote install)
#   aa-bias    aa_bias.sh: GEMM and copy A/As in ABBA vs random blocks and with a third arm, to
#              tell a schedule effect from an arm-instance effect -> aa-bias/summary.json
#   kwb-bench  the host-side engine benchmarks
#   grid2      two_gpu_grid.sh (issue 17, two GPUs; not in the default set): a 2x2 GEMM grid with
#              kwb run --devices 0,1 and with one GPU, alternating -> grid2/summary.json
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
. "$here/gpu_env.sh"
# A hung or runaway stage must not take the whole call: each gets its own limit.
limit=${KWB_STAGE_TIMEOUT:-300}
stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(env tests calibrate copy gemm rmsnorm torch studies)
status=0
for stage in "${stages[@]}"; do
  start=$(date +%s)
  case $stage in
    env)
      {
        echo "date: $(date -u +%FT%TZ)"
        echo "commit: $(cat "$here/COMMIT" 2>/dev/null || echo unknown)"
        echo "cublaslt: ${KWB_CUBLASLT:-not found}"
        nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,temperature.gpu,power.draw,power.limit --format=csv 2>&1
      } > "$out/env.txt"
      "$here/bin/kwb" --version >> "$out/env.txt" 2>&1
      "$here/bin/kwb" devices --json > "$out/devices.json" 2> "$out/devices.stderr" ;;
    tests)
      for t in "$here"/bin/gpu_*; do
        name=$(basename "$t")
        timeout "$limit" "$t" > "$out/$name.log" 2>&1
        rc=$?
        echo "$name: exit $rc" | tee -a "$out/gpu-tests.txt"
        [ $rc -eq 0 ] || status=1
      done ;;
    calibrate|copy|gemm|rmsnorm|decode|decode-fit|prefill|timeline)
      timeout "$limit" "$here/bin/kwb_gpu_bench" "$stage" > "$out/bench-$stage.json" 2> "$out/bench-$stage.log" || status=1 ;;
    torch)
      timeout "$limit" python3 "$here/torch_reference.py" > "$out/torch.json" 2> "$out/torch.log" || status=1 ;;
    torch-attention)
      timeout "$limit" python3 "$here/torch_attention.py" > "$out/torch-attention.json" 2> "$out/torch-attention.log" || status=1 ;;
    torch-decode-fit)
      timeout "$limit" python3 "$here/torch_attention.py" decode-fit > "$out/torch-decode-fit.json" \
        2> "$out/torch-decode-fit.log" || status=1 ;;
    studies)
      timeout "$limit" bash "$here/kwb_studies.sh" "$out" || status=1 ;;
    ncu)
      timeout "$limit" bash "$here/ncu_agreement.sh" "$out" > "$out/ncu-agreement.json" 2> "$out/ncu-agreement.log" || status=1 ;;
    range)
      "$here/bin/kwb" new --workload gemm --param impl=tiled --param m=4096 --param n=4096 --param k=4096 \
        --param block_n=128 --param block_k=32 --param stages=3 --param warps=8 --vary block_m=64,128 \
        --backend cuda --out "$out/range-tiles-study.json" --force 2>> "$out/range-tiles.log" || status=1
      timeout "$limit" "$here/bin/kwb" profile "$out/range-tiles-study.json" --arms all > "$out/range-tiles.txt" \
        2>> "$out/range-tiles.log" || status=1
      timeout "$limit" "$here/bin/kwb" profile "$out/range-tiles-study.json" --arms all --json \
        > "$out/range-tiles.json" 2>> "$out/range-tiles.log" || status=1 ;;
    bundle)
      b=${KWB_BUNDLE:-/tmp/kwb-bundle}
      mkdir -p "$out/bundle"
      clean=(env -i PATH=/usr/bin:/bin HOME="$HOME")
      { "${clean[@]}" "$b/bin/kwb" --version; echo "libraries not found: $(LD_LIBRARY_PATH="$b/deps" ldd "$b/bin/kwb.bin" "$b"/lib/kernel-workbench/*.so | grep -c "not found")"; } > "$out/bundle/version.txt" 2>&1
      "${clean[@]}" "$b/bin/kwb" devices --json > "$out/bundle/devices.json" 2> "$out/bundle/devices.stderr" || status=1
      "${clean[@]}" "$b/bin/kwb" new --workload gemm --param impl=cublaslt --param m=4096 --param n=4096 \
        --param k=4096 --vary block_n=64,128 --runs 3 --backend cuda --out "$out/bundle/study.json" --force \
        > /dev/null 2> "$out/bundle/run.stderr" || status=1
      timeout "$limit" "${clean[@]}" "$b/bin/kwb" run "$out/bundle/study.json" > "$out/bundle/run.txt" \
        2>> "$out/bundle/run.stderr" || status=1 ;;
    aa-bias)
      timeout "$limit" bash "$here/aa_bias.sh" "$out" || status=1 ;;
    grid2)
      timeout "$limit" bash "$here/two_gpu_grid.sh" "$out" || status=1 ;;
    kwb-bench)
      [ -x "$here/bin/kwb_bench" ] && "$here/bin/kwb_bench" --json > "$out/kwb_bench.json" 2>&1 ;;
    *) echo "run-all.sh: unknown stage $stage" >&2; status=2 ;;
  esac
  echo "stage $stage: $(( $(date +%s) - start )) s" | tee -a "$out/stages.txt"
done
exit $status
