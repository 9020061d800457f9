#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds pm_h200_windows.json, the recorded-evidence fixture of tst_kernel_evidence, from the
# 1 ms PM samples the CUPTI probe recorded on the H200 (shared/probes/cupti/results/
# pm_samples_1000us.csv; shared/notes/cupti-h200.md section 5). The samples and their values are
# the recorded ones (CUPTI names mapped to kwb's lanes, per-second rates in MHz and GB/s as
# engine/sampling/cupti_metrics.h scales them). The probe's CSV tags each sample with its window
# but carries no Activity records, so the kernel records are crafted: each window's span is tiled
# with back-to-back launches of the median duration CUPTI Activity measured for that kernel
# (notes section 3.4). Run: make_pm_h200_fixture.py CSV > pm_h200_windows.json
import csv, json, sys

LANES = {
    "sm__warps_active_realtime.avg.pct_of_peak_sustained_active": ("occupancy", 1),
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": ("dram_pct", 1),
    "TriageCompute.sm__throughput.avg.pct_of_peak_sustained_elapsed": ("sm_pct", 1),
    "sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_active": ("tensor_pct", 1),
    "TPC.TriageCompute.sm__inst_executed_pipe_fma_realtime.avg.pct_of_peak_sustained_active": ("fma_pct", 1),
    "LTS.TriageCompute.lts__throughput.avg.pct_of_peak_sustained_elapsed": ("l2_pct", 1),
    "sm__pipe_shared_cycles_active_realtime.avg.pct_of_peak_sustained_active": ("smem_pipe_pct", 1),
    "sm__cycles_active.avg.pct_of_peak_sustained_elapsed": ("sm_active_pct", 1),
    "gpc__cycles_elapsed.avg.per_second": ("sm_clock", 1e-6),
    "dram__bytes_read.sum.per_second": ("dram_read", 1e-9),
    "dram__bytes_write.sum.per_second": ("dram_write", 1e-9),
}
# Kernel name and median launch duration (ns) from CUPTI Activity on the H200 (notes 3.4).
KERNELS = {
    "copy(mem-bound)": ("copy_float4", 1075000),
    "gemm(cuBLAS bf16)": ("nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT", 1540000),
    "fma(fp32)": ("fma_fp32", 9352000),
    "wmma(hmma bf16)": ("wmma_bf16", 7022000),
}

rows = list(csv.DictReader(open(sys.argv[1])))
origin = int(rows[1]["t0_ns"])  # the first row is the stale first sample of the session: dropped
samples, kernels = [], []
for r in rows[1:]:
    values = {lane: round(float(r[name]) * scale, 6) for name, (lane, scale) in LANES.items()}
    samples.append({"start_ns": int(r["t0_ns"]) - origin, "end_ns": int(r["t1_ns"]) - origin, "values": values,
                    "window": r["window"]})
for window, (name, duration) in KERNELS.items():
    inside = [s for s in samples if s["window"] == window]
    t, end = inside[0]["start_ns"], inside[-1]["end_ns"]
    while t + duration <= end:
        kernels.append({"name": name, "start_ns": t, "end_ns": t + duration})
        t += duration
json.dump({"source": "shared/probes/cupti/results/pm_samples_1000us.csv (H200, 2026-11-30); kernel records "
           "crafted from the windows and the Activity medians, see make_pm_h200_fixture.py",
           "samples": samples, "kernels": kernels}, sys.stdout, indent=None, separators=(",", ":"))
