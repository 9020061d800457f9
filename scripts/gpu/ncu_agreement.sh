#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Issue 10's agreement check, run by run-all.sh's `ncu` stage from a packed folder: the plugin's
# CUPTI PM sampling (gpu_pm_sampling's pm_means line: a 2 GiB copy, vector width 4, and a bf16
# 8192^3 cuBLASLt GEMM) beside `ncu --clock-control none` on the same two kernels launched by
# `kwb run --no-cupti` (ncu's profiler and PM sampling cannot share a process). Writes
# ncu-*.csv, pm-means.log and ncu-agreement.json under $1 (default $OUT).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${OUT:-$PWD/gpu-out}}
kwb="$here/bin/kwb"
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[ -n "$ncu" ] || { echo "ncu_agreement: no ncu on this machine" >&2; exit 1; }
mkdir -p "$out/ncu"
"$here/bin/gpu_pm_sampling" > "$out/pm-means.log" 2>&1 || echo "gpu_pm_sampling failed" >&2
metrics=dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum
profile() {  # name, kernel regex, kwb new arguments...
  local name=$1 regex=$2; shift 2
  local f="$out/ncu/$name.json"
  "$kwb" new "$@" --runs 1 --warmup 0 --min-rep-ms 0 --backend cuda --out "$f" --force 2>> "$out/ncu/kwb.log"
  # Skip the first launches (verification, warm-up), then profile three.
  "$ncu" --clock-control none --metrics "$metrics" --kernel-name "regex:$regex" --launch-skip 1 --launch-count 3 \
    --csv "$kwb" run "$f" --no-cupti > "$out/ncu-$name.csv" 2>> "$out/ncu/ncu.log"
}
profile copy 'stream_kernel' --workload bandwidth --param op=copy --param size_mb=2048 --vary vector_width=4,8
profile gemm 'nvjet' --workload gemm --param impl=cublaslt --param m=8192 --param n=8192 --param k=8192 \
  --vary block_n=64,128
python3 - "$out" <<'PY'
import csv, io, json, re, statistics, sys
out = sys.argv[1]
pm = None
for line in open(f"{out}/pm-means.log", errors="replace"):
    if '"pm_means"' in line:
        pm = json.loads(line[line.index("{"):])
names = {"dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram_pct",
         "sm__warps_active.avg.pct_of_peak_sustained_active": "occupancy",
         "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active": "tensor_pct",
         "sm__throughput.avg.pct_of_peak_sustained_elapsed": "sm_pct",
         "gpu__time_duration.sum": "time"}
res = {"pm_means": pm, "kernels": {}}
for k in ("copy", "gemm"):
    text = open(f"{out}/ncu-{k}.csv", errors="replace").read()
    start = text.find('"ID"')
    rows = list(csv.DictReader(io.StringIO(text[start:]))) if start >= 0 else []
    vals, kernels = {}, set()
    for r in rows:
        m = names.get(r.get("Metric Name"))
        if m:
            vals.setdefault(m, []).append(float(r["Metric Value"].replace(",", "")))
            kernels.add(r.get("Kernel Name", "")[:80])
    ncu = {m: statistics.mean(v) for m, v in vals.items()}
    entry = {"ncu_mean_of_launches": ncu, "launches": len(vals.get("dram_pct", [])), "kernels": sorted(kernels)}
    if pm and k in pm:
        entry["pm"] = pm[k]
        entry["diff_points"] = {m: round(pm[k][m] - ncu[m], 2) for m in ("dram_pct", "occupancy", "tensor_pct", "sm_pct")
                                if m in ncu and m in pm[k]}
        entry["within_5_points"] = all(abs(d) <= 5 for m, d in entry["diff_points"].items() if m in ("dram_pct", "occupancy"))
    res["kernels"][k] = entry
print(json.dumps(res, indent=1))
PY
