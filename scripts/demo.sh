#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Command 1 of the README: install what is missing, build, and open the workbench on its demo study.
# Only what the window needs is built: the window and kwb (which runs its A/Bs), and the GPU
# plugin only where there is a GPU, for that GPU's architecture alone (the test command builds
# everything, every test and the plugin for sm_90). KWB_BUILD_TARGETS overrides the list.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${KWB_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
source "$root/scripts/build-flags.sh"
# The local GPU's compute capability, e.g. "9.0" -> 90-real; nothing without a GPU or its driver.
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. \r' || true)
cuda=()
[[ $arch =~ ^[0-9]+$ ]] && cuda=(-DKWB_CUDA_ARCHS="$arch-real")
KWB_BUILD_TARGETS=${KWB_BUILD_TARGETS:-"kernel-workbench kwb"} \
  "$root/scripts/build.sh" "${kwb_build_flags[@]}" "${cuda[@]}"
# The plugin exists as a target only where cmake found nvcc (KWB_WITH_CUDA=AUTO).
if [ ${#cuda[@]} -gt 0 ] && grep -q "kwb_gpu_backend" "$build/build.ninja"; then
  cmake --build "$build" -j "${KWB_JOBS:-$(nproc)}" --target kwb_gpu_backend
fi
exec "$build/bin/kernel-workbench" "$@"
