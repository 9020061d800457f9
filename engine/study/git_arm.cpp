// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/git_arm.h"

#include "study/arm_roles.h"

#include <fmt/format.h>

namespace kwb {
namespace {

const std::map<std::string, std::string>* env_of(const Arm& arm)
{
    if (arm.command)
        return &arm.command->env;
    if (arm.worker)
        return &arm.worker->env;
    return nullptr;
}

std::string get(const std::map<std::string, std::string>& env, const char* key)
{
    const auto it = env.find(key);
    return it == env.end() ? std::string() : it->second;
}

} // namespace

std::optional<GitArm> git_arm_of(const Arm& arm)
{
    const auto* env = env_of(arm);
    if (!env || !env->count("KWB_GIT_SHA"))
        return std::nullopt;
    GitArm g;
    g.repo = get(*env, "KWB_GIT_REPO");
    g.ref = get(*env, "KWB_GIT_REF");
    g.sha = get(*env, "KWB_GIT_SHA");
    g.diff_sha256 = get(*env, "KWB_GIT_DIFF_SHA256");
    g.build = get(*env, "KWB_GIT_BUILD");
    g.toolchain.compiler = get(*env, "KWB_GIT_CXX");
    g.toolchain.cuda = get(*env, "KWB_GIT_CUDA");
    g.toolchain.driver = get(*env, "KWB_GIT_DRIVER");
    return g;
}

void set_git_arm(Arm& arm, const GitArm& g)
{
    auto& env = arm.command ? arm.command->env : arm.worker->env;
    env["KWB_GIT_REPO"] = g.repo;
    env["KWB_GIT_REF"] = g.ref;
    env["KWB_GIT_SHA"] = g.sha;
    if (!g.diff_sha256.empty())
        env["KWB_GIT_DIFF_SHA256"] = g.diff_sha256;
    else
        env.erase("KWB_GIT_DIFF_SHA256");
    env["KWB_GIT_BUILD"] = g.build;
    env["KWB_GIT_CXX"] = g.toolchain.compiler;
    env["KWB_GIT_CUDA"] = g.toolchain.cuda;
    env["KWB_GIT_DRIVER"] = g.toolchain.driver;
}

bool is_git_experiment(const Experiment& e)
{
    if (ab_arm_count(e) != 2)
        return false;
    const AbArms ab = ab_arms(e);
    return git_arm_of(*ab.baseline).has_value() && git_arm_of(*ab.treatment).has_value();
}

std::string* arm_cwd(Arm& arm)
{
    if (arm.command)
        return &arm.command->cwd;
    if (arm.worker)
        return &arm.worker->cwd;
    return nullptr;
}

std::string short_commit(const GitArm& g)
{
    const std::string sha = g.sha.substr(0, 7);
    if (!g.diff_sha256.empty())
        return fmt::format("{}+{} {}", sha, kWorktreeRef, g.diff_sha256.substr(0, 8));
    return g.ref.empty() || g.ref == g.sha ? sha : fmt::format("{} ({})", sha, g.ref);
}

} // namespace kwb
