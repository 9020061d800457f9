// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/command/process.h"

#include "util/process_containment.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <string_view>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace kwb::command {
namespace {

// How long the pipes are still read after everything the command started was killed: what was
// written before is in the pipe and comes at once; a holder that could not be found (another
// user's process it passed the descriptor to) must not hold the repetition.
constexpr double kDrainAfterEndS = 0.5;

std::string mib_text(std::size_t bytes)
{
    return fmt::format("{:.4g} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

// The two pipes of a running command: read into the result, each up to the cap.
class Capture {
public:
    Capture(int out_fd, int err_fd, ProcessResult& r, std::size_t cap)
        : fds_ {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}}
        , sinks_ {&r.out, &r.err}
        , result_(r)
        , cap_(cap)
    {
    }
    ~Capture() { close_all(); }
    bool open() const { return fds_[0].fd >= 0 || fds_[1].fd >= 0; }
    // Waits up to `wait_ms` for output and reads what came. False once a stream passed the cap.
    bool pump(int wait_ms)
    {
        if (!open())
            return true;
        const int n = ::poll(fds_, 2, wait_ms);
        if (n <= 0)
            return true; // nothing yet, or a signal (EINTR): the caller looks at the clock and the stop flag
        for (int i = 0; i < 2; ++i) {
            if (fds_[i].fd < 0 || !(fds_[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const ssize_t got = ::read(fds_[i].fd, buf_, sizeof buf_);
            if (got > 0) {
                std::string& sink = *sinks_[i];
                sink.append(buf_, static_cast<size_t>(got));
                if (cap_ > 0 && sink.size() > cap_) {
                    sink.resize(cap_);
                    result_.output_capped = i == 0 ? "stdout" : "stderr";
                    return false;
                }
            } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
                ::close(fds_[i].fd);
                fds_[i].fd = -1;
            }
        }
        return true;
    }
    void close_all()
    {
        for (auto& f : fds_)
            if (f.fd >= 0) {
                ::close(f.fd);
                f.fd = -1;
            }
    }

private:
    pollfd fds_[2];
    std::string* sinks_[2];
    ProcessResult& result_;
    std::size_t cap_;
    char buf_[65536];
};

bool leader_exited(pid_t pid)
{
    siginfo_t info = {};
    // WNOWAIT: the leader stays a zombie, so its group id cannot be reused before the group is killed.
    return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

} // namespace

std::vector<std::string> child_environment(
    const std::map<std::string, std::string>& overrides, const ProcessContainment& containment)
{
    std::vector<std::string> out;
    for (char** e = environ; e && *e; ++e) {
        const std::string_view entry(*e);
        const std::string name(entry.substr(0, entry.find('=')));
        if (overrides.count(name) == 0 && name != kProcessTagVariable)
            out.emplace_back(entry);
    }
    for (const auto& [k, v] : overrides)
        out.push_back(k + "=" + v);
    out.push_back(containment.tag_entry());
    return out;
}

void exec_contained_child(pid_t parent, int in_fd, int out_fd, int err_fd, const char* cwd, char** argv, char** envp)
{
    // Only async-signal-safe calls until exec.
    ::setpgid(0, 0);
    // A kwb that is killed outright (SIGKILL, the OOM killer) cannot end the command; the kernel
    // then ends at least its leader. (It fires when the forking thread ends: the callers reap the
    // leader before that thread returns, so never early.)
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent)
        ::_exit(127); // kwb died before the line above
    if (in_fd >= 0)
        ::dup2(in_fd, STDIN_FILENO);
    ::dup2(out_fd, STDOUT_FILENO);
    ::dup2(err_fd, STDERR_FILENO);
    ::signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (cwd && *cwd && ::chdir(cwd) != 0) {
        const char msg[] = "kwb: cannot change to the working directory\n";
        (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
        ::_exit(127);
    }
    ::execve("/bin/sh", argv, envp);
    ::_exit(127);
}

std::string ProcessResult::describe() const
{
    if (spawn_failed)
        return fmt::format("could not start: {}", error);
    if (stopped)
        return "stopped: the run was asked to stop (SIGINT or SIGTERM), so the command was ended";
    if (!output_capped.empty())
        return fmt::format("wrote more than {} to {}, the cap on captured output (command.max_output_mib); ended",
            mib_text(max_output_bytes), output_capped);
    if (timed_out)
        return fmt::format("timed out after {:.3g} s (the command and everything it started were killed)", seconds);
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
    r.max_output_bytes = spec.max_output_bytes;
    int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
    // Close-on-exec: a command started meanwhile by another thread must not inherit these pipes.
    if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
        r.spawn_failed = true;
        r.error = std::strerror(errno);
        for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
            if (fd >= 0)
                ::close(fd);
        return r;
    }
    ProcessContainment containment;
    std::vector<std::string> env = child_environment(spec.env, containment);
    std::vector<char*> envp;
    for (auto& e : env)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string command = spec.command;
    char sh[] = "sh", dash_c[] = "-c";
    char* argv[] = {sh, dash_c, command.data(), nullptr};

    const pid_t parent = ::getpid();
    r.started_s = steady_now_s();
    const pid_t pid = ::fork();
    if (pid < 0) {
        r.spawn_failed = true;
        r.error = std::strerror(errno);
        for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
            ::close(fd);
        return r;
    }
    if (pid == 0)
        exec_contained_child(parent, -1, out_pipe[1], err_pipe[1], spec.cwd.c_str(), argv, envp.data());
    ::setpgid(pid, pid); // also from the parent: no race with a kill before the child ran setpgid
    containment.set_leader(pid);
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);

    Capture capture(out_pipe[0], err_pipe[0], r, spec.max_output_bytes);
    // Until the leader exits, or the timeout, the cap or a stop ends it.
    while (true) {
        if (leader_exited(pid))
            break;
        if (spec.stop && spec.stop->load()) {
            r.stopped = true;
            break;
        }
        int wait_ms = 50;
        if (spec.timeout_s > 0) {
            const double left = spec.timeout_s - (steady_now_s() - r.started_s);
            if (left <= 0) {
                r.timed_out = true;
                break;
            }
            wait_ms = std::min(wait_ms, static_cast<int>(left * 1000) + 1);
        }
        if (!capture.open()) {
            ::usleep(static_cast<useconds_t>(wait_ms) * 1000); // both pipes closed, the leader still runs
            continue;
        }
        if (!capture.pump(wait_ms))
            break; // past the cap
    }
    // Whatever ended it: the leader (if still running) and everything it started are killed now.
    r.others_killed = containment.end_all();
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) { }
    containment.leader_reaped();
    r.seconds = steady_now_s() - r.started_s;
    const bool cut_short = r.timed_out || r.stopped || !r.output_capped.empty();
    if (!cut_short) {
        // Read what was written before the end; the writers are gone, so the pipes close soon.
        const double until = steady_now_s() + kDrainAfterEndS;
        while (capture.open()) {
            const double left = until - steady_now_s();
            if (left <= 0)
                break;
            if (!capture.pump(static_cast<int>(left * 1000) + 1))
                break;
        }
        if (WIFEXITED(status))
            r.exit_status = WEXITSTATUS(status);
        else if (WIFSIGNALED(status))
            r.signal = WTERMSIG(status);
    }
    capture.close_all();
    return r;
}

} // namespace kwb::command
