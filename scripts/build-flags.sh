# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by demo.sh and test.sh: the cmake arguments both pass, so the window built by the first
# command is the one the second tests and neither rebuilds the other's objects.
# -O1 -g1 rather than RelWithDebInfo's -O2 -g: on 2 cores about 40% less compile time per file
# (measured: docs/reliability.md, CI time), with file and line in every stack trace (nvcc's -O is
# the host code's: device code is optimised by ptxas either way); the CPU backend's kernels are
# built at -O2 whatever the flags (kernels/cpu/CMakeLists.txt), so what they time is the same.
# ccache when it is installed (scripts/deps.txt installs it): a machine that keeps its cache
# rebuilds only what changed; a machine that starts cold every time (CI: .ci/run sets
# KWB_CCACHE=0) would only pay its few percent.
kwb_build_flags=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_CUDA_FLAGS_RELWITHDEBINFO="-O1 -DNDEBUG")
if [ "${KWB_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null 2>&1; then
  kwb_build_flags+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
