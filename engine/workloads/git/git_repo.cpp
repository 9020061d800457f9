// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/git/git_repo.h"

#include "report/sha256.h"
#include "workloads/command/process.h"
#include "workloads/git/shell_quote.h"

#include <filesystem>
#include <fmt/format.h>
#include <sstream>

namespace kwb::git {
namespace {

command::ProcessResult git(const std::string& repo, const std::string& args)
{
    command::ProcessSpec spec;
    spec.command = fmt::format("git -C {} {}", shell_quote(repo), args);
    spec.timeout_s = 120;
    spec.max_output_bytes = 512u << 20;
    spec.env.emplace("GIT_TERMINAL_PROMPT", "0"); // (operator[] = "0" trips GCC 12's false -Wrestrict)
    return command::run_process(spec);
}

std::string first_line(const std::string& s)
{
    const auto nl = s.find('\n');
    return s.substr(0, nl);
}

} // namespace

std::string toplevel(const std::string& dir)
{
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        throw GitError(fmt::format("--repo: {} is not a directory", dir));
    const auto r = git(dir, "rev-parse --show-toplevel");
    if (!r.ok())
        throw GitError(
            fmt::format("--repo: {} is not a git repository ({})", dir, r.spawn_failed ? r.error : first_line(r.err)));
    return first_line(r.out);
}

std::string resolve(const std::string& repo, const std::string& ref)
{
    const std::string name = ref == kWorktreeRef ? std::string("HEAD") : ref;
    if (name.empty() || name[0] == '-')
        throw GitError(fmt::format("'{}' is not a ref", ref));
    const auto r = git(repo, fmt::format("rev-parse --verify --quiet {}", shell_quote(name + "^{commit}")));
    const std::string sha = first_line(r.out);
    if (!r.ok() || sha.size() != 40)
        throw GitError(fmt::format("'{}' does not resolve to a commit in {}", ref, repo));
    return sha;
}

bool dirty(const std::string& repo)
{
    const auto r = git(repo, "status --porcelain --untracked-files=no");
    if (!r.ok())
        throw GitError(fmt::format("{}: git status failed: {}", repo, first_line(r.err)));
    return !r.out.empty();
}

std::string worktree_diff(const std::string& repo)
{
    const auto r = git(repo, "diff --binary HEAD");
    if (!r.ok())
        throw GitError(fmt::format("{}: git diff failed: {}", repo, first_line(r.err)));
    return r.out;
}

std::vector<std::string> commits_between(const std::string& repo, const std::string& good, const std::string& bad)
{
    const auto base = git(repo, fmt::format("merge-base --is-ancestor {} {}", good, bad));
    if (!base.ok())
        throw GitError(fmt::format("--good {} is not an ancestor of --bad {}", good.substr(0, 12), bad.substr(0, 12)));
    const auto r = git(repo, fmt::format("rev-list --reverse --ancestry-path {}..{}", good, bad));
    if (!r.ok())
        throw GitError(fmt::format("{}: git rev-list failed: {}", repo, first_line(r.err)));
    std::vector<std::string> out;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);)
        if (!line.empty())
            out.push_back(line);
    return out;
}

std::string subject(const std::string& repo, const std::string& sha)
{
    const auto r = git(repo, fmt::format("log -1 --format=%s {}", sha));
    return r.ok() ? first_line(r.out) : std::string();
}

GitArm resolve_arm(const std::string& repo, const std::string& ref, bool allow_dirty, const std::string& option)
{
    GitArm g;
    g.repo = repo;
    g.ref = ref;
    try {
        g.sha = resolve(repo, ref);
    } catch (const GitError& e) {
        throw GitError(fmt::format("{}: {}", option, e.what()));
    }
    if (ref == kWorktreeRef) {
        if (!allow_dirty)
            throw GitError(fmt::format("{}: WORKTREE (the working tree as it is) needs --allow-dirty", option));
        g.diff_sha256 = report::sha256_hex(worktree_diff(repo));
    }
    return g;
}

} // namespace kwb::git
