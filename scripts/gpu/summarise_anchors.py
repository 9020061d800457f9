#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 29's fair anchors from one anchors.sh call: each plugin kernel beside the path a torch user
would take instead, measured in the same call on the same GPU. Reads the folder anchors.sh wrote
(calibrate.json, bench-*.json, torch*.json, ncu/*.csv) and writes summary.json and figures.md there.

Usage: summarise_anchors.py FOLDER

Every figure is a median with n and its spread (min-max or cv); a ratio names both sides' files.
"""
import csv
import io
import json
import os
import statistics
import sys


def load(folder, name):
    path = os.path.join(folder, name)
    return json.load(open(path)) if os.path.exists(path) else None


def rate(m):
    return {k: m[k] for k in ("median", "min", "max", "cv_pct", "n") if k in m}


def gemm_rows(folder):
    bench, torch = load(folder, "bench-gemm.json"), load(folder, "torch.json")
    if not bench or not torch:
        return []
    torch_rows = {r["case"]: r for r in torch["rows"]}
    rows = []
    for shape in bench["gemm"]:
        n = int(shape["shape"].split("^")[0])
        lt, lt32, own = shape["cublaslt"], shape["cublaslt_fp32_heuristic"], shape["best"]
        mm = torch_rows.get(f"torch.mm bf16 {n}^3")
        sustained = next((r for c, r in torch_rows.items() if c.startswith(f"torch.mm bf16 {n}^3 sustained")), None)
        row = {
            "shape": f"{n}^3",
            "cublaslt_bf16_best": {**rate(lt["tflops"]), "algo": lt.get("metrics", {}).get("algo")},
            "cublaslt_fp32_heuristic": rate(lt32["tflops"]),
            "best_own": {**rate(own["tflops"]), "params": own["params"]},
            "torch_mm_bursts": {**rate(mm["rate"]), "n": mm["n"], "cv_pct": mm["cv_pct"]} if mm else None,
            "torch_mm_sustained": {**rate(sustained["rate"]), "n": sustained["n"], "cv_pct": sustained["cv_pct"]}
            if sustained else None,
        }
        ref = row["torch_mm_sustained"] or row["torch_mm_bursts"]
        row["own_pct_of_cublaslt_bf16_best"] = 100 * own["tflops"]["median"] / lt["tflops"]["median"]
        row["own_pct_of_torch_mm"] = 100 * own["tflops"]["median"] / ref["median"] if ref else None
        row["cublaslt_bf16_best_pct_of_torch_mm"] = 100 * lt["tflops"]["median"] / ref["median"] if ref else None
        rows.append(row)
    return rows


def prefill_rows(folder):
    bench, torch = load(folder, "bench-prefill.json"), load(folder, "torch-prefill.json")
    if not bench or not torch:
        return []
    rows = []
    for r in bench["prefill"]:
        if "best_of" not in r or not r["best"]:
            continue
        d = r["best_of"]["head_dim"]
        own = r["best"]["tflops"]
        sides = {t["backend"]: {**rate(t["rate"]), "n": t["n"], "cv_pct": t["cv_pct"]}
                 for t in torch["rows"] if t.get("head_dim") == d and "rate" in t}
        rows.append({"head_dim": d, "own": {**rate(own), "params": r["best"]["params"]}, "torch": sides,
                     "own_pct_of": {b: 100 * own["median"] / s["median"] for b, s in sides.items()}})
    return rows


def decode_rows(folder):
    bench, torch = load(folder, "bench-decode.json"), load(folder, "torch-decode.json")
    if not bench or not torch:
        return []
    best, best_pdl0 = {}, {}
    for r in bench["decode"]:
        if "best_of" in r:
            b = r["best_of"]
            best[(b["context"], b["batch"])] = r["best"]
        elif r.get("params", {}).get("pdl") == 0 and "gbs" in r:
            key = (r["params"]["context"], r["params"]["batch"])
            if key not in best_pdl0 or r["gbs"]["median"] > best_pdl0[key]["gbs"]["median"]:
                best_pdl0[key] = r
    rows = []
    for (ctx, batch), own in sorted(best.items()):
        t = {m: next((x for x in torch["rows"] if x.get("context") == ctx and x.get("batch") == batch
                      and x.get("mode") == m and "rate" in x), None) for m in ("eager", "graph")}
        pdl0 = best_pdl0.get((ctx, batch))
        row = {"context": ctx, "batch": batch, "own_pdl1": {**rate(own["gbs"]), "params": own["params"]},
               "own_pdl0": {**rate(pdl0["gbs"]), "params": pdl0["params"]} if pdl0 else None,
               "torch_eager": {**rate(t["eager"]["rate"]), "n": t["eager"]["n"], "cv_pct": t["eager"]["cv_pct"]}
               if t["eager"] else None,
               "torch_graph": {**rate(t["graph"]["rate"]), "n": t["graph"]["n"], "cv_pct": t["graph"]["cv_pct"]}
               if t["graph"] else None}
        if row["torch_graph"]:
            row["own_pdl1_pct_of_torch_graph"] = 100 * own["gbs"]["median"] / row["torch_graph"]["median"]
            if pdl0:
                row["own_pdl0_pct_of_torch_graph"] = 100 * pdl0["gbs"]["median"] / row["torch_graph"]["median"]
        if row["torch_eager"]:
            row["own_pdl1_pct_of_torch_eager"] = 100 * own["gbs"]["median"] / row["torch_eager"]["median"]
        rows.append(row)
    return rows


def ncu_kernels(path):
    """{kernel name: [duration us, ...]} of one ncu --csv capture."""
    text = open(path, errors="replace").read()
    start = text.find('"ID"')
    if start < 0:
        return {}
    out = {}
    for r in csv.DictReader(io.StringIO(text[start:])):
        if r.get("Metric Name") != "gpu__time_duration.sum":
            continue
        value = float(r["Metric Value"].replace(",", ""))
        scale = {"ns": 1e-3, "us": 1.0, "usecond": 1.0, "nsecond": 1e-3, "ms": 1e3, "msecond": 1e3}.get(
            r.get("Metric Unit", "ns"), 1e-3)
        name = r["Kernel Name"].split("(")[0].replace("void ", "")[:90]
        out.setdefault(name, []).append(value * scale)
    return out


def ncu_rows(folder):
    d = os.path.join(folder, "ncu")
    if not os.path.isdir(d):
        return []
    rows = []
    for ctx in (8192, 32768):
        for batch in (1, 64):
            row = {"context": ctx, "batch": batch}
            for side, name in (("own_pdl1", f"plugin-b{batch}-ctx{ctx}-pdl1.csv"),
                               ("own_pdl0", f"plugin-b{batch}-ctx{ctx}-pdl0.csv"),
                               ("torch", f"torch-b{batch}-ctx{ctx}.csv")):
                path = os.path.join(d, name)
                if not os.path.exists(path):
                    continue
                kernels = ncu_kernels(path)
                # The decode kernels only (not the fills or checks launched before the timed ones).
                keep = {k: v for k, v in kernels.items()
                        if ("decode" in k or "sdpa" in k or "flash" in k or "reduction" in k or "attention" in k)
                        and "reference" not in k and "verify" not in k}
                per_kernel = {k: {"median_us": statistics.median(v), "n": len(v), "min_us": min(v), "max_us": max(v)}
                              for k, v in keep.items()}
                row[side] = {"kernels": per_kernel,
                             "per_call_us": sum(k["median_us"] for k in per_kernel.values())}
            if "torch" in row and "own_pdl0" in row and row["torch"]["per_call_us"]:
                row["own_pdl0_over_torch_kernel_time"] = row["own_pdl0"]["per_call_us"] / row["torch"]["per_call_us"]
            rows.append(row)
    return rows


def fmt(x, digits=1):
    return "n/a" if x is None else f"{x:.{digits}f}"


def markdown(s):
    lines = ["# Fair anchors on the H200 (generated by scripts/gpu/summarise_anchors.py; do not edit)", ""]
    c = s.get("calibrate") or {}
    if c:
        lines.append("## kwb calibrate")
        for k in ("copy_gbs", "read_gbs", "l2_read_gbs", "bf16_gemm_tflops"):
            if k in c:
                v = c[k]
                lines.append(f"- {k}: {fmt(v['median'])} {v['unit']} (n = {v['n']}, min {fmt(v['min'])}, "
                             f"max {fmt(v['max'])}, cv {fmt(v['cv_pct'], 2)}%)")
        lines.append(f"- GEMM: {c.get('shapes', {}).get('bf16_gemm', '')}")
        lines.append("")
    if s["gemm"]:
        lines += ["## bf16 GEMM: own best vs cuBLASLt (bf16 C, best of 8) vs torch.mm", "",
                  "| shape | own best TFLOP/s | cuBLASLt bf16 best | cuBLASLt fp32 heuristic (old reference) | "
                  "torch.mm sustained | torch.mm bursts | own % of cuBLASLt | own % of torch.mm |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for r in s["gemm"]:
            ts, tb = r["torch_mm_sustained"] or {}, r["torch_mm_bursts"] or {}
            lines.append(f"| {r['shape']} | {fmt(r['best_own']['median'])} (cv {fmt(r['best_own']['cv_pct'], 2)}%) | "
                         f"{fmt(r['cublaslt_bf16_best']['median'])} (cv {fmt(r['cublaslt_bf16_best']['cv_pct'], 2)}%) | "
                         f"{fmt(r['cublaslt_fp32_heuristic']['median'])} | {fmt(ts.get('median'))} "
                         f"(cv {fmt(ts.get('cv_pct'), 2)}%) | {fmt(tb.get('median'))} (cv {fmt(tb.get('cv_pct'), 2)}%) | "
                         f"{fmt(r['own_pct_of_cublaslt_bf16_best'])}% | {fmt(r['own_pct_of_torch_mm'])}% |")
        lines.append("")
    if s["prefill"]:
        lines += ["## Causal prefill (batch 4, 32 heads, seq 4096): own best vs torch SDPA per backend", "",
                  "| head dim | own TFLOP/s | torch default | flash | cudnn | efficient | own % of default |",
                  "| --- | --- | --- | --- | --- | --- | --- |"]
        for r in s["prefill"]:
            t = r["torch"]
            lines.append(f"| {r['head_dim']} | {fmt(r['own']['median'])} (cv {fmt(r['own']['cv_pct'], 2)}%) | "
                         + " | ".join(f"{fmt(t.get(b, {}).get('median'))}" for b in ("default", "flash", "cudnn",
                                                                                        "efficient"))
                         + f" | {fmt(r['own_pct_of'].get('default'))}% |")
        lines.append("")
    if s["decode"]:
        lines += ["## Paged decode attention (GQA 32/8, head dim 128, bf16): GB/s of K and V read", "",
                  "| context | batch | own pdl 1 | own pdl 0 | torch eager | torch CUDA graph | own pdl 1 % of graph | "
                  "own pdl 0 % of graph |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for r in s["decode"]:
            lines.append(f"| {r['context']} | {r['batch']} | {fmt(r['own_pdl1']['median'], 0)} | "
                         f"{fmt((r['own_pdl0'] or {}).get('median'), 0)} | {fmt((r['torch_eager'] or {}).get('median'), 0)} | "
                         f"{fmt((r['torch_graph'] or {}).get('median'), 0)} | {fmt(r.get('own_pdl1_pct_of_torch_graph'))}% | "
                         f"{fmt(r.get('own_pdl0_pct_of_torch_graph'))}% |")
        lines.append("")
    if s["decode_ncu"]:
        lines += ["## Decode kernel time per call, ncu --clock-control none (median of the profiled launches)", "",
                  "| context | batch | own pdl 0 us | own pdl 1 us | torch us | own pdl 0 / torch |",
                  "| --- | --- | --- | --- | --- | --- |"]
        for r in s["decode_ncu"]:
            lines.append(f"| {r['context']} | {r['batch']} | {fmt(r.get('own_pdl0', {}).get('per_call_us'))} | "
                         f"{fmt(r.get('own_pdl1', {}).get('per_call_us'))} | {fmt(r.get('torch', {}).get('per_call_us'))} | "
                         f"{fmt(r.get('own_pdl0_over_torch_kernel_time'), 3)} |")
        lines.append("")
    return "\n".join(lines)


def main():
    folder = sys.argv[1]
    s = {"env": open(os.path.join(folder, "env.txt")).read() if os.path.exists(os.path.join(folder, "env.txt"))
         else "", "calibrate": load(folder, "calibrate.json"), "gemm": gemm_rows(folder),
         "prefill": prefill_rows(folder), "decode": decode_rows(folder), "decode_ncu": ncu_rows(folder)}
    json.dump(s, open(os.path.join(folder, "summary.json"), "w"), indent=1)
    open(os.path.join(folder, "figures.md"), "w").write(markdown(s) + "\n")


if __name__ == "__main__":
    main()
