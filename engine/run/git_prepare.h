// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/kernel_inventory.h"
#include "study/study.h"

#include <atomic>
#include <map>
#include <string>
#include <vector>

// What `kwb run` does to a commit experiment before it runs (docs/git-arms.md): each distinct
// commit built in its worktree, or its earlier build reused (workloads/git/build_cache.h), each
// arm's cwd set to its worktree, a worker arm described there, the kernels of each build read
// (hardware/cuobjdump.h). RunSession::plan asks it after the runnability rule passed.
namespace kwb {

struct PreparedGitArms {
    std::vector<std::string> notices; // "ab-1: built abc1234 (HEAD~1) in DIR (log LOG)"
    std::map<std::string, KernelInventory> kernels; // arm name -> its build's kernels
};

// Throws git::BuildFailed (exit 1, the log named) and git::GitError.
PreparedGitArms prepare_git_arms(Experiment& experiment, const std::atomic<bool>* stop = nullptr);

} // namespace kwb
