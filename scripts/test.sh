#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Command 2 of the README: install what is missing, build, and run the whole test suite.
# GPU tests (label gpu) skip with a message where no GPU is usable.
# KWB_SANITIZE=1 (.ci/run sets it) builds everything once with AddressSanitizer +
# UndefinedBehaviorSanitizer instead, in its own folder (build-asan), and runs the whole suite
# there (docs/reliability.md): every test, the window's included, under the sanitizers, each source
# compiled once. Off by default here: a sanitized build is not the one demo.sh launches, so a
# newcomer would compile everything a second time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
# CI builds the GPU plugin for sm_90 only (a third of the time); packages build every default arch.
# The flags are demo.sh's (scripts/build-flags.sh). KWB_WITH_CUDA=AUTO again: where nvcc exists the
# plugin and its tests are built whatever an earlier configure of the folder said.
source "$root/scripts/build-flags.sh"
build=${KWB_BUILD_DIR:-$root/build}
timeout=()
if [ "${KWB_SANITIZE:-0}" != 0 ]; then
  build=${KWB_ASAN_BUILD_DIR:-$root/build-asan}
  # -O1 -g1 as in build-flags.sh: traces still name file and line. CMAKE_BUILD_TYPE=None keeps
  # assert() on. The CPU backend's kernels stay at -O2 (kernels/cpu/CMakeLists.txt).
  flags="-O1 -g1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
  kwb_build_flags+=(-DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="$flags"
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined"
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined"
    -DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=address,undefined")
  # Leak checking is off: Qt's own one-time allocations would be reported; every other ASan and
  # UBSan finding ends the test that hit it. --timeout: a hang fails one test, not the whole CI.
  export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_string_checks=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  timeout=(--timeout 900)
fi
KWB_BUILD_DIR=$build "$root/scripts/build.sh" -DKWB_CUDA_ARCHS="${KWB_CUDA_ARCHS:-90-real}" \
  -DKWB_WITH_CUDA="${KWB_WITH_CUDA:-AUTO}" "${kwb_build_flags[@]}"
export QT_QPA_PLATFORM=offscreen
ctest --test-dir "$build" --output-on-failure -j "${KWB_JOBS:-$(nproc)}" "${timeout[@]}" "$@"
