#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Command 1 of the README: install what is missing, build, and open the workbench on its demo study.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
exec "${KWB_BUILD_DIR:-$root/build}/bin/kernel-workbench" "$@"
