# SPDX-License-Identifier: GPL-3.0-or-later
# torch's side of the plugin benchmarks, run in the same call on the same GPU: copy_ of a 2 GiB
# fp32 buffer (GB/s counting read + write) and torch.mm bf16 at 4096^3 and 8192^3 (cuBLAS), timed
# with torch.cuda.Event as /work/shared/probes/anchors/torch_anchors.py does: 3 warm-ups, then
# 30 repetitions of 10 calls (5 for the GEMM). Usage: python3 torch_reference.py > torch.json
import json, math, statistics, torch

def bench(fn, reps=30, inner=10, warmups=3):
    for _ in range(warmups * inner if inner > 10 else warmups):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(inner):
            fn()
        e.record()
        torch.cuda.synchronize()
        ts.append(s.elapsed_time(e) / inner)
    return ts

def summary(ms, work, scale, unit):
    rates = [work / (t * 1e-3) / scale for t in ms]
    return {"median_ms": statistics.median(ms), "n": len(ms), "min_ms": min(ms), "max_ms": max(ms),
            "cv_pct": 100 * statistics.stdev(ms) / statistics.mean(ms),
            "rate": {"median": statistics.median(rates), "min": min(rates), "max": max(rates), "unit": unit}}

torch.manual_seed(0)
out = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": []}
x = torch.rand(2**29, dtype=torch.float32, device="cuda")
y = torch.empty_like(x)
ms = bench(lambda: y.copy_(x))
out["rows"].append({"case": "copy_ 2 GiB fp32", **summary(ms, 2 * x.numel() * 4, 1e9, "GB/s")})
del x, y
for n in (4096, 8192):
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    ms = bench(lambda: torch.mm(a, b), inner=5)
    out["rows"].append({"case": f"torch.mm bf16 {n}^3", **summary(ms, 2 * n**3, 1e12, "TFLOP/s")})
    # The duty cycle of kwb_gpu_bench's measure(): 15 repetitions of >= 10 ms back to back after one
    # warm-up repetition. A power-capped GPU clocks lower under sustained load, so short bursts with
    # idle gaps (the row above) flatter whichever side runs them.
    per = statistics.median(ms)
    inner = max(1, math.ceil(10.0 / per))
    ms = bench(lambda: torch.mm(a, b), reps=15, inner=inner)
    out["rows"].append({"case": f"torch.mm bf16 {n}^3 sustained ({inner} calls per 10 ms repetition)",
                        **summary(ms, 2 * n**3, 1e12, "TFLOP/s")})
    del a, b
print(json.dumps(out, indent=1))
