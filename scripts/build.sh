#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Configures and builds into ./build (override with KWB_BUILD_DIR). Extra arguments go to cmake.
# KWB_BUILD_TARGETS, a space-separated list, builds those targets only (default: all).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${KWB_BUILD_DIR:-$root/build}
jobs=${KWB_JOBS:-$(nproc)}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >"$build.configure.log" 2>&1 \
  || { cat "$build.configure.log" >&2; exit 1; }
grep -A30 "enabled features" "$build.configure.log" | grep -E '^ \*' >&2 || true
targets=()
[ -n "${KWB_BUILD_TARGETS:-}" ] && targets=(--target ${KWB_BUILD_TARGETS})
cmake --build "$build" -j "$jobs" "${targets[@]}"
