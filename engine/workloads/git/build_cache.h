// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/git_arm.h"

#include <atomic>
#include <filesystem>
#include <stdexcept>
#include <string>

// The per-repository cache of commit arms (docs/git-arms.md): one git worktree per commit (and
// per working-tree diff), the build run there once, its log kept, and the build reused while the
// commit and the build command are unchanged.
//
//   $KWB_GIT_CACHE, else $XDG_CACHE_HOME/kwb/git, else ~/.cache/kwb/git
//     REPONAME-HASH/                   per repository (HASH: of its top level's path)
//       worktrees/SHA12[-DIFF8]/      the worktree
//       builds/SHA12[-DIFF8].ok       the build key of the last build that succeeded there
//       logs/SHA12[-DIFF8]-KEY.log    every build's log, kept
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

std::filesystem::path cache_root();
std::filesystem::path repo_cache(const std::string& repo);
// sha256 of the commit, the diff's hash and the build command, 16 hex digits.
std::string build_key(const GitArm& git);

struct PreparedCommit {
    std::filesystem::path worktree;
    std::filesystem::path log;
    bool reused = false; // the build of an earlier run, its key unchanged
};

// The worktree of `git`'s commit, built. Throws BuildFailed (a failed build, the log named) or
// GitError (a worktree git could not make, a WORKTREE diff changed since kwb new).
PreparedCommit prepare_commit(const GitArm& git, const std::atomic<bool>* stop = nullptr);

} // namespace kwb::git
