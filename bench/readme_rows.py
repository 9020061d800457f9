# SPDX-License-Identifier: GPL-3.0-or-later
"""The README's measured section, row by row, read from the files under bench/results/.

scripts/readme_figures.py renders these in order (table rows, then the paragraphs under the table).
To add a row (docs/readme-figures.md): write a function that takes `src` (a Sources: src.json,
src.csv, src.text, src.grep, src.number, paths relative to bench/results/) and returns the figure's
text; decorate it with `@rows.table("what it measures")` or `@rows.paragraph`. Every file it reads
is named in the row. A figure is never typed here: only the wording around the numbers is.
Caveats the data shows go into the row (lean_caveat for A/A signs).
"""

from readme_figures import Rows, lean_caveat

rows = Rows()


def pick(items, **params):
    """The one entry of a bench JSON list whose params match."""
    found = [i for i in items if all(i["params"].get(k) == v for k, v in params.items())]
    if len(found) != 1:
        raise ValueError(f"{len(found)} entries match {params}")
    return found[0]


def count(verdicts, word):
    return sum(1 for v in verdicts if v == word)


def signs(stats):
    """'k of n one way (sign test p = ...)' for an aa_bias.py delta summary, or ''."""
    return lean_caveat(stats["slower"], stats["slower"] + stats["faster"])


@rows.table("copy bandwidth, 2 GiB fp32, plugin kernel (vector width 4)")
def copy_bandwidth(src):
    run = "2026-11-30-h200-gpu-kernels"
    own = pick(src.json(f"{run}/bench-copy.json")["copy"], op="copy", vector_width=4)
    torch = [r for r in src.json(f"{run}/torch.json")["rows"] if r["case"] == "copy_ 2 GiB fp32"][0]
    g = own["gbs"]
    return (
        f"{g['median']:.0f} GB/s (n = {g['n']}, cv {g['cv_pct']:.2f}%): "
        f"{100 * g['median'] / torch['rate']['median']:.1f}% of torch `copy_` in the same call "
        f"({torch['rate']['median']:.0f} GB/s, n = {torch['n']}, cv {torch['cv_pct']:.2f}%), "
        f"{own['pct_of_4800_gbs_datasheet']:.1f}% of the 4.8 TB/s datasheet"
    )


@rows.table("`kwb calibrate` ceilings")
def calibrate(src):
    c = src.json("2026-11-30-h200-gpu-kernels/bench-calibrate.json")["calibrate"]
    copy, gemm = c["copy_gbs"], c["bf16_gemm_tflops"]
    return (
        f"copy {copy['median']:.0f} GB/s (n = {copy['n']}, cv {copy['cv_pct']:.2f}%); cuBLASLt bf16 "
        f"8192^3 (fp32 C, the heuristic's first algorithm) {gemm['median']:.1f} TFLOP/s "
        f"(n = {gemm['n']}, min {gemm['min']:.1f}, max {gemm['max']:.1f}, cv {gemm['cv_pct']:.1f}%)"
    )


@rows.table("bf16 GEMM, best own kernel vs cuBLASLt (fp32 C, heuristic's first algorithm)")
def gemm_best(src):
    shapes = {g["shape"]: g for g in src.json("2026-11-30-h200-gemm-tuned/bench-gemm.json")["gemm"]}
    a, b = shapes["4096^3"], shapes["8192^3"]
    p = a["best"]["params"]
    cv = max(a["best"]["tflops"]["cv_pct"], b["best"]["tflops"]["cv_pct"])

    def best_tiled(g):
        return max((c for c in g["configs"] if c["params"]["impl"] == "tiled"), key=lambda c: c["tflops"]["median"])

    tiled = max(best_tiled(a)["pct_of_cublaslt"], best_tiled(b)["pct_of_cublaslt"])
    ref_cv = [g["cublaslt"]["tflops"]["cv_pct"] for g in (a, b)]
    spread = [g["best"]["tflops"]["median"] / g["worst"]["tflops"]["median"] for g in (a, b)]
    return (
        f"`impl={p['impl']}` (TMA + wgmma, {p['block_m']}x{p['block_n']}x{p['block_k']}, {p['stages']} stages): "
        f"{a['best']['tflops']['median']:.1f} TFLOP/s = {a['best']['pct_of_cublaslt']:.1f}% of cuBLASLt at 4096^3, "
        f"{b['best']['tflops']['median']:.1f} = {b['best']['pct_of_cublaslt']:.1f}% at 8192^3 "
        f"(n = {a['best']['tflops']['n']}, cv <= {cv:.2f}%); the portable mma.sync kernel peaks at "
        f"{tiled:.0f}%; worst to best configuration {min(spread):.1f}-{max(spread):.1f}x; "
        f"the reference's own cv is {min(ref_cv):.1f}-{max(ref_cv):.1f}% (the power-capped clock), so its "
        f"median moves the ratio by several points"
    )


@rows.table("a GPU A/B through `kwb new ... --backend cuda && kwb run`")
def gpu_ab(src):
    s = src.json("2026-11-30-h200-kwb-studies/studies-summary.json")["studies"]["gemm-block_n"]
    lo, hi = s["ci95_delta_pct"]
    clock = s["clock_mhz"]
    same = clock["min"] == clock["max"]
    clock_text = f"SM clock {clock['min']:.0f} MHz on every sample" if same else (
        f"SM clock {clock['min']:.0f}-{clock['max']:.0f} MHz")
    return (
        f"tiled GEMM 4096^3, block_n 64 vs 128: {s['verdict']}, delta {s['delta_pct']:.2f}% "
        f"[{lo:.2f}, {hi:.2f}], sigma {s['sigma_pct']:.2f}%, n = {s['n'][0]} per arm, {clock_text} "
        f"(final verdict {s['final_verdict']}: no tradeoff named)"
    )


@rows.table("A/A false alarms on the GPU (n = 10 per arm, 20 studies each)")
def aa_false_alarms(src):
    before = src.json("2026-12-01-h200-aa-bias/before/summary.json")["gemm-abba"]
    after = src.json("2026-12-01-h200-aa-bias/after/summary-20.json")["gemm-abba"]
    shared = src.json("2026-12-01-h200-copy-aa-shared/aa-summary.json")
    per_study = src.csv("2026-12-01-h200-copy-aa-shared/per-study.csv")
    first = src.json("2026-11-30-h200-kwb-studies/studies-summary.json")["aa"]

    def noise(family):
        return f"{count(family['verdicts'], 'NOISE')} of {family['studies']} NOISE"

    def sigma_range(prefix):
        s = [float(r["sigma_pct"]) for r in per_study if r["study"].startswith(prefix + "-")]
        return f"{min(s):.2f}-{max(s):.2f}%"

    b, a = before["delta_time_pct"]["treatment"], after["delta_time_pct"]["treatment"]
    copy, sep, gemm = shared["copy-abba"], shared["copy-separate"], shared["gemm-abba"]
    c, s, g = (x["delta_time_pct"]["treatment"] for x in (copy, sep, gemm))
    sep_kill = count(sep["verdicts"], "KILL")
    return (
        f"cuBLASLt 8192^3, 100 ms repetitions: **{noise(after)}**; a sign-consistent bias "
        f"of {b['mean']:+.1f}% with {signs(b)} was traced to the "
        f"correctness check's pause before the timed order and reduced by checking before the warm-ups: "
        f"now {a['mean']:+.1f}%, but {signs(a) or 'balanced'}. "
        f"2 GiB copy: **{noise(copy)}** now that arms with equal buffer parameters share one set of "
        f"device buffers: delta {c['mean']:+.3f}% (sd {c['sd']:.3f}%, {max(c['slower'], c['faster'])} of {c['n']} one way, "
        f"sigma {sigma_range('copy-abba')}); the same call with a buffer set per arm, as before, gave "
        f"{count(sep['verdicts'], 'NOISE')} NOISE and {sep_kill} KILL with the second arm {s['mean']:.2f}% slower, "
        f"{signs(s)}. GEMM again {noise(gemm)} in that call, its deltas {g['mean']:+.1f}% "
        f"with {signs(g) or 'balanced signs'} (sigma {sigma_range('gemm-abba')}). With 10 ms repetitions (2026-11-30) "
        f"the copy was {first['aa-copy']['not_noise']} of {first['aa-copy']['studies']} and the GEMM "
        f"{first['aa-gemm']['not_noise']} of {first['aa-gemm']['studies']} not NOISE (bimodal: clock states)"
    )


@rows.table("A/A on the power-capped GPU, cuBLASLt 8192^3 (bf16 C, best of 8), 100 ms repetitions, n = 10 per arm")
def aa_40(src):
    d = src.json("2026-12-02-h200-aa-40/summary.json")
    fams = [d["gemm-abba"], d["gemm-random"]]
    verdicts = [v for f in fams for v in f["verdicts"]]
    slower = sum(f["delta_time_pct"]["treatment"]["slower"] for f in fams)
    faster = sum(f["delta_time_pct"]["treatment"]["faster"] for f in fams)
    from readme_figures import sign_test_p

    parts = []
    for name, f in zip(("ABBA", "random order"), fams):
        t = f["delta_time_pct"]["treatment"]
        parts.append(f"{name} {t['faster']}/{t['slower']}, p = {sign_test_p(max(t['faster'], t['slower']), t['n']):.2f}")
    caveat = lean_caveat(slower, slower + faster)
    return (
        f"**{count(verdicts, 'NOISE')} of {len(verdicts)} NOISE**; treatment faster in {faster}, slower in "
        f"{slower} (two-sided sign test p = {sign_test_p(max(slower, faster), slower + faster):.2f}; "
        f"{'; '.join(parts)})" + (f"; {caveat}" if caveat else ": no lean at p < 0.05")
    )


@rows.table("harness overhead")
def harness_overhead(src):
    h = src.json("2026-11-30-h200-kwb-studies/studies-summary.json")["studies"]["gemm-block_n"]["harness_overhead_ms"]
    return (
        f"{h['median']:.3f} ms median ({h['min']:.3f}-{h['max']:.3f}, n = {h['n']}) of host time per "
        f"repetition outside the timed region"
    )
