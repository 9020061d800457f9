#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Screenshots of every view of the workbench at 1024x640 and 1920x1080, in the light and the dark
# palette, rendered offscreen by the window itself:
#   kernel-workbench STUDY --phase N --size WxH --palette P --screenshot OUT.png
# Studies: the bundled demo (a CPU GEMM A/B with its verdict) for every view but two; phase 2
# shows a GEMM A/B recorded on the H200 (its device sheet, calibrated ceilings and tile traps);
# phase 6 shows a 2x2 grid that this script makes and runs with kwb on the CPU (a few seconds).
# Five more views: 6-3x3 (a 3x3 CPU grid made here too), 6-h200 (the 2x2 grid run over two H200s),
# 8-h200 and results-h200 (the H200 GEMM block_n A/B), and 5-command (a command A/B of the stand-in
# benchmark, run here by kwb in under a second), and 2-cpu (phase 2 of the CPU demo: its CPU sheet,
# no GPU traps).
# Every view in both sizes and both palettes is committed. Where pngquant is installed each PNG is
# quantised to 256 colours (flat widget colours and text survive it; a third of the bytes), which
# keeps the committed set small.
# Usage: scripts/screenshots.sh [OUT_DIR]   (default docs/screenshots/pages; build first)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${KWB_BUILD_DIR:-$root/build}
out=${1:-$root/docs/screenshots/pages}
gui=$build/bin/kernel-workbench
kwb=$build/bin/kwb
standin=$build/bin/kwb_standin_bench
for b in "$gui" "$kwb" "$standin"; do
  [[ -x $b ]] || { echo "screenshots.sh: $b is missing (build kernel-workbench, kwb and kwb_standin_bench first)" >&2; exit 1; }
done
export QT_QPA_PLATFORM=offscreen
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

demo=$root/resources/studies/demo.json
h200=$root/bench/results/2026-11-30-h200-kwb-studies/studies/gemm-block_n.json
h200_ab=$root/bench/results/2026-12-01-h200-final/studies/gemm-block_n.json
h200_grid=$root/bench/results/2026-12-01-h200-x2-grid/two-gpus-1.json
command=$work/command.json
"$kwb" new --baseline-cmd "$standin --format vllm --mean 80 --out {out}" \
  --treatment-cmd "$standin --format vllm --mean 60 --out {out}" --metric ttft_ms --check-cmd true --runs 4 \
  --name "serving: batch 80 vs 60 (command A/B)" --out "$command" >/dev/null
"$kwb" run "$command" >/dev/null 2>&1 || true # the verdict's gates (no target, ...) are part of the view
grid=$work/grid.json
"$kwb" new --workload gemm --backend cpu --param size=128 --grid block=32,128 --grid threads=1,2 \
  --runs 3 --name "2x2 grid: block x threads" --out "$grid" >/dev/null
"$kwb" run "$grid" >/dev/null 2>&1
grid3=$work/grid3.json
"$kwb" new --workload gemm --backend cpu --param size=128 --grid block=32,64,128 --grid threads=1,2,4 \
  --runs 3 --name "3x3 grid: block x threads" --out "$grid3" >/dev/null
"$kwb" run "$grid3" >/dev/null 2>&1

study_for() {
  case $1 in
    2) echo "$h200" ;;
    6) echo "$grid" ;;
    6-3x3) echo "$grid3" ;;
    6-h200) echo "$h200_grid" ;;
    8-h200 | results-h200) echo "$h200_ab" ;;
    5-command) echo "$command" ;;
    *) echo "$demo" ;;
  esac
}

for palette in light dark; do
  for size in 1024x640 1920x1080; do
    for view in 1 2 2-cpu 3 4 5 6 7 8 live results 5-command 6-3x3 6-h200 8-h200 results-h200; do
      png=$out/$view-$size-$palette.png
      "$gui" "$(study_for "$view")" --phase "${view%%-*}" --size "$size" --palette "$palette" --screenshot "$png"
      if command -v pngquant >/dev/null 2>&1; then
        pngquant --force --skip-if-larger --strip --output "$png" 256 -- "$png" || true
      fi
      echo "$png"
    done
  done
done
