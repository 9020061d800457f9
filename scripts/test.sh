#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Command 2 of the README: install what is missing, build, and run the whole test suite.
# GPU tests (label gpu) skip with a message where no GPU is usable.
# KWB_SANITIZE=1 (.ci/run sets it) runs the engine and kwb (CLI) suites and the fuzz corpus replays
# (CTest labels engine, app, fuzz; not the Slurm cluster test) in a second pass instead, built with
# AddressSanitizer + UndefinedBehaviorSanitizer in a second build folder, CUDA and the GUI off
# (docs/reliability.md); the first pass runs the rest. Opt-in here: it compiles the engine, kwb and their tests a second time, a
# long wait for a newcomer's first answer on a small machine; CI always runs it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
# CI builds the GPU plugin for sm_90 only (a third of the time); packages build every default arch.
# The flags are demo.sh's (scripts/build-flags.sh). KWB_WITH_CUDA=AUTO again: where nvcc exists the
# plugin and its tests are built whatever an earlier configure of the folder said.
# With the sanitizer pass on, its suites (engine, app, fuzz) are built and run there only.
source "$root/scripts/build-flags.sh"
elsewhere=""
[ "${KWB_SANITIZE:-0}" != 0 ] && elsewhere="engine;app;fuzz"
"$root/scripts/build.sh" -DKWB_CUDA_ARCHS="${KWB_CUDA_ARCHS:-90-real}" -DKWB_WITH_CUDA=AUTO "${kwb_build_flags[@]}" \
  -DKWB_SUITES_ELSEWHERE="$elsewhere"
export QT_QPA_PLATFORM=offscreen
ctest --test-dir "${KWB_BUILD_DIR:-$root/build}" --output-on-failure -j "${KWB_JOBS:-$(nproc)}" "$@"

if [ "${KWB_SANITIZE:-0}" != 0 ]; then
  asan=${KWB_ASAN_BUILD_DIR:-$root/build-asan}
  # -O1 -g1 rather than RelWithDebInfo's -O2 -g: a third less compile time on 2 cores, and the
  # stack traces still name file and line.
  flags="-O1 -g1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
  # Only what the sanitized suites run (tests/CMakeLists.txt: tests_<folder>), kwb with them.
  KWB_BUILD_DIR=$asan KWB_BUILD_TARGETS="tests_engine tests_app tests_fuzz" "$root/scripts/build.sh" \
    -DKWB_WITH_CUDA=OFF -DKWB_WITH_GUI=OFF -DCMAKE_BUILD_TYPE=None \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined"
  # Leak checking is off: Qt's own one-time allocations would be reported; every other ASan and
  # UBSan finding ends the test that hit it. --timeout: a hang fails one test, not the whole CI.
  export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_string_checks=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  ctest --test-dir "$asan" --output-on-failure -j "${KWB_JOBS:-$(nproc)}" --timeout 900 \
    -L '^(engine|app|fuzz)$' -LE '^(gpu|slurm)$' "$@"
fi
