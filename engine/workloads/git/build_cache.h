// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/git_arm.h"
#include "study/git_cache_paths.h"

#include <atomic>
#include <filesystem>
#include <stdexcept>
#include <string>

// The per-repository cache of commit arms (docs/git-arms.md): one git worktree per commit (and
// per working-tree diff), the build run there once, its log kept, and the build reused while the
// commit and the build command are unchanged. Its layout (cache_root, repo_cache, build_key, the
// paths of a commit) is study/git_cache_paths.h's, which the window reads the logs through.
namespace kwb::git {

// A build that failed: the run ends (exit 1) naming the log; the worktree is removed, the log kept.
class BuildFailed : public std::runtime_error {
public:
    BuildFailed(const std::string& what, std::string log)
        : std::runtime_error(what)
        , log_(std::move(log))
    {
    }
    const std::string& log() const { return log_; }

private:
    std::string log_;
};

struct PreparedCommit {
    std::filesystem::path worktree;
    std::filesystem::path log;
    bool reused = false; // the build of an earlier run, its key unchanged
};

// The worktree of `git`'s commit, built. Throws BuildFailed (a failed build, the log named) or
// GitError (a worktree git could not make, a WORKTREE diff changed since kwb new).
PreparedCommit prepare_commit(const GitArm& git, const std::atomic<bool>* stop = nullptr);

} // namespace kwb::git
