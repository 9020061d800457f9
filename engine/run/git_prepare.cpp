// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/git_prepare.h"

#include "hardware/cuobjdump.h"
#include "study/git_arm.h"
#include "workloads/git/build_cache.h"
#include "workloads/git/git_repo.h"
#include "workloads/worker/worker_workload.h"

#include <fmt/format.h>

namespace kwb {

PreparedGitArms prepare_git_arms(Experiment& e, const std::atomic<bool>* stop)
{
    PreparedGitArms out;
    std::map<std::string, git::PreparedCommit> built; // by build key: equal commits build once
    std::map<std::string, KernelInventory> read; // by build key
    for (Arm& arm : e.arms) {
        const auto g = git_arm_of(arm);
        if (!g)
            continue;
        const std::string key = git::build_key(*g);
        auto it = built.find(key);
        if (it == built.end()) {
            git::PreparedCommit p = git::prepare_commit(*g, stop);
            out.notices.push_back(fmt::format("{}: {} {} in {} (log {})", e.id,
                p.reused ? "reused the build of" : "built", short_commit(*g), p.worktree.string(), p.log.string()));
            it = built.emplace(key, std::move(p)).first;
            read[key] = read_build_kernels(it->second.worktree);
        }
        *arm_cwd(arm) = it->second.worktree.string();
        if (arm.worker && arm.worker->description.worker.empty()) {
            try {
                WorkerSpec launched = *arm.worker; // its commit in its environment, as when it runs
                launched.env = launch_environment(arm, std::move(launched.env));
                arm.worker->description = worker::describe_worker(launched, arm.name);
            } catch (const WorkloadError& ex) {
                throw git::GitError(fmt::format("{}: arm {}: {}", e.id, arm.name, ex.what()));
            }
        }
        out.kernels[arm.name] = read[key];
    }
    return out;
}

} // namespace kwb
