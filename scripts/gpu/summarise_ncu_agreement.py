#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Summarises ncu_agreement.sh's folder: for each kernel (copy, gemm, decode) and EVERY PM lane,
# the PM mean (pm-lane-means.log, gpu_pm_agreement's pm_lane_means line), ncu's mean over the
# profiled launches (ncu-<kernel>.csv, --print-units base), their difference and whether they agree:
# a percentage within 5 points, a rate (GB/s, MHz, inst/cycle) within 5 % of ncu's value (issue 30,
# Decided). Prints the JSON summary and writes ncu-agreement.md (the table) beside the inputs.
# Usage: summarise_ncu_agreement.py OUT_DIR
import csv, io, json, statistics, sys

POINTS = 5.0  # percentage lanes: |pm - ncu| in points
RELATIVE = 0.05  # other lanes: |pm - ncu| / |ncu|
# ncu base units (--print-units base) into the lanes' units.
TO_LANE_UNIT = {("MHz", "cycle/second"): 1e-6, ("MHz", "hz"): 1e-6, ("GB/s", "byte/second"): 1e-9, ("GB/s", "byte/s"): 1e-9, ("MHz", "cycle/s"): 1e-6,
                ("%", "%"): 1.0, ("inst/cycle", "inst/cycle"): 1.0, ("inst/cycle", "warp/cycle"): 1.0}


def pm_means(out):
    for line in open(f"{out}/pm-lane-means.log", errors="replace"):
        if '"pm_lane_means"' in line:
            return json.loads(line[line.index("{"):])
    return None


def ncu_rows(path):
    try:
        text = open(path, errors="replace").read()
    except OSError:
        return []
    start = text.find('"ID"')
    return list(csv.DictReader(io.StringIO(text[start:]))) if start >= 0 else []


def agree(unit, pm, ncu):
    if pm is None or ncu is None:
        return None, "missing"
    if unit == "%":
        return abs(pm - ncu) <= POINTS, f"within {POINTS:g} points"
    if ncu == 0:
        return abs(pm) < 1e-9, "equal (ncu reads 0)"
    return abs(pm - ncu) / abs(ncu) <= RELATIVE, f"within {RELATIVE:.0%}"


def main(out):
    pm = pm_means(out)
    if pm is None:
        print(json.dumps({"error": "no pm_lane_means line in pm-lane-means.log"}))
        return 1
    names, units = pm["ncu_names"], pm["units"]
    try:
        commands = open(f"{out}/ncu/commands.txt").read().splitlines()
    except OSError:
        commands = []
    summary = {"rule": {"percent_points": POINTS, "relative": RELATIVE}, "commands": commands, "kernels": {}}
    md = ["| kernel | lane | ncu metric | PM | ncu | difference | agree |", "| --- | --- | --- | --- | --- | --- | --- |"]
    disagree = []
    for kernel, pm_kernel in pm["kernels"].items():
        values, seen_units, launches, kernel_names = {}, {}, set(), set()
        for r in ncu_rows(f"{out}/ncu-{kernel}.csv"):
            metric = r.get("Metric Name")
            try:
                value = float(r["Metric Value"].replace(",", ""))
            except (KeyError, ValueError):
                continue
            values.setdefault(metric, []).append(value)
            seen_units[metric] = (r.get("Metric Unit") or "").strip().lower()
            launches.add(r.get("ID"))
            kernel_names.add((r.get("Kernel Name") or "")[:100])
        rows = []
        for lane, metric in names.items():
            unit = units[lane]
            p = pm_kernel["means"].get(lane)
            n = None
            if metric in values:
                scale = TO_LANE_UNIT.get((unit, seen_units[metric]))
                if scale is None and unit in ("%", "inst/cycle"):
                    scale = 1.0
                n = statistics.mean(values[metric]) * scale if scale is not None else None
            ok, rule = agree(unit, p, n)
            row = {"lane": lane, "unit": unit, "ncu_metric": metric, "ncu_unit": seen_units.get(metric),
                   "pm": p, "ncu": n, "difference": None if p is None or n is None else p - n,
                   "agree": ok, "rule": rule, "pm_dropped_by_range_rule": pm_kernel.get("dropped", {}).get(lane)}
            rows.append(row)
            if ok is not True:
                disagree.append(f"{kernel}/{lane}")
            fmt = lambda x: "-" if x is None else f"{x:.1f}" if abs(x) >= 100 else f"{x:.2f}"
            md.append(f"| {kernel} | {lane} ({unit}) | `{metric}` | {fmt(p)} | {fmt(n)} | {fmt(row['difference'])} | "
                      f"{'yes' if ok else 'no' if ok is False else 'missing'} |")
        summary["kernels"][kernel] = {"pm_samples": pm_kernel.get("samples"), "ncu_launches": len(launches),
                                      "ncu_kernels": sorted(kernel_names), "metrics": rows,
                                      "all_agree": all(r["agree"] is True for r in rows)}
    summary["all_agree"] = not disagree
    summary["not_agreeing"] = disagree
    open(f"{out}/ncu-agreement.md", "w").write("\n".join(md) + "\n")
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
