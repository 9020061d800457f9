#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Configures and builds into ./build (override with KWB_BUILD_DIR). Extra arguments go to cmake.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${KWB_BUILD_DIR:-$root/build}
jobs=${KWB_JOBS:-$(nproc)}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >"$build.configure.log" 2>&1 \
  || { cat "$build.configure.log" >&2; exit 1; }
grep -A30 "enabled features" "$build.configure.log" | grep -E '^ \*' >&2 || true
cmake --build "$build" -j "$jobs"
