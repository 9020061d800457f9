// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/git/build_cache.h"

#include "report/sha256.h"
#include "util/atomic_file.h"
#include "workloads/command/process.h"
#include "workloads/git/git_repo.h"
#include "workloads/git/shell_quote.h"

#include <fmt/format.h>
#include <fstream>

namespace kwb::git {
namespace fs = std::filesystem;
namespace {

command::ProcessResult sh(const std::string& cmd, const std::string& cwd = {}, double timeout_s = 600)
{
    command::ProcessSpec spec;
    spec.command = cmd;
    spec.cwd = cwd;
    spec.timeout_s = timeout_s;
    spec.max_output_bytes = 256u << 20;
    return command::run_process(spec);
}

std::string read_text(const fs::path& p)
{
    std::ifstream in(p);
    std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
        s.pop_back();
    return s;
}

void remove_worktree(const std::string& repo, const fs::path& dir)
{
    (void)sh(fmt::format("git -C {} worktree remove --force {}", shell_quote(repo), shell_quote(dir.string())));
    std::error_code ec;
    fs::remove_all(dir, ec);
    (void)sh(fmt::format("git -C {} worktree prune", shell_quote(repo)));
}

} // namespace

PreparedCommit prepare_commit(const GitArm& g, const std::atomic<bool>* stop)
{
    const fs::path base = repo_cache(g.repo);
    const CommitCachePaths paths = commit_cache_paths(g);
    PreparedCommit p;
    p.worktree = paths.worktree;
    const fs::path marker = paths.marker;
    const std::string key = build_key(g);
    p.log = paths.log;
    std::error_code ec;
    fs::create_directories(base / "builds", ec);
    fs::create_directories(base / "logs", ec);
    if (ec)
        throw GitError(fmt::format("cannot create the build cache {}: {}", base.string(), ec.message()));
    if (fs::is_directory(p.worktree, ec) && read_text(marker) == key) {
        p.reused = true;
        return p;
    }
    fs::remove(marker, ec); // from here until the build succeeds, nothing claims a build
    if (!fs::is_directory(p.worktree / ".git", ec) && !fs::is_regular_file(p.worktree / ".git", ec)) {
        remove_worktree(g.repo, p.worktree); // a half-made one from a killed run
        fs::create_directories(p.worktree.parent_path(), ec);
        const auto add = sh(fmt::format("git -C {} worktree add --force --detach {} {}", shell_quote(g.repo),
            shell_quote(p.worktree.string()), g.sha));
        if (!add.ok())
            throw GitError(fmt::format("cannot make a worktree of {} in {}: {}", g.sha.substr(0, 12),
                p.worktree.string(), command::tail(add.err, 300)));
        if (!g.diff_sha256.empty()) {
            const std::string diff = worktree_diff(g.repo);
            if (report::sha256_hex(diff) != g.diff_sha256) {
                remove_worktree(g.repo, p.worktree);
                throw GitError(fmt::format("WORKTREE: the working tree of {} changed since kwb new (its diff's hash is "
                                           "no longer {}); make the study again",
                    g.repo, g.diff_sha256.substr(0, 12)));
            }
            const fs::path patch = base / "logs" / (commit_slug(g) + ".diff");
            write_file_atomically(patch, diff);
            if (!diff.empty()) {
                const auto apply
                    = sh(fmt::format("git apply --binary {}", shell_quote(patch.string())), p.worktree.string());
                if (!apply.ok()) {
                    remove_worktree(g.repo, p.worktree);
                    throw GitError(fmt::format("WORKTREE: the working tree's diff does not apply to {}: {}",
                        g.sha.substr(0, 12), command::tail(apply.err, 300)));
                }
            }
        }
    }
    command::ProcessSpec spec;
    spec.command = fmt::format("{{ {}\n}} 2>&1", g.build); // one stream: the log reads in order
    spec.cwd = p.worktree.string();
    spec.timeout_s = 3600;
    spec.max_output_bytes = 64u << 20;
    spec.stop = stop;
    const auto r = command::run_process(spec);
    write_file_atomically(p.log,
        fmt::format("$ {}\n# in {}\n# commit {}\n{}\n# {}\n", g.build, p.worktree.string(), g.sha, r.out,
            r.ok() ? std::string("ok") : r.describe()));
    if (!r.ok()) {
        remove_worktree(g.repo, p.worktree); // nothing half-made stays: the next run starts clean
        throw BuildFailed(
            fmt::format("the build of {} failed ({}); log: {}", short_commit(g), r.describe(), p.log.string()),
            p.log.string());
    }
    write_file_atomically(marker, key + "\n");
    return p;
}

} // namespace kwb::git
