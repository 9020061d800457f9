#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Drives each GPU example once through the worker protocol (python3 -m kwb_worker.drive: hello,
# describe, prepare, verify, time hot and cold, verify again, release) on a CUDA machine, from the
# repository root: the CUDA C++ transpose (built here with nvcc), the Triton matmul, torch SDPA on
# three backends, and a small CuPy kernel (the helper's CuPy path). Not kwb: a check that each
# worker speaks the protocol and passes its own reference before it is used in a study.
# Logs go to stdout and, when OUT is set, to $OUT/try_gpu_examples.log.
set -uo pipefail
cd "$(dirname "$0")/.."
log=${OUT:+$OUT/try_gpu_examples.log}
exec > >(tee ${log:+"$log"}) 2>&1
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
drive() { echo; echo "=== $*"; python3 -m kwb_worker.drive "$@" || failures=$((failures + 1)); }
failures=0

nvidia-smi -L
python3 -c 'import sys, torch, triton; print(sys.version.split()[0], "torch", torch.__version__, "triton", triton.__version__)'

build=${TMPDIR:-/tmp}/kwb-try-gpu
mkdir -p "$build"
nvcc -O3 -arch=sm_90 -I include examples/cuda_cpp/transpose.cu -o "$build/transpose" && {
  drive --launches 20 --param impl=smem --param tile=32 -- "$build/transpose"
  drive --launches 20 --param impl=naive -- "$build/transpose"
}

drive --launches 20 --param BLOCK_K=32 -- python3 -m kwb_worker examples/triton_matmul/matmul.py
drive --launches 20 --param BLOCK_K=64 -- python3 -m kwb_worker examples/triton_matmul/matmul.py
for backend in flash cudnn efficient; do
  drive --launches 10 --param backend=$backend -- python3 -m kwb_worker examples/torch_sdpa/sdpa.py
done

cat >"$build/cupy_axpy.py" <<'PY'
import cupy as cp
import kwb_worker as kw

def setup(p, seed):
    rng = cp.random.default_rng(seed)
    x = rng.standard_normal(p.n, dtype=cp.float32)
    return {"x": x, "y": rng.standard_normal(p.n, dtype=cp.float32), "out": cp.empty_like(x)}

def run(s):
    cp.multiply(s["x"], 2.0, out=s["out"])
    s["out"] += s["y"]

kernel = kw.Kernel(name="cupy-axpy", params=[kw.Param("n", 1 << 26)], setup=setup, run=run,
                   output=lambda s: s["out"], reference=lambda s: 2.0 * s["x"] + s["y"],
                   bytes_per_launch=lambda p: 5.0 * 4 * p.n, tolerance=1e-6)
PY
drive --launches 20 -- python3 -m kwb_worker "$build/cupy_axpy.py"

echo
echo "try_gpu_examples: $failures worker(s) with problems"
exit $((failures > 0))
