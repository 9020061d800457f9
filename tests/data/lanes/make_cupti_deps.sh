#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds cupti_gh100_deps.json, the fixture of tst_cupti_metrics: for the PM-sampling set kwb
# collects (engine/sampling/cupti_metrics.h, kCuptiCollected) and for the set it collected before
# issue 30 (the lanes that read 533 %), the pass count on GH100 and each expression's raw counters,
# from scripts/cupti/metric_deps.cpp (offline, no GPU; needs CUDA 13 with CUPTI).
# Run from the repository root: tests/data/lanes/make_cupti_deps.sh > tests/data/lanes/cupti_gh100_deps.json
set -euo pipefail
cuda=${CUDA:-/usr/local/cuda}
tool=$(mktemp -d)/metric_deps
g++ -std=c++17 -I"$cuda/include" scripts/cupti/metric_deps.cpp -L"$cuda/lib64" -lcupti -lnvperf_host \
  -Wl,-rpath,"$cuda/lib64" -o "$tool"
mapfile -t current < <(sed -n '/kCuptiCollected {{/,/^}};/p' engine/sampling/cupti_metrics.h | grep -o '"[^"]*"' | tr -d '"')
old=(sm__warps_active_realtime.avg.pct_of_peak_sustained_active dram__throughput.avg.pct_of_peak_sustained_elapsed
  TriageCompute.sm__throughput.avg.pct_of_peak_sustained_elapsed
  sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_active
  TPC.TriageCompute.sm__inst_executed_pipe_fma_realtime.avg.pct_of_peak_sustained_active
  LTS.TriageCompute.lts__throughput.avg.pct_of_peak_sustained_elapsed
  sm__pipe_shared_cycles_active_realtime.avg.pct_of_peak_sustained_active
  sm__cycles_active.avg.pct_of_peak_sustained_elapsed sm__inst_executed_realtime.avg.per_cycle_active
  gpc__cycles_elapsed.avg.per_second dram__bytes_read.sum.per_second dram__bytes_write.sum.per_second
  pcie__throughput.avg.pct_of_peak_sustained_elapsed)
# The tensor pipe's PM-only name is unknown to the evaluator; its TPC form is the same counter.
extra=(TPC.TriageCompute.sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_active)
/usr/bin/python3 - "$("$tool" GH100 "${current[@]}")" "$("$tool" GH100 "${old[@]}")" "$("$tool" GH100 "${extra[@]}")" <<'PY'
import json, sys
current, old, extra = (json.loads(a) for a in sys.argv[1:])
json.dump({"source": "tests/data/lanes/make_cupti_deps.sh (scripts/cupti/metric_deps.cpp, CUDA 13.0, offline)",
           "current": current, "before_issue_30": old, "extra": extra}, sys.stdout, indent=1, sort_keys=True)
print()
PY
