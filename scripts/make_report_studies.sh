#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Records the committed studies the report tests read (tests/data/studies/), with the real
# `kwb run` on CPU workloads. Nothing is typed in by hand: each file is what kwb wrote.
#   kill.json          gemm, block 128 -> 16 at size 256: the treatment is slower, a KILL; the
#                      whole run lasts under a second, so no real-time stall (below) lands in it.
#   bimodal.json       gemm, block 64 -> 128 at size 768, repetitions of about 200 ms. At
#                      real-time priority Linux throttles the run for 50 ms once a second
#                      (sched_rt_runtime_us 950000 of 1000000), so about one repetition in
#                      five is 50 ms longer: every arm has two modes (a real stall, like a
#                      throttled clock) and the verdict is INCONCLUSIVE. Which repetitions a
#                      stall hits varies; rerun until the script reports both arms bimodal.
#   grid.json          gemm at size 256, a 2x2 grid of block 128,16 x threads 1,2 (`kwb new --grid`):
#                      three cell experiments against the baseline cell, each judged, and the
#                      interaction. Pinned to one core like the others, so threads=2 shares it
#                      (about no change) while block 16 is a KILL.
# The build machine these were recorded on has 2 cores shared by several builds (load average
# near 19), so kwb runs at real-time priority (chrt -f 10) pinned to core 0: without that the
# spread of a repetition is 10-30%, with it about 1%.
# Usage: scripts/make_report_studies.sh [path/to/kwb]   (default: ./build/bin/kwb)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kwb=${1:-$root/build/bin/kwb}
out=$root/tests/data/studies
mkdir -p "$out"

"$kwb" new --workload gemm --param size=256 --param iterations=5 --vary block=128,16 --runs 6 --out "$out/kill.json" --force
chrt -f 10 taskset -c 0 "$kwb" run "$out/kill.json"

"$kwb" new --workload gemm --param size=768 --param iterations=5 --vary block=64,128 --runs 12 --out "$out/bimodal.json" --force
chrt -f 10 taskset -c 0 "$kwb" run "$out/bimodal.json"
"$kwb" new --workload gemm --param size=256 --param iterations=5 --grid block=128,16 --grid threads=1,2 --runs 6 \
  --out "$out/grid.json" --force
chrt -f 10 taskset -c 0 "$kwb" run "$out/grid.json"
echo "final verdicts:"
for f in "$out"/kill.json "$out"/bimodal.json; do
  /usr/bin/python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['experiments'][0]; print(sys.argv[1], e['final_verdict']['verdict'], e['final_verdict']['reasons'][0], 'bimodal:', e['verdict']['bimodal_baseline'], e['verdict']['bimodal_treatment'])" "$f"
done
