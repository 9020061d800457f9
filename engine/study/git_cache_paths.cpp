// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/git_cache_paths.h"

#include "report/sha256.h"

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>

namespace kwb::git {
namespace fs = std::filesystem;

fs::path cache_root()
{
    if (const char* own = std::getenv("KWB_GIT_CACHE"); own && *own)
        return own;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        return fs::path(xdg) / "kwb" / "git";
    const char* home = std::getenv("HOME");
    return fs::path(home && *home ? home : "/tmp") / ".cache" / "kwb" / "git";
}

fs::path repo_cache(const std::string& repo)
{
    const std::string name = fs::path(repo).filename().string();
    return cache_root() / fmt::format("{}-{}", name.empty() ? "repo" : name, report::sha256_hex(repo).substr(0, 12));
}

std::string build_key(const GitArm& g)
{
    return report::sha256_hex(fmt::format("{}\n{}\n{}", g.sha, g.diff_sha256, g.build)).substr(0, 16);
}

std::string commit_slug(const GitArm& g)
{
    return g.diff_sha256.empty() ? g.sha.substr(0, 12)
                                 : fmt::format("{}-{}", g.sha.substr(0, 12), g.diff_sha256.substr(0, 8));
}

CommitCachePaths commit_cache_paths(const GitArm& g)
{
    const fs::path base = repo_cache(g.repo);
    const std::string slug = commit_slug(g);
    return {base / "worktrees" / slug, base / "builds" / (slug + ".ok"),
        base / "logs" / fmt::format("{}-{}.log", slug, build_key(g))};
}

std::vector<CommitBuild> commit_builds(const Experiment& e)
{
    std::vector<CommitBuild> out;
    for (const Arm& arm : e.arms) {
        const auto g = git_arm_of(arm);
        if (!g)
            continue;
        const std::string key = build_key(*g);
        auto same = std::find_if(out.begin(), out.end(), [&](const CommitBuild& b) { return build_key(b.git) == key; });
        if (same == out.end())
            out.push_back({{arm.name}, *g, commit_cache_paths(*g)});
        else
            same->arms.push_back(arm.name);
    }
    return out;
}

} // namespace kwb::git
