#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The sign of the A/A deltas of an aa_bias.sh folder, per family and together, with the exact
two-sided sign test (binomial, p = 0.5): issue 29 asks that a power-capped GEMM A/A's deltas do not
lean one way (p > 0.05). Reads FOLDER/summary.json (aa_bias.py), writes FOLDER/sign_counts.json.

Usage: aa_sign_counts.py FOLDER
"""
import json
import math
import sys


def sign_test_p(k, n):
    k = min(k, n - k)
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n) if n else None


def main():
    folder = sys.argv[1]
    s = json.load(open(f"{folder}/summary.json"))
    out, faster, slower, studies, noise = {}, 0, 0, 0, 0
    for family, v in s.items():
        if not isinstance(v, dict) or "verdicts" not in v:
            continue
        d = v["delta_time_pct"]["treatment"]
        out[family] = {"studies": v["studies"], "noise": v["verdicts"].count("NOISE"),
                       "treatment_faster": d["faster"], "treatment_slower": d["slower"],
                       "sign_test_p": sign_test_p(d["faster"], d["faster"] + d["slower"]),
                       "mean_delta_pct": d["mean"], "sd_delta_pct": d["sd"],
                       "sm_clock_mhz": v.get("clock_power", {}).get("clock_mhz:baseline")}
        faster, slower = faster + d["faster"], slower + d["slower"]
        studies, noise = studies + v["studies"], noise + out[family]["noise"]
    out["all"] = {"studies": studies, "noise": noise, "treatment_faster": faster, "treatment_slower": slower,
                  "sign_test_p": sign_test_p(faster, faster + slower)}
    json.dump(out, open(f"{folder}/sign_counts.json", "w"), indent=1)


if __name__ == "__main__":
    main()
