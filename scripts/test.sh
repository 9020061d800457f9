#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Command 2 of the README: install what is missing, build, and run the whole test suite.
# GPU tests (label gpu) skip with a message where no GPU is usable.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
export QT_QPA_PLATFORM=offscreen
ctest --test-dir "${KWB_BUILD_DIR:-$root/build}" --output-on-failure -j "${KWB_JOBS:-$(nproc)}" "$@"
