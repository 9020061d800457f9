// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/git_arm.h"

#include <stdexcept>
#include <string>
#include <vector>

// The git a commit arm needs (docs/git-arms.md), through the git command: a repository's top
// level, a ref resolved to its full commit id, whether the tree is dirty, the working tree's diff.
namespace kwb::git {

// Something git refused or could not answer: one line naming the repository or the ref.
class GitError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The top level of the repository holding `dir` (absolute). Throws GitError when it is none.
std::string toplevel(const std::string& dir);
// The full commit id of `ref` ("HEAD~1", a tag, a branch, a short id; WORKTREE: HEAD's).
std::string resolve(const std::string& repo, const std::string& ref);
// Tracked files changed or staged (untracked files do not count: a build's outputs often are).
bool dirty(const std::string& repo);
// `git diff --binary HEAD`: what WORKTREE adds to HEAD.
std::string worktree_diff(const std::string& repo);
// The commits after `good` up to `bad` on the ancestry path, oldest first, `bad` last; throws
// GitError when `good` is not an ancestor of `bad`.
std::vector<std::string> commits_between(const std::string& repo, const std::string& good, const std::string& bad);
// The subject line of a commit, for tables.
std::string subject(const std::string& repo, const std::string& sha);

// What kwb new records for one side: the ref resolved, a dirty tree refused unless `allow_dirty`
// (then WORKTREE may be a side, recorded with its diff's hash). Throws GitError naming the option.
GitArm resolve_arm(const std::string& repo, const std::string& ref, bool allow_dirty, const std::string& option);

} // namespace kwb::git
