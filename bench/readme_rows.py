# SPDX-License-Identifier: GPL-3.0-or-later
"""The README's measured section, row by row, read from the files under bench/results/.

scripts/readme_figures.py renders these in order (table rows, then the paragraphs under the table).
To add a row (docs/readme-figures.md): write a function that takes `src` (a Sources: src.json,
src.csv, src.text, src.grep, src.number, paths relative to bench/results/) and returns the figure's
text; decorate it with `@rows.table("what it measures")` or `@rows.paragraph`. Every file it reads
is named in the row. A figure is never typed here: only the wording around the numbers is.
Caveats the data shows go into the row (lean_caveat for A/A signs).
"""

import json
import re
from statistics import median

from readme_figures import Rows, lean_caveat, sign_test_p

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
    c = src.json("2026-12-02-h200-anchors/calibrate.json")

    def bw(key, what):
        v = c[key]
        return f"{what} {v['median']:.0f} GB/s (n = {v['n']}, cv {v['cv_pct']:.2f}%)"

    gemm = c["bf16_gemm_tflops"]
    return (
        f"{bw('copy_gbs', 'copy')}; {bw('read_gbs', 'DRAM read only')}; {bw('l2_read_gbs', 'L2 read')}; cuBLASLt "
        f"8192^3 with bf16 C and the best of the heuristic's top 8 (as torch.mm) {gemm['median']:.1f} TFLOP/s "
        f"(n = {gemm['n']}, min {gemm['min']:.1f}, max {gemm['max']:.1f}, cv {gemm['cv_pct']:.1f}%)"
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


@rows.table("CUPTI PM sampling")
def pm_sampling(src):
    log = "2026-12-01-h200-sampling-overhead/gpu_pm_sampling.log"
    rate = src.bench(log, "achieved_sample_rate")
    copy = src.bench(log, "overhead_copy_2GiB_x100")
    gemm = src.bench(log, "overhead_gemm_8192_x20")
    aa = src.bench(log, "aa_gemm_8192_x20_sampling_off")
    lat = src.bench(log, "first_sample_latency_ms")["values"]

    def judged(b):
        lo, hi = b["ci95_delta_pct"]
        return f"{b['delta_pct']:+.3g}% [{lo:+.3g}, {hi:+.3g}]"

    return (
        f"{rate['per_s']:.0f} samples/s at {rate['interval_ms']} ms ({rate['overflow']} lost); on vs off, "
        f"interleaved and judged: copy **{copy['verdict']}**, {judged(copy)} (n = {len(copy['on_ms'])} per arm); "
        f"cuBLASLt GEMM {gemm['verdict']}, {judged(gemm)} beside its own A/A's {judged(aa)}; a launch "
        f"reaches the sampler's consumer {median(lat):.1f} ms later (median, {min(lat):.1f}-{max(lat):.1f}, "
        f"n = {len(lat)})"
    )


@rows.table("`kwb profile` (CUPTI Activity + PM samples), the baseline arm of a study")
def kwb_profile(src):
    parts = []
    for name in ("copy", "gemm"):
        study = src.json(f"2026-12-02-h200-run-session/profile-{name}.json")
        b = study["binding"]
        arm = [a for a in study["experiments"][0]["arms"] if a["name"] == b["arm"]][0]["params"]
        what = (f"{arm['size_mb'] // 1024} GiB copy" if name == "copy"
                else f"`impl={arm['impl']}` {arm['m']}^3")
        parts.append(f"{what} called {b['constraint']} ({b['evidence'][0]})")
    bound = src.json("2026-12-03-h200-why-faster/evidence/decode-bound.json")["binding"]
    m = bound["metrics"]
    parts.append(f"paged decode batch 64, 8k, `impl=mma` called {bound['constraint']} ({bound['evidence'][0]}; "
                 f"{m['profiled_ms_per_launch']:.4f} ms a launch profiled, {m['timed_ms_per_launch']:.4f} timed)")
    return "; ".join(parts)


@rows.table("README command 1 (`./scripts/demo.sh`) on a fresh clone, cold build, to the first window")
def first_window(src):
    t = src.json("2026-12-03-first-window/timing.json")
    return (f"{t['wall_s'] / 60:.1f} min wall ({t['build_steps']} build steps, {t['cpu_pct']}% of 2 cores, n = {t['n']}) "
            f"on the 2-core machine without apt (packages present) and without a compiler cache; the goal is 15 min "
            f"with apt, not met")


@rows.table("The bundled demo's run (`kwb run` of resources/studies/demo.json, what Run in the window starts)")
def demo_duration(src):
    d = src.json("2026-12-05-demo-duration/duration.json")
    return (f"{d['median_s']:.1f} s wall, median of n = {d['n']} ({d['min_s']:.1f}-{d['max_s']:.1f} s) on "
            f"{d['cores']} cores ({d['cpu']}): long enough to watch both arms arrive")


@rows.table("`kwb profile --arms all` (CUPTI range profiler, one pass an arm), tiled GEMM 4096^3, block_m 64 vs 128")
def range_profile(src):
    d = src.json("2026-12-03-h200-why-faster/range-tiles.json")["range_profile"]
    rows = {r["metric"]: r for r in d["diffs"][0]["rows"] if r.get("scope") == "launch"}

    def fig(name, scale, unit, spec=".1f"):
        r = rows[name]
        return (f"{name} {r['baseline']['mean'] * scale:{spec}} -> {r['treatment']['mean'] * scale:{spec}} {unit} "
                f"({r['delta_pct']:+.1f}%, {'beyond' if r['beyond_noise'] else 'within'} noise)")

    n = rows["kernel_ms"]["baseline"]["n"]
    return (f"n = {n} launches an arm: " + ", ".join([fig("kernel_ms", 1, "ms", ".3f"), fig("dram_read_bytes", 1e-6, "MB"),
                                                      fig("l2_sectors", 1e-6, "M")])
            + "; not yet measured beside ncu's own counts of the same kernels")


@rows.table("PM sampling vs `ncu --clock-control none`, every lane, on the copy, the cuBLASLt GEMM and the paged decode "
            "(% lanes within 5 points, rates within 5%)")
def pm_vs_ncu(src):
    d = src.json("2026-12-03-h200-why-faster/ncu-agreement.json")
    parts, total, agreeing = [], 0, 0
    for kernel in ("copy", "gemm", "decode"):
        m = {x["lane"]: x for x in d["kernels"][kernel]["metrics"] if x["ncu"] is not None}
        total += len(m)
        agreeing += sum(1 for x in m.values() if x["agree"])
        shown = [f"{lane} {m[lane]['difference']:+.1f}" for lane in ("dram_pct", "sm_pct", "tensor_pct", "occupancy")
                 if lane in m]
        parts.append(f"{kernel} " + ", ".join(shown))
    conditions = d.get("condition_differs", [])
    return (f"{agreeing} of {total} agree; PM minus ncu: " + "; ".join(parts)
            + f"; not agreeing: {', '.join(d['not_agreeing']) or 'none'}"
            + (f"; condition differs (not compared): {', '.join(conditions)} (ncu's replay ran at another clock, "
               "so that kernel's DRAM rates are compared per launch)" if conditions else ""))


ANCHORS = "2026-12-02-h200-anchors/summary.json"


@rows.table("paged decode attention (`attention_decode`), GQA 32/8, head dim 128, bf16, page 16, "
            "against torch SDPA in a CUDA graph and eager, in one call")
def decode_anchor(src):
    cells = src.json(ANCHORS)["decode"]

    def batch(b):
        sel = [c for c in cells if c["batch"] == b]
        ctx = " / ".join(f"{c['context'] // 1024}k" for c in sel)
        own1 = " / ".join(f"{c['own_pdl1']['median']:.0f}" for c in sel)
        pct1 = " / ".join(f"{c['own_pdl1_pct_of_torch_graph']:.0f}%" for c in sel)
        pct0 = " / ".join(f"{c['own_pdl0_pct_of_torch_graph']:.0f}%" for c in sel)
        eager = " / ".join(f"{c['own_pdl1_pct_of_torch_eager']:.0f}%" for c in sel)
        return (f"batch {b} at {ctx}: {own1} GB/s = {pct1} of the graphed torch call with launch overlap "
                f"(`pdl=1`), {pct0} without (`pdl=0`); {eager} of eager torch, whose per-call dispatch it measures")

    n_own = cells[0]["own_pdl1"]["n"]
    n_torch = cells[0]["torch_graph"]["n"]
    return f"{batch(1)}; {batch(64)} (n = {n_own} / {n_torch})"


@rows.table("decode kernel time, `ncu --clock-control none`, own (`pdl=0`) over torch's kernels")
def decode_ncu(src):
    cells = src.json(ANCHORS)["decode_ncu"]
    parts = [f"{c['own_pdl0_over_torch_kernel_time']:.3f} at batch {c['batch']}, {c['context'] // 1024}k"
             for c in cells]
    return "; ".join(parts)


@rows.table("causal flash prefill (`attention_prefill`), batch 4, 32 heads, seq 4096, against each torch SDPA backend")
def prefill_anchor(src):
    parts = []
    for c in src.json(ANCHORS)["prefill"]:
        t, pct = c["torch"], c["own_pct_of"]
        parts.append(
            f"head dim {c['head_dim']}: {c['own']['median']:.1f} TFLOP/s (cv {c['own']['cv_pct']:.2f}%) = "
            f"{pct['default']:.0f}% of torch's default ({t['default']['median']:.0f}, cv {t['default']['cv_pct']:.1f}%), "
            f"{pct['cudnn']:.0f}% of cuDNN ({t['cudnn']['median']:.0f}), {pct['flash']:.0f}% of flash "
            f"({t['flash']['median']:.0f})")
    c = src.json(ANCHORS)["prefill"][0]
    return "; ".join(parts) + f" (n = {c['own']['n']} / {c['torch']['default']['n']})"


@rows.table("bf16 GEMM against the fair anchors: cuBLASLt with bf16 C, best of the heuristic's top 8, and torch.mm "
            "at the same duty cycle (10 ms repetitions back to back)")
def gemm_anchor(src):
    parts = []
    for g in src.json("2026-12-02-h200-anchors-gemm/summary.json")["gemm"]:
        ref, tm, burst = g["cublaslt_bf16_best"], g["torch_mm_sustained"], g["torch_mm_bursts"]
        parts.append(
            f"{g['shape']}: own best ({g['best_own']['params']['impl']}) {g['best_own']['median']:.1f} TFLOP/s = "
            f"{g['own_pct_of_cublaslt_bf16_best']:.1f}% of cuBLASLt ({ref['median']:.1f}, cv {ref['cv_pct']:.1f}%), "
            f"{g['own_pct_of_torch_mm']:.1f}% of torch.mm ({tm['median']:.1f}, cv {tm['cv_pct']:.1f}%; "
            f"{burst['median']:.1f} in 5-call bursts with idle gaps, the power cap's clock); the old reference "
            f"(fp32 C, heuristic's first) {g['cublaslt_fp32_heuristic']['median']:.1f}")
    return "; ".join(parts) + " (n = 15 per side)"


def arm_line(src, rel, study, arm):
    """The ITL/TTFT arrays (median, min, max) of one arm line of a tiny_llm summary file."""
    text = src.text(rel)
    block = text[text.index(study):]
    m = re.search(r'\{"arm": "' + arm + r'".*\}', block)
    if not m:
        raise ValueError(f"{rel}: no {arm} arm after {study}")
    return json.loads(m.group(0))


@rows.table("`tiny_llm` (bf16 Llama-style decoder, 8 requests per repetition), batch 1, decode ITL p50 "
            "against its bytes-moved bound")
def tiny_llm_itl(src):
    call = "2026-12-01-h200-early/call6"
    rel = f"{call}/tiny-summary.txt"
    ceiling = src.json(f"{call}/copy-ceiling.json")["copy_gbs"]["median"]
    study = src.json(f"{call}/study-graph-3.4gb.json")["experiments"][0]["final_verdict"]["verdict"]

    def ratio(arm):
        return arm["itl_p50_ms"][0] / (arm["step_mb"][0] / ceiling)

    sizes = []
    for gb in ("3.4", "6.3"):
        main = arm_line(src, rel, f"base-graph-{gb}gb.json", "treatment")
        new = arm_line(src, rel, f"final-graph-{gb}gb.json", "treatment")
        sizes.append((gb, main, new))
    small = arm_line(src, rel, "final-graph-1.7gb.json", "treatment")
    met = all(ratio(new) <= 1.3 for _, _, new in sizes)
    text = ", ".join(
        f"{gb} GB {main['itl_p50_ms'][0]:.3f} -> **{new['itl_p50_ms'][0]:.3f} ms ({ratio(main):.2f}x -> "
        f"{ratio(new):.2f}x the bound)**" for gb, main, new in sizes)
    graph = []
    for gb in ("1.7", "3.4", "6.3"):
        off = arm_line(src, rel, f"final-graph-{gb}gb.json", "baseline")
        on = arm_line(src, rel, f"final-graph-{gb}gb.json", "treatment")
        graph.append(f"{100 * (on['itl_p50_ms'][0] - off['itl_p50_ms'][0]) / off['itl_p50_ms'][0]:+.1f}% at {gb} GB")
    return (
        f"with the CUDA graph, n = {small['n']} per arm, beside main's plugin in one call (copy ceiling "
        f"{ceiling:.1f} GB/s): {text}, 1.7 GB {small['itl_p50_ms'][0]:.3f} ms ({ratio(small):.2f}x: half the bytes "
        f"behind the same kernels); **goal <= 1.3x {'met' if met else 'not met'}** at the memory-bound sizes. "
        f"Graph on vs off: {', '.join(graph)} (3.4 GB: {study}). What did it, and what was measured and dropped: "
        f"the folder's README (`kwb_gpu_bench timeline`)"
    )


@rows.table("`tiny_llm` prefill GEMMs, cuBLASLt vs the project's own (`prefill_gemm`), 3.4 GB model")
def prefill_gemms(src):
    call = "2026-12-01-h200-merged-3/call5"
    rel = f"{call}/summary.txt"
    parts = []
    for impl in ("wgmma", "tiled"):
        b, t = arm_line(src, rel, f"study-{impl}.json", "baseline"), arm_line(src, rel, f"study-{impl}.json", "treatment")
        verdict = src.grep(f"{call}/study-{impl}.run.txt", r"final verdict (\w+)")
        tb, tt = b["ttft_ms"][0], t["ttft_ms"][0]
        parts.append(f"TTFT {tb:.3f} ms (cuBLASLt) vs {tt:.3f} (`{impl}`): {100 * (tt - tb) / tb:+.0f}%, {verdict}")
    n = arm_line(src, rel, "study-tiled.json", "baseline")["n"]
    return f"n = {n} per arm: " + "; ".join(parts) + " (the ITL placement effect: the folder's README)"


@rows.table("`tiny_llm` KV cache bf16 vs fp8 e4m3 (per-head scales), 1.7 GB model, CUDA graph on")
def kv_cache(src):
    rel = "2026-12-01-h200-tiny-llm-serving/summary.txt"
    text = src.text(rel)
    params = [json.loads(m) for m in re.findall(r" params: (\{.*\})$", text, re.M)]
    arm = re.compile(r"^\s+(baseline|treatment) \| (\w+) \| n=(\d+) \| itl_p50_ms ([\d.]+) \[([\d.]+)-([\d.]+)\]", re.M)
    verdict = re.compile(r"'measured_delta_pct': ([-\d.]+),.*'verdict': '(\w+)'\} delta CI95 \[([-\d.]+), ([-\d.]+)\]")
    arms = arm.findall(text)
    verdicts = verdict.findall(text)
    if len(params) != 2 or len(arms) != 4 or len(verdicts) != 2:
        raise ValueError(f"{rel}: expected two studies of two arms")
    out = []
    for p, (b, t), (gain, v, lo, hi) in zip(params, (arms[0:2], arms[2:4]), verdicts):
        if p["arrivals"] == "sequential":
            label = f"one after another ({p['requests']} requests, batch {p['batch']})"
        else:
            label = (f"{p['arrivals'].capitalize()} arrivals ({p['requests']} requests at {p['rate']}/s, "
                     f"batching up to {p['max_batch']} rows)")
        out.append(f"{label}: ITL p50 {b[3]} ({b[4]}-{b[5]}) -> {t[3]} ms ({t[4]}-{t[5]}), "
                   f"{float(gain):.1f}% lower (kwb's delta, 95% CI [{float(lo):.2f}, {float(hi):.2f}]), {v}")
    return f"n = {arms[0][2]} per arm; " + "; ".join(out)


@rows.table("worker arms through `kwb run` (Triton, torch, CUDA C++ workers; Triton A/As)")
def worker_arms(src):
    aa1 = src.json("2026-12-02-h200-worker-arms/summary.json")["aa"]["aa-triton"]
    src.path("2026-12-02-h200-worker-arms/figures.md")
    second = "2026-12-02-h200-worker-arms-2"
    summary2 = src.json(f"{second}/summary.json")
    aa2 = summary2["aa"]["aa-triton"]
    aa_deltas = [st["delta_pct"] for name, st in summary2["studies"].items() if name.startswith("aa-triton-")]
    src.path(f"{second}/aa-positions.json")
    figures = src.text(f"{second}/figures.md")
    wall = re.search(r"took ([0-9.]+)x the worker arms' \(([0-9.]+) s against ([0-9.]+) s\)", figures)
    ratios = re.findall(r"\| triton-duty-dobench-after\.json \| (\d+) \|.*?\| ([0-9.]+) \| [0-9.]+ \|\n", figures)

    def verdicts(aa):
        return ", ".join(f"{n} {k}" for k, n in sorted(aa["verdicts"].items()))

    return (f"the figures are generated from the studies in each folder's `figures.md` "
            f"(`scripts/gpu/summarise_workers.py`); a 6-runs-per-arm Triton A/B took {wall.group(3)} s of `kwb run` as "
            f"worker arms and {wall.group(2)} s as command arms ({wall.group(1)}x); kwb / do_bench at a matched "
            f"duty cycle: {', '.join(f'{r} (BLOCK_K {bk})' for bk, r in ratios)}; Triton A/As: "
            f"{aa1['not_noise']} of {aa1['studies']} not NOISE in the first round ({verdicts(aa1)}), "
            f"{aa2['not_noise']} of {aa2['studies']} after the bimodality floor ({verdicts(aa2)}), "
            f"{sum(d > 0 for d in aa_deltas)} of {len(aa_deltas)} deltas positive (median {median(aa_deltas):+.2f}%): "
            f"an arm effect "
            f"between two worker processes, open in issue 27")


@rows.table("2x2 GEMM grid (block_n x stages), `kwb run --devices 0,1` on two H200s vs one")
def two_gpu_grid(src):
    d = src.json("2026-12-01-h200-x2-grid/summary.json")
    two, one = d["wall_s"]["two_gpus"], d["wall_s"]["one_gpu"]
    runs = sorted({n for r in d["runs"].values() for c in r["cells"] for n in c["n"]})
    return (f"{'/'.join(map(str, runs))} runs per arm: {min(two):.1f}-{max(two):.1f} s vs {min(one):.1f}-{max(one):.1f} s wall: "
            f"{d['speedup_of_medians']:.2f}x (n = {len(two)} each; at most 1.5x for three cells)")


@rows.paragraph
def stopping_rule(src):
    d = src.json("2026-12-01-h200-merged/stopping-mc.json")
    small = src.json("2026-11-30-stopping-mc/stopping-mc.json")
    cells = d["cells"]
    gray = [c for c in cells if c["delta_pct"] in (5.0, 8.0, 9.0)]
    excess = max(c["license_pct_decision"] - c["license_pct_fixed"] for c in gray)
    clear = [c["mean_runs_per_arm_decision"] for c in cells if c["delta_pct"] in (0.0, 20.0) and c["cv_pct"] <= 3.0]
    deltas = sorted({c["delta_pct"] for c in gray})
    return (
        f"The decision stopping rule (a confidence sequence, `docs/stopping.md`), measured with the `synthetic` "
        f"workload over {d['simulated_studies']:,} simulated studies ({d['studies_per_cell_and_rule']:,} per cell and "
        f"rule, on the GPU machine's {d['threads']} cores): its LICENSE rate is at most {excess:.2f} points above the "
        f"fixed-n rate at the cap for true deltas of {deltas[0]:.0f}-{deltas[-1]:.0f}%, and clear cases (0% or 20%, "
        f"cv 1-3%) stop after {min(clear):.1f}-{max(clear):.1f} runs per arm of a cap of {d['cap_per_arm']}; "
        f"{small['simulated_studies']:,} on the 2-core machine"
    )


@rows.paragraph
def development_machine(src):
    live = src.json("2026-12-01-live-plot-frame-cost/idle.json")
    runs = live["runs"]
    p99 = [r["frame_ms"]["p99"] for r in runs]
    worst = max(r["frame_ms"]["max"] for r in runs)
    rate = max(r["offered_pts_per_s"] for r in runs)
    idle = src.json("2026-12-01-distributions-open-200ms/idle_after.json")
    loaded = [src.json(f"2026-12-01-distributions-open-200ms/final_after_{i}.json") for i in (1, 2)]
    o, d, sv = idle["open_study"]["wall"], idle["draw_distributions"]["main_thread_cpu"], idle["save_study"]
    under = [x["open_study"]["main_thread_cpu"]["median_ms"] for x in loaded]
    builds = []
    for log in ("2026-12-01-plugin-build-time/sm90-only.log", "2026-12-01-plugin-build-time/default-archs.log"):
        m, sec = src.grep(log, r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\d+):(\d+\.\d+)", 0).split(": ")[-1].split(":")
        builds.append(f"{int(m)} min {round(float(sec))} s")
    return (
        f"On the 2-core development machine, idle: the live view draws {rate:,.0f} readings/s at "
        f"{1000 / live['display_tick_ms']:.0f} frames/s with a p99 frame of {min(p99):.0f}-{max(p99):.0f} ms "
        f"(max {worst:.1f} ms); a {idle['samples']:,}-sample study opens in {o['median_ms']:.0f} ms "
        f"({o['min_ms']:.0f}-{o['max_ms']:.0f}, n = {o['n']}; {min(under):.0f}-{max(under):.0f} ms of CPU under load; "
        f"goal 200 ms), draws its distributions in {d['median_ms']:.0f} ms of CPU ({d['min_ms']:.0f}-{d['max_ms']:.0f}) "
        f"and saves in {sv['wall']['median_ms']:.0f} ms ({sv['main_thread_cpu']['median_ms']:.0f} of CPU); the GPU "
        f"plugin builds in {builds[0]} for sm_90 and {builds[1]} for every default arch (n = 1 each)"
    )
