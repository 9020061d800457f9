# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by the GPU machine's scripts (run-all.sh, tiny_llm.sh, ...) from a packed folder
# (scripts/gpu/pack.sh): `here` must name that folder. Points the programs at the folder's Debian
# libraries and GPU plugin, and at cuBLASLt 13: the system's, else the one PyTorch's wheels carry.
export LD_LIBRARY_PATH="$here/deps:${LD_LIBRARY_PATH:-}"
export KWB_GPU_BACKEND="$here/lib/libkwb_gpu_backend.so"
if [ -z "${KWB_CUBLASLT:-}" ]; then
  for d in /usr/local/cuda/lib64 /usr/lib/x86_64-linux-gnu \
           $(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null); do
    f=$(find "$d" -maxdepth 5 -name 'libcublasLt.so.13*' 2>/dev/null | head -1)
    [ -n "$f" ] && { export KWB_CUBLASLT="$f"; break; }
  done
fi
