// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/command/process.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fmt/format.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace kwb::command {
namespace {

double now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Kills the group, then reaps the leader; members that outlive the leader are killed too, since a
// SIGKILL to the group reaches every process still in it.
void kill_group(pid_t pgid)
{
    ::kill(-pgid, SIGKILL);
}

} // namespace

std::string ProcessResult::describe() const
{
    if (spawn_failed)
        return fmt::format("could not start: {}", error);
    if (timed_out)
        return fmt::format("timed out after {:.3g} s (process group killed)", seconds);
    if (signal != 0)
        return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
    return fmt::format("exit {}", exit_status);
}

std::string tail(const std::string& text, std::size_t max_bytes)
{
    if (text.size() <= max_bytes)
        return text;
    return fmt::format("[... {} earlier bytes cut; the last {} kept]\n", text.size() - max_bytes, max_bytes)
        + text.substr(text.size() - max_bytes);
}

ProcessResult run_process(const ProcessSpec& spec)
{
    ProcessResult r;
    int out_pipe[2], err_pipe[2];
    if (::pipe(out_pipe) != 0 || ::pipe(err_pipe) != 0) {
        r.spawn_failed = true;
        r.error = std::strerror(errno);
        return r;
    }
    const double start = now_s();
    const pid_t pid = ::fork();
    if (pid < 0) {
        r.spawn_failed = true;
        r.error = std::strerror(errno);
        for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
            ::close(fd);
        return r;
    }
    if (pid == 0) {
        // Child: only async-signal-safe calls until exec, except setenv (the child is single-threaded
        // from here on; fork copied one thread).
        ::setpgid(0, 0);
        ::dup2(out_pipe[1], STDOUT_FILENO);
        ::dup2(err_pipe[1], STDERR_FILENO);
        for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
            ::close(fd);
        ::signal(SIGPIPE, SIG_DFL);
        if (!spec.cwd.empty() && ::chdir(spec.cwd.c_str()) != 0) {
            const char msg[] = "kwb: cannot change to the working directory\n";
            (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
            ::_exit(127);
        }
        for (const auto& [k, v] : spec.env)
            ::setenv(k.c_str(), v.c_str(), 1);
        ::execle("/bin/sh", "sh", "-c", spec.command.c_str(), static_cast<char*>(nullptr), environ);
        ::_exit(127);
    }
    ::setpgid(pid, pid); // also from the parent: no race with a kill before the child ran setpgid
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);

    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    std::string* sinks[2] = {&r.out, &r.err};
    int open_fds = 2;
    bool exited = false;
    int status = 0;
    char buf[65536];
    while (true) {
        if (!exited) {
            const pid_t w = ::waitpid(pid, &status, WNOHANG);
            if (w == pid) {
                exited = true;
                // A child left behind still holds the pipes open: end the group so reading ends.
                kill_group(pid);
            }
        }
        if (exited && open_fds == 0)
            break;
        int wait_ms = 50;
        if (spec.timeout_s > 0 && !exited) {
            const double left = spec.timeout_s - (now_s() - start);
            if (left <= 0) {
                r.timed_out = true;
                kill_group(pid);
                ::waitpid(pid, &status, 0);
                exited = true;
                continue;
            }
            wait_ms = std::min(50, static_cast<int>(left * 1000) + 1);
        }
        if (open_fds == 0) {
            ::usleep(static_cast<useconds_t>(wait_ms) * 1000);
            continue;
        }
        const int n = ::poll(fds, 2, wait_ms);
        if (n < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
            if (got > 0) {
                sinks[i]->append(buf, static_cast<size_t>(got));
            } else if (got == 0 || errno != EINTR) {
                ::close(fds[i].fd);
                fds[i].fd = -1;
                --open_fds;
            }
        }
    }
    for (auto& f : fds)
        if (f.fd >= 0)
            ::close(f.fd);
    r.seconds = now_s() - start;
    if (!r.timed_out) {
        if (WIFEXITED(status))
            r.exit_status = WEXITSTATUS(status);
        else if (WIFSIGNALED(status))
            r.signal = WTERMSIG(status);
    }
    return r;
}

} // namespace kwb::command
