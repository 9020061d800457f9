#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The decision-stopping Monte Carlo through the real CLI: for each cell and seed, `kwb new` a
# synthetic study and `kwb run` it, then compare the stored sample verdict word and n with the
# in-process run of the same seed (`stopping_mc --one`). Every study must agree exactly (the
# synthetic draws depend only on seed, arm and position).
#   bench/stopping_cli.sh BUILD_DIR STUDIES_PER_CELL
set -euo pipefail
bin=${1:-build}/bin
per=${2:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
total=0 agree=0
for cell in "5 4.5" "8 3" "9 3" "20 3"; do   # kwb new refuses equal arms, so no delta 0
  set -- $cell
  delta=$1 cv=$2
  for seed in $(seq 1 "$per"); do
    f=$tmp/s.json
    "$bin/kwb" new --workload synthetic --param mean=10 --param cv_pct="$cv" --param seed="$seed" \
      --vary delta_pct=0,"$delta" --stop decision --runs 30 --warmup 0 --out "$f" --force >/dev/null 2>&1
    "$bin/kwb" run "$f" >/dev/null 2>&1 || true
    cli=$(python3 -c "import json,sys; e=json.load(open('$f'))['experiments'][0]; v=e['verdict']; print(v['verdict'], v['n_baseline'])")
    inproc=$("$bin/stopping_mc" --one "$seed" "$delta" "$cv")
    total=$((total + 1))
    if [ "$cli" = "$inproc" ]; then agree=$((agree + 1)); else echo "seed $seed delta $delta cv $cv: kwb run '$cli' vs in-process '$inproc'"; fi
  done
done
echo "studies through kwb run: $total, agreeing with the in-process runner: $agree"
