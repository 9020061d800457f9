// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "workloads/workload.h"

#include <string>
#include <vector>

// The engine's check rule of a worker arm's output (docs/worker-protocol.md, verify), one rule
// whatever the worker says: the file holds exactly `elements` float32 values, none NaN or
// infinite (the worker poisoned the buffer with NaN before the call, so an element the kernel did
// not write shows), and, for an arm without a reference callable, every element within the
// tolerance of the baseline's output for the same seed: |t - b| <= atol + rtol * |b|.
namespace kwb::worker {

struct OutputCheck {
    bool ok = false;
    std::string detail; // what was compared, or the first problem found
    double max_abs_error = 0;
    double max_rel_error = 0;
    double tolerance = 0; // the bound at the worst element (atol + rtol * |b|)
};

// Reads `file`: exactly elements * 4 bytes of little-endian float32, all finite. On a problem
// `values` is left empty and the problem returned; empty when the file is sound.
std::string read_output(const OutputFile& file, std::vector<float>& values);

// The sanity half of the rule for one file (size and finiteness).
OutputCheck check_output(const OutputFile& file);

// The treatment's file against the baseline's, element by element, under the treatment's
// tolerance; both files are read and checked first.
OutputCheck compare_with_baseline(const OutputFile& treatment, const OutputFile& baseline);

} // namespace kwb::worker
