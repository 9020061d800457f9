// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/git_arm.h"

#include "study/arm_roles.h"

#include <fmt/format.h>

namespace kwb {

std::optional<GitArm> git_arm_of(const Arm& arm)
{
    if (!arm.command && !arm.worker)
        return std::nullopt;
    return arm.git;
}

void set_git_arm(Arm& arm, const GitArm& g)
{
    arm.git = g;
}

std::map<std::string, std::string> git_environment(const Arm& arm)
{
    const auto g = git_arm_of(arm);
    if (!g)
        return {};
    std::map<std::string, std::string> env {{"KWB_GIT_REPO", g->repo}, {"KWB_GIT_REF", g->ref}, {"KWB_GIT_SHA", g->sha},
        {"KWB_GIT_BUILD", g->build}, {"KWB_GIT_CXX", g->toolchain.compiler}, {"KWB_GIT_CUDA", g->toolchain.cuda},
        {"KWB_GIT_DRIVER", g->toolchain.driver}};
    if (!g->diff_sha256.empty())
        env["KWB_GIT_DIFF_SHA256"] = g->diff_sha256;
    return env;
}

std::map<std::string, std::string> launch_environment(const Arm& arm, std::map<std::string, std::string> env)
{
    for (auto& [k, v] : git_environment(arm))
        env[k] = std::move(v);
    return env;
}

nlohmann::json git_arm_json(const GitArm& g)
{
    return {{"repo", g.repo}, {"ref", g.ref}, {"sha", g.sha}, {"diff_sha256", g.diff_sha256}, {"build", g.build},
        {"toolchain",
            {{"compiler", g.toolchain.compiler}, {"cuda", g.toolchain.cuda}, {"driver", g.toolchain.driver}}}};
}

GitArm git_arm_from(const JsonReader& r)
{
    GitArm g;
    g.repo = r.string_or("repo", "");
    g.ref = r.string_or("ref", "");
    g.sha = r.string("sha");
    if (g.sha.empty())
        r.fail("sha", "expected the full commit id");
    g.diff_sha256 = r.string_or("diff_sha256", "");
    g.build = r.string_or("build", "");
    if (const auto t = r.optional_object("toolchain")) {
        g.toolchain.compiler = t->string_or("compiler", "");
        g.toolchain.cuda = t->string_or("cuda", "");
        g.toolchain.driver = t->string_or("driver", "");
    }
    return g;
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
