// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"
#include "workloads/workload_description.h"

#include <string>

// What an external-command arm is, as the analysis library knows it: the workload's name, the
// check of an arm's CommandSpec before anything runs, and the description `kwb workloads` and the
// editors list (metrics: the adapters'). Running one is workloads/command/command_workload.h.
namespace kwb::command {

inline constexpr const char* kCommandWorkload = "command";

// Checks a command arm before it runs: a command, a positive timeout, an output cap in range, an
// existing cwd, a known adapter with valid options. Throws WorkloadError naming the field.
void validate(const CommandSpec& spec, const std::string& arm);

} // namespace kwb::command
