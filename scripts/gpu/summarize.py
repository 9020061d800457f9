# SPDX-License-Identifier: GPL-3.0-or-later
# Markdown tables from the files scripts/gpu/run-all.sh writes (bench-*.json, torch.json), for the
# README of a bench/results folder. Usage: python3 summarize.py RESULTS_DIR
import json, os, sys

d = sys.argv[1]
def load(name):
    p = os.path.join(d, name)
    return json.load(open(p)) if os.path.exists(p) else None

def spread(r):
    return f"{r['median']:.1f} (n={r['n']}, min {r['min']:.1f}, max {r['max']:.1f}, cv {r['cv_pct']:.2f}%)"

torch = load("torch.json")
trow = {r["case"]: r for r in torch["rows"]} if torch else {}
cal = load("bench-calibrate.json")
if cal and "calibrate" in cal:
    c = cal["calibrate"]
    print("## Calibration (plugin `calibrate`)\n")
    for k in ("copy_gbs", "bf16_gemm_tflops"):
        if k in c:
            print(f"- {k}: {spread(c[k])} {c[k]['unit']}")
    print()
copy = load("bench-copy.json")
if copy:
    tc = trow.get("copy_ 2 GiB fp32")
    print("## Bandwidth kernel, 2 GiB fp32 arrays (GB/s, read + write)\n")
    if tc:
        print(f"torch copy_ (same call): {tc['rate']['median']:.1f} GB/s median (n={tc['n']}, "
              f"min {tc['rate']['min']:.1f}, max {tc['rate']['max']:.1f}, cv {tc['cv_pct']:.2f}%)\n")
    print("| op | vector_width | GB/s median (n, min, max, cv) | % of 4.8 TB/s | % of torch copy_ |")
    print("|---|---|---|---|---|")
    for r in copy["copy"]:
        p = r["params"]
        if "gbs" not in r:
            print(f"| {p['op']} | {p['vector_width']} | {r.get('refused') or r.get('error') or r.get('verify')} | | |")
            continue
        g = r["gbs"]
        vs = f"{100 * g['median'] / tc['rate']['median']:.1f}%" if tc and p["op"] == "copy" else ""
        print(f"| {p['op']} | {p['vector_width']} | {spread(g)} | {r['pct_of_4800_gbs_datasheet']:.1f}% | {vs} |")
    print()
gemm = load("bench-gemm.json")
if gemm:
    print("## GEMM bf16 -> fp32 (TFLOP/s)\n")
    for s in gemm["gemm"]:
        lt = s["cublaslt"].get("tflops")
        tm = trow.get(f"torch.mm bf16 {s['shape'][:-2]}^3")
        print(f"### {s['shape']}\n")
        if lt:
            print(f"- cuBLASLt (plugin, fp32 C): {spread(lt)}")
        if tm:
            print(f"- torch.mm (bf16 C, same call): {tm['rate']['median']:.1f} (n={tm['n']}, cv {tm['cv_pct']:.2f}%)")
        for which in ("best", "worst"):
            r = s.get(which)
            if r:
                p = r["params"]
                print(f"- {which} tiled: block {p['block_m']}x{p['block_n']}x{p['block_k']}, {p['stages']} stages, "
                      f"{p['warps']} warps: {spread(r['tflops'])} = {r.get('pct_of_cublaslt', 0):.1f}% of cuBLASLt")
        ok = sum(1 for r in s["configs"] if r.get("verify", {}).get("ok"))
        print(f"- {len(s['configs'])} configurations measured, {ok} verified against cuBLASLt\n")
        print("| block | stages | warps | TFLOP/s median | cv % | % of cuBLASLt |")
        print("|---|---|---|---|---|---|")
        for r in sorted(s["configs"], key=lambda r: -(r.get("tflops") or {}).get("median", 0)):
            p = r["params"]
            t = r.get("tflops")
            print(f"| {p['block_m']}x{p['block_n']}x{p['block_k']} | {p['stages']} | {p['warps']} | "
                  + (f"{t['median']:.1f} | {t['cv_pct']:.2f} | {r.get('pct_of_cublaslt', 0):.1f}" if t else
                     f"{r.get('refused') or r.get('error') or 'verify failed'} | | ") + " |")
        print()
rms = load("bench-rmsnorm.json")
if rms:
    print("## RMSNorm 8192 x 4096 bf16 (GB/s, x read + y written)\n")
    print("| vector_width | rows_per_block | GB/s median (n, min, max, cv) |")
    print("|---|---|---|")
    for r in rms["rmsnorm"]:
        p = r["params"]
        print(f"| {p['vector_width']} | {p['rows_per_block']} | " + (spread(r["gbs"]) if "gbs" in r else str(r.get("verify"))) + " |")
