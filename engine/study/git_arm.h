// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <optional>
#include <string>

// A commit of the user's repository as an arm (docs/git-arms.md). A commit arm is a command arm or
// a worker arm whose environment names the commit: kwb new records the repository, the ref, the
// full commit id, the build command and the toolchain there (KWB_GIT_*), so the arm diff, the
// A/A rule and every reader see them as the arm's settings, and the program run knows its commit.
// kwb run builds the commit in a worktree of the cache (workloads/git/build_cache.h) and runs the
// arm there (its cwd).
namespace kwb {

struct Toolchain {
    std::string compiler; // first line of `${CXX:-c++} --version`
    std::string cuda; // nvcc's release line; empty: no nvcc
    std::string driver; // the NVIDIA driver version; empty: none here
};

struct GitArm {
    std::string repo; // the repository's top level, absolute
    std::string ref; // as given ("HEAD~1", "main", "WORKTREE")
    std::string sha; // the full commit id; for WORKTREE, HEAD's
    std::string diff_sha256; // WORKTREE only: sha256 of `git diff --binary HEAD` when kwb new ran
    std::string build; // the build command, run by /bin/sh -c in the worktree
    Toolchain toolchain;
};

// The ref naming the working tree as it is (kwb new --allow-dirty).
inline constexpr const char* kWorktreeRef = "WORKTREE";

// The commit of a command or worker arm; nullopt for any other arm.
std::optional<GitArm> git_arm_of(const Arm& arm);
// Records `git` in the arm's command or worker environment (the arm must have one).
void set_git_arm(Arm& arm, const GitArm& git);
// True when both arms of the experiment's A/B are commit arms.
bool is_git_experiment(const Experiment& e);
// The directory the arm runs in (its command's or worker's cwd); null for other arms.
std::string* arm_cwd(Arm& arm);
// "abc1234 (HEAD~1)", "abc1234+WORKTREE 9f2e1c0d" for messages and tables.
std::string short_commit(const GitArm& git);

} // namespace kwb
