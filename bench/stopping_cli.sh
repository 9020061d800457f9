#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The decision-stopping Monte Carlo through the real CLI: for each (delta, cv) cell and seed,
# `kwb new` a synthetic study and `kwb run` it (separate processes, the study saved after every
# repetition), then compare the stored sample verdict word and n with the in-process run of the
# same seed (`stopping_mc --one`). Every study must agree exactly (the synthetic draws depend only
# on seed, arm and position); per cell it prints the LICENSE rate and mean runs per arm both ways.
# Then AA_STUDIES studies with a real A/A arm (`kwb new --aa-arm`, count n = 10) are run with a
# private XDG_STATE_HOME, and `kwb aa-history --json` gives the A/A false-alarm rate they recorded.
#   bench/stopping_cli.sh BUILD_DIR STUDIES_PER_CELL [AA_STUDIES]
set -euo pipefail
bin=${1:-build}/bin
per=${2:-20}
aa_studies=${3:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state # the A/A history of this run only
total=0 agree=0
printf '| true delta | cv | studies | LICENSE, kwb run | LICENSE, in process | mean n/arm, kwb run | mean n/arm, in process | agree |\n'
printf '| --- | --- | --- | --- | --- | --- | --- | --- |\n'
for cell in "5 1" "5 3" "5 4.5" "8 1" "8 3" "8 4.5" "9 1" "9 3" "9 4.5" "20 1" "20 3"; do # kwb new refuses equal arms: no delta 0
  set -- $cell
  delta=$1 cv=$2
  n=0 ok=0 lic_cli=0 lic_in=0 sum_cli=0 sum_in=0
  for seed in $(seq 1 "$per"); do
    f=$tmp/s.json
    "$bin/kwb" new --workload synthetic --param mean=10 --param cv_pct="$cv" --param seed="$seed" \
      --vary delta_pct=0,"$delta" --stop decision --runs 30 --warmup 0 --out "$f" --force >/dev/null 2>&1
    "$bin/kwb" run "$f" >/dev/null 2>&1 || true
    cli=$(python3 -c "import json; e=json.load(open('$f'))['experiments'][0]; v=e['verdict']; print(v['verdict'], v['n_baseline'])")
    inproc=$("$bin/stopping_mc" --one "$seed" "$delta" "$cv")
    n=$((n + 1))
    set -- $cli; [ "$1" = LICENSE ] && lic_cli=$((lic_cli + 1)); sum_cli=$((sum_cli + $2))
    set -- $inproc; [ "$1" = LICENSE ] && lic_in=$((lic_in + 1)); sum_in=$((sum_in + $2))
    if [ "$cli" = "$inproc" ]; then ok=$((ok + 1)); else echo "seed $seed delta $delta cv $cv: kwb run '$cli' vs in-process '$inproc'" >&2; fi
  done
  total=$((total + n)) agree=$((agree + ok))
  python3 -c "print('| {}% | {}% | {} | {:.1f}% | {:.1f}% | {:.2f} | {:.2f} | {}/{} |'.format($delta, $cv, $n, 100*$lic_cli/$n, 100*$lic_in/$n, $sum_cli/$n, $sum_in/$n, $ok, $n))"
done
echo
echo "studies through kwb run: $total, agreeing study by study with the in-process runner: $agree"
if [ "$aa_studies" -gt 0 ]; then
  for seed in $(seq 1 "$aa_studies"); do
    f=$tmp/aa.json
    "$bin/kwb" new --workload synthetic --param mean=10 --param cv_pct=3 --param seed="$seed" \
      --vary delta_pct=0,5 --runs 10 --warmup 0 --aa-arm --out "$f" --force >/dev/null 2>&1
    "$bin/kwb" run "$f" >/dev/null 2>&1 || true
  done
  echo
  echo "A/A arms (synthetic, cv 3%, count n = 10 per arm, $aa_studies studies): kwb aa-history --json"
  "$bin/kwb" aa-history --json | python3 -c "import json,sys; d=json.load(sys.stdin); [print(x['summary']) for x in d['devices']]; print('history entries:', d['entries'])"
fi
