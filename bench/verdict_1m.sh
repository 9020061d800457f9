#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `kwb verdict` end to end on 1,000,000 values per arm (issue 15: under 10 s on 2 cores), unpaired
# and --paired, REPEATS times each. The data: log-normal run times, sigma 0.3, baseline median 10,
# treatment median 9.5 (a ~5% delta), drawn by numpy with a fixed seed, 6 decimals per line.
# Usage: bench/verdict_1m.sh [path/to/kwb] [REPEATS]   (default ./build/bin/kwb, 3)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kwb=${1:-$root/build/bin/kwb}
repeats=${2:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
/usr/bin/python3 - "$dir" <<'PY'
import sys, numpy as np
r = np.random.default_rng(1234)
for name, med in (("base", 10.0), ("treat", 9.5)):
    np.savetxt(f"{sys.argv[1]}/{name}.txt", med * np.exp(0.3 * r.standard_normal(1_000_000)), fmt="%.6f")
PY
for mode in unpaired paired; do
  extra=(); [ "$mode" = paired ] && extra=(--paired)
  for i in $(seq "$repeats"); do
    /usr/bin/time -f '%e %U %S' -o "$dir/time" \
      "$kwb" verdict --baseline "$dir/base.txt" --treatment "$dir/treat.txt" "${extra[@]}" --json > "$dir/out.json"
    read -r wall user sys < "$dir/time"
    printf '%s %d: wall %s s, cpu (user+sys) %s s, load %s; delta %s ci %s\n' "$mode" "$i" "$wall" \
      "$(echo "$user + $sys" | bc)" "$(cut -d' ' -f1 /proc/loadavg)" \
      "$(/usr/bin/python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); print(round(v["delta_pct"],4))' "$dir/out.json")" \
      "$(/usr/bin/python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); print([round(x,4) for x in v["ci95_delta_pct"]])' "$dir/out.json")"
  done
done
