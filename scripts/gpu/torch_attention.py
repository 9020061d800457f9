# SPDX-License-Identifier: GPL-3.0-or-later
# torch's side of the attention benchmarks (kwb_gpu_bench decode / prefill), same GPU, same call:
#   decode   F.scaled_dot_product_attention of one query token per sequence over a contiguous KV
#            cache, GQA 32/8 heads, head dim 128, bf16, contexts 1k/8k/32k, batch 1 and 64; GB/s
#            counts the K and V bytes read once (as the plugin's attention_decode does)
#            eager (what a torch user's loop pays: per-call dispatch, 21-28 us on the H200) and
#            "graph": 20 calls captured in one CUDA graph and replayed, so the time is the kernels'
#            back to back (compare with the plugin's pdl=0 rows: no launch overlap on either side)
#   prefill  causal SDPA on torch's default backend (cuDNN on the H200) and on each backend that
#            runs (flash, cudnn, efficient), batch 4, 32 heads, seq 4096, head dim 128 and 64;
#            TFLOP/s counts the causal half: 4 * B * H * S * S * D / 2
# Timing as torch_anchors.py: CUDA events around `inner` calls (batch-1 decode is launch-bound, so
# many calls per event pair, sized to about 10 ms), 3 warm-ups, 30 repetitions.
#   decode-fit  batch 1 at contexts 4k-128k (kwb_gpu_bench decode-fit's shapes)
# Usage: python3 torch_attention.py [decode] [decode-fit] [prefill] > torch-attention.json
import json, statistics, sys, torch
import torch.nn.functional as F

def bench(fn, reps=30, target_ms=10.0):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); fn(); e.record(); torch.cuda.synchronize()
    inner = max(1, min(2000, int(target_ms / max(s.elapsed_time(e), 1e-3))))
    ts = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(inner):
            fn()
        e.record()
        torch.cuda.synchronize()
        ts.append(s.elapsed_time(e) / inner)
    return ts, inner

def summary(ms, inner, work, scale, unit):
    rates = [work / (t * 1e-3) / scale for t in ms]
    return {"median_ms": statistics.median(ms), "n": len(ms), "calls_per_event_pair": inner, "min_ms": min(ms),
            "max_ms": max(ms), "cv_pct": 100 * statistics.stdev(ms) / statistics.mean(ms),
            "rate": {"median": statistics.median(rates), "min": min(rates), "max": max(rates), "unit": unit}}

stages = sys.argv[1:] or ["decode", "prefill"]
torch.manual_seed(0)
out = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": []}
decode_shapes = []
if "decode" in stages:
    decode_shapes += [(ctx, B) for ctx in (1024, 8192, 32768) for B in (1, 64)]
if "decode-fit" in stages:
    decode_shapes += [(ctx, 1) for ctx in (4096, 8192, 16384, 32768, 65536, 131072)]
for ctx, B in decode_shapes:
    Hq, Hkv, D = 32, 8, 128
    q = torch.randn(B, Hq, 1, D, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(B, Hkv, ctx, D, device="cuda", dtype=torch.bfloat16)
    v = torch.randn_like(k)
    for mode in ("eager", "graph"):
        case = f"decode SDPA GQA32/8 D128 bf16 B{B} ctx{ctx}" + (" (CUDA graph of 20 calls)" if mode == "graph" else "")
        try:
            call = lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
            per_graph = 20
            if mode == "graph":
                side = torch.cuda.Stream()
                side.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(side):
                    for _ in range(3):
                        call()
                torch.cuda.current_stream().wait_stream(side)
                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g):
                    for _ in range(per_graph):
                        call()
                ms, inner = bench(g.replay)
                ms = [t / per_graph for t in ms]
            else:
                ms, inner = bench(call)
            out["rows"].append({"case": case, "batch": B, "context": ctx, "mode": mode,
                                **summary(ms, inner * (per_graph if mode == "graph" else 1),
                                          2 * B * Hkv * ctx * D * 2, 1e9, "GB/s")})
        except Exception as ex:
            out["rows"].append({"case": case, "mode": mode, "error": str(ex)[:300]})
        print(json.dumps(out["rows"][-1]), file=sys.stderr)
    del q, k, v
if "prefill" in stages:
    for D in (128, 64):
        B, H, S = 4, 32, 4096
        q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        B_ = torch.nn.attention.SDPBackend
        for backend, be in (("default", None), ("flash", B_.FLASH_ATTENTION), ("cudnn", B_.CUDNN_ATTENTION),
                            ("efficient", B_.EFFICIENT_ATTENTION)):
            case = f"prefill SDPA {backend} causal bf16 B{B} H{H} S{S} D{D}"
            call = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)
            try:
                if be is None:
                    ms, inner = bench(call)
                else:
                    with torch.nn.attention.sdpa_kernel(be):
                        ms, inner = bench(call)
                out["rows"].append({"case": case, "head_dim": D, "backend": backend,
                                    **summary(ms, inner, 4 * B * H * S * S * D / 2, 1e12, "TFLOP/s")})
            except Exception as ex:
                out["rows"].append({"case": case, "head_dim": D, "backend": backend, "error": str(ex)[:300]})
            print(json.dumps(out["rows"][-1]), file=sys.stderr)
        del q, k, v
print(json.dumps(out, indent=1))
