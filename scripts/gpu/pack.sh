#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Packs what the GPU machine needs (the "build" stage of the GPU work: it happens here) into a
# folder ignored by git and carried by the device tool: the Qt-free programs and tests of a build
# folder, the GPU plugin, the plugin benchmark and torch reference, and the few shared libraries
# from Debian they link that the GPU machine lacks. A Debian 12 build runs there unchanged
# (glibc 2.36 < 2.39). Usage: scripts/gpu/pack.sh [BUILD_DIR] [DEST (default .gpu-run)]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
dest=${2:-$root/.gpu-run}
rm -rf "$dest" && mkdir -p "$dest/bin" "$dest/lib" "$dest/deps"
for prog in kwb "$build"/bin/gpu_* "$build"/bin/kwb_bench "$build"/bin/kwb_gpu_bench; do
  prog=$(basename "$prog")
  [ -x "$build/bin/$prog" ] && cp "$build/bin/$prog" "$dest/bin/"
done
cp "$build"/lib/libkwb_gpu_backend.so "$dest/lib/"
# The reports' own font faces (engine/report/report_fonts.h), where the build has them: kwb finds
# them at bin/../share/kernel-workbench/fonts on a server with no fontconfig configuration.
[ -d "$build/share/kernel-workbench/fonts" ] && mkdir -p "$dest/share/kernel-workbench" \
  && cp -r "$build/share/kernel-workbench/fonts" "$dest/share/kernel-workbench/"
# Shared libraries from Debian packages that the programs link (not the C/C++ runtime): muParser,
# fmt, and the reports' librsvg/cairo with what they pull in, which the GPU machine lacks.
for f in "$dest"/bin/*; do
  ldd "$f" | awk '/=> \//{print $3}'
done | sort -u | { grep -vE '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*|libstdc\+\+|libgcc_s|libcuda)\.so' || true; } \
  | xargs -r -I{} cp -L {} "$dest/deps/"
# Debug info would push the carried folder past the device tool's 64 MiB.
strip --strip-debug "$dest"/bin/* "$dest"/lib/*.so
cp "$root/scripts/gpu/run-all.sh" "$root/scripts/gpu/torch_reference.py" "$root/scripts/gpu/torch_attention.py" \
  "$root/scripts/gpu/kwb_studies.sh" "$root/scripts/gpu/summarise_studies.py" "$root/scripts/gpu/two_gpu_grid.sh" \
  "$root/scripts/gpu/summarise_grid2.py" "$root/scripts/gpu/ncu_agreement.sh" "$root/scripts/gpu/summarise_ncu_agreement.py" \
  "$root/scripts/gpu/aa_bias.sh" "$root/scripts/gpu/aa_bias.py" "$root/scripts/gpu/tiny_llm.sh" \
  "$root/scripts/gpu/tiny_llm_serving.sh" "$root/scripts/gpu/gpu_env.sh" \
  "$root/scripts/gpu/summarise_tiny_llm.py" "$root/scripts/gpu/worker_studies.sh" "$root/scripts/gpu/placement_probe.py" "$root/scripts/gpu/aa_process_probe.py" "$root/scripts/gpu/w8_decode.sh" "$root/scripts/gpu/git_arms.sh" "$root/scripts/gpu/anchors.sh" "$root/scripts/gpu/evidence_studies.sh" \
  "$dest/"
# Worker arms (worker_studies.sh): the Python helper, the C++ header and the examples they run.
cp -r "$root/python" "$root/include" "$root/examples" "$dest/"
find "$dest/python" "$dest/examples" -name __pycache__ -prune -exec rm -rf {} +
git -C "$root" rev-parse HEAD > "$dest/COMMIT" 2>/dev/null || true
du -sh "$dest" >&2
