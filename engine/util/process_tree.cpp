// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/process_tree.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <map>
#include <set>
#include <string>
#include <unistd.h>

namespace kwb {
namespace {

// Reads a small /proc file whole; empty when it cannot.
std::string read_small(const char* path, std::size_t limit)
{
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return {};
    std::string out;
    char buf[4096];
    while (out.size() < limit) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0)
            break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return out;
}

} // namespace

std::optional<ProcessEntry> read_process(pid_t pid)
{
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    const std::string text = read_small(path, 4096);
    // "PID (COMM) STATE PPID PGRP SESSION ...": COMM may hold spaces and parentheses, so the
    // fields are counted from the last ')'.
    const auto close = text.rfind(')');
    if (close == std::string::npos || close + 2 >= text.size())
        return std::nullopt;
    ProcessEntry e;
    e.pid = pid;
    e.state = text[close + 2];
    const char* p = text.c_str() + close + 3;
    char* end = nullptr;
    // Fields after the state, from field 4: ppid, pgrp, session, tty_nr, tpgid, flags, minflt,
    // cminflt, majflt, cmajflt, utime, stime, cutime, cstime, priority, nice, num_threads,
    // itrealvalue, starttime (field 22).
    unsigned long long fields[19] = {};
    for (auto& f : fields) {
        f = static_cast<unsigned long long>(std::strtoll(p, &end, 10));
        if (end == p)
            return std::nullopt;
        p = end;
    }
    e.ppid = static_cast<pid_t>(fields[0]);
    e.pgid = static_cast<pid_t>(fields[1]);
    e.sid = static_cast<pid_t>(fields[2]);
    e.start_ticks = fields[18];
    return e;
}

std::vector<ProcessEntry> list_processes()
{
    std::vector<ProcessEntry> out;
    DIR* dir = ::opendir("/proc");
    if (!dir)
        return out;
    while (const dirent* d = ::readdir(dir)) {
        char* end = nullptr;
        const long pid = std::strtol(d->d_name, &end, 10);
        if (pid <= 0 || *end != '\0')
            continue;
        if (auto e = read_process(static_cast<pid_t>(pid)))
            out.push_back(*e);
    }
    ::closedir(dir);
    return out;
}

bool environ_contains(pid_t pid, std::string_view name_value)
{
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/environ", static_cast<int>(pid));
    // Environments are NUL-separated; a big one (a few MiB at most, ARG_MAX) is read whole.
    const std::string env = read_small(path, std::size_t {16} << 20);
    for (std::size_t at = 0; at < env.size();) {
        const std::size_t next = std::min(env.find('\0', at), env.size());
        if (std::string_view(env).substr(at, next - at) == name_value)
            return true;
        at = next + 1;
    }
    return false;
}

std::vector<pid_t> with_descendants(const std::vector<ProcessEntry>& processes, const std::vector<pid_t>& roots)
{
    std::multimap<pid_t, pid_t> children;
    for (const auto& p : processes)
        children.emplace(p.ppid, p.pid);
    std::set<pid_t> seen;
    std::vector<pid_t> out, todo(roots.begin(), roots.end());
    while (!todo.empty()) {
        const pid_t pid = todo.back();
        todo.pop_back();
        if (pid <= 0 || !seen.insert(pid).second)
            continue;
        out.push_back(pid);
        const auto [first, last] = children.equal_range(pid);
        for (auto it = first; it != last; ++it)
            todo.push_back(it->second);
    }
    return out;
}

} // namespace kwb
