// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

// Runs a program (looked up on PATH) to its end and captures what it wrote: how kwb asks Slurm's
// tools (sbatch, squeue, scontrol) and nothing else. No shell is involved.
namespace kwb::cli {

struct ProcessOutput {
    int exit_code = -1; // -1: it could not start, or a signal ended it
    std::string out;
    std::string err;
    std::string start_error; // why it could not start (e.g. "No such file or directory")
};

ProcessOutput run_process(const std::vector<std::string>& argv);

} // namespace kwb::cli
