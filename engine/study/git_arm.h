// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"
#include "util/json_reader.h"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

// A commit of the user's repository as an arm (docs/git-arms.md). A commit arm is a command arm or
// a worker arm with a commit: kwb new records the repository, the ref, the full commit id, the
// build command and the toolchain in Arm::git (schema 8; study/git_commit.h), so the arm diff
// ("git.sha", ...), the A/A rule and every reader see them as the arm's settings. kwb run builds
// the commit in a worktree of the cache (workloads/git/build_cache.h), runs the arm there (its
// cwd) and hands the program its commit as KWB_GIT_* at launch (git_environment).
namespace kwb {

// The ref naming the working tree as it is (kwb new --allow-dirty).
inline constexpr const char* kWorktreeRef = "WORKTREE";

// The commit of a command or worker arm; nullopt for any other arm.
std::optional<GitArm> git_arm_of(const Arm& arm);
// Records `git` as the arm's commit (the arm must be a command or worker arm).
void set_git_arm(Arm& arm, const GitArm& git);
// The variables a commit arm's program finds in its environment (KWB_GIT_REPO, KWB_GIT_REF,
// KWB_GIT_SHA, KWB_GIT_DIFF_SHA256 for WORKTREE, KWB_GIT_BUILD, KWB_GIT_CXX, KWB_GIT_CUDA,
// KWB_GIT_DRIVER); empty for any other arm. Set when it is launched, never stored in the file.
std::map<std::string, std::string> git_environment(const Arm& arm);
// `env` with the arm's git_environment on top.
std::map<std::string, std::string> launch_environment(const Arm& arm, std::map<std::string, std::string> env);

// The study file's "git" object of an arm (docs/study-format.md).
nlohmann::json git_arm_json(const GitArm& git);
// Throws FormatError naming the field.
GitArm git_arm_from(const JsonReader& r);
// True when both arms of the experiment's A/B are commit arms.
bool is_git_experiment(const Experiment& e);
// The directory the arm runs in (its command's or worker's cwd); null for other arms.
std::string* arm_cwd(Arm& arm);
// "abc1234 (HEAD~1)", "abc1234+WORKTREE 9f2e1c0d" for messages and tables.
std::string short_commit(const GitArm& git);

} // namespace kwb
