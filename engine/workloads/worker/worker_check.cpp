// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/worker/worker_check.h"

#include "study/study.h"
#include "workloads/workload_description.h"

#include <filesystem>
#include <fmt/format.h>

namespace kwb::worker {

void validate(const WorkerSpec& s, const std::string& arm)
{
    if (s.cmd.empty())
        throw WorkloadError(fmt::format("arm {}: worker.cmd is empty", arm));
    if (!(s.timeout_s > 0))
        throw WorkloadError(fmt::format("arm {}: worker.timeout_s must be above 0 seconds", arm));
    if (!(s.max_output_mib >= kMinOutputMib && s.max_output_mib <= kMaxOutputMib))
        throw WorkloadError(fmt::format("arm {}: worker.max_output_mib {} must be between {} and {} (MiB)", arm,
            s.max_output_mib, kMinOutputMib, kMaxOutputMib));
    if (!s.cwd.empty() && !std::filesystem::is_directory(s.cwd))
        throw WorkloadError(fmt::format("arm {}: worker.cwd '{}' is not a directory", arm, s.cwd));
}

} // namespace kwb::worker
