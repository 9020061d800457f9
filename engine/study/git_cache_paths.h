// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/git_arm.h"
#include "study/study.h"

#include <filesystem>
#include <string>
#include <vector>

// Where the per-repository cache of commit arms keeps a commit's worktree, its build marker and its
// build log (docs/git-arms.md). One owner of these paths: kwb run's build cache
// (workloads/git/build_cache.h) writes there, and the window lists the logs from here without
// running git or a build.
//
//   $KWB_GIT_CACHE, else $XDG_CACHE_HOME/kwb/git, else ~/.cache/kwb/git
//     REPONAME-HASH/                   per repository (HASH: of its top level's path)
//       worktrees/SHA12[-DIFF8]/      the worktree
//       builds/SHA12[-DIFF8].ok       the build key of the last build that succeeded there
//       logs/SHA12[-DIFF8]-KEY.log    every build's log, kept
namespace kwb::git {

std::filesystem::path cache_root();
std::filesystem::path repo_cache(const std::string& repo);
// sha256 of the commit, the diff's hash and the build command, 16 hex digits.
std::string build_key(const GitArm& git);
// "SHA12" or "SHA12-DIFF8": the commit's name in the cache.
std::string commit_slug(const GitArm& git);

struct CommitCachePaths {
    std::filesystem::path worktree;
    std::filesystem::path marker; // builds/SLUG.ok
    std::filesystem::path log; // the log of this commit built by this build command
};
CommitCachePaths commit_cache_paths(const GitArm& git);

// One build of a commit experiment: each distinct commit and build command once, in arm order.
struct CommitBuild {
    std::vector<std::string> arms; // the arms that run this build
    GitArm git;
    CommitCachePaths paths;
};
std::vector<CommitBuild> commit_builds(const Experiment& experiment);

} // namespace kwb::git
