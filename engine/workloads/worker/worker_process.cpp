// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/worker/worker_process.h"

#include "workloads/command/process.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace kwb::worker {
namespace {

void close_fd(int& fd)
{
    if (fd >= 0)
        ::close(fd);
    fd = -1;
}

void set_nonblocking(int fd)
{
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

// A write to a worker that has exited raises SIGPIPE, which would end kwb: blocked on this thread
// for the write, and a pending one taken back before the mask is restored.
class SigpipeBlock {
public:
    SigpipeBlock()
    {
        sigset_t pipe;
        sigemptyset(&pipe);
        sigaddset(&pipe, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &pipe, &old_);
    }
    ~SigpipeBlock()
    {
        sigset_t pipe;
        sigemptyset(&pipe);
        sigaddset(&pipe, SIGPIPE);
        const timespec zero {0, 0};
        while (sigtimedwait(&pipe, nullptr, &zero) > 0) { }
        pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    }

private:
    sigset_t old_;
};

} // namespace

WorkerProcess::WorkerProcess(const LaunchSpec& spec)
    : stderr_cap_(spec.stderr_cap_bytes)
{
    int in_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
    // Close-on-exec: another arm's worker, started later, must not inherit these pipes.
    if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
        const std::string why = std::strerror(errno);
        for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
            if (fd >= 0)
                ::close(fd);
        throw std::runtime_error(fmt::format("could not start: {}", why));
    }
    std::vector<std::string> env = command::child_environment(spec.env, containment_);
    std::vector<char*> envp;
    for (auto& e : env)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string cmd = spec.command;
    char sh[] = "sh", dash_c[] = "-c";
    char* argv[] = {sh, dash_c, cmd.data(), nullptr};
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        const std::string why = std::strerror(errno);
        for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
            ::close(fd);
        throw std::runtime_error(fmt::format("could not start: {}", why));
    }
    if (pid == 0) // stdin too: the requests come on it
        command::exec_contained_child(
            parent, in_pipe[0], out_pipe[1], err_pipe[1], spec.cwd.c_str(), argv, envp.data());
    ::setpgid(pid, pid);
    containment_.set_leader(pid);
    pid_ = pid;
    ::close(in_pipe[0]);
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    in_ = in_pipe[1];
    out_ = out_pipe[0];
    err_ = err_pipe[0];
    for (int fd : {in_, out_, err_})
        set_nonblocking(fd);
}

WorkerProcess::~WorkerProcess()
{
    end();
}

bool WorkerProcess::leader_exited()
{
    if (reaped_)
        return true;
    siginfo_t info = {};
    // WNOWAIT: the leader stays a zombie, so its group id cannot be reused before the group is killed.
    if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != pid_)
        return false;
    status_ = info.si_code == CLD_EXITED ? (info.si_status & 0xff) << 8 : (info.si_status & 0x7f);
    return true;
}

void WorkerProcess::pump(int wait_ms)
{
    pollfd fds[2] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}};
    if (out_too_long_)
        fds[0].fd = -1; // a line past the cap is not read further
    if (fds[0].fd < 0 && fds[1].fd < 0) {
        ::usleep(static_cast<useconds_t>(wait_ms) * 1000);
        return;
    }
    if (::poll(fds, 2, wait_ms) <= 0)
        return;
    char buf[65536];
    for (int i = 0; i < 2; ++i) {
        if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
        if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
            close_fd(i == 0 ? out_ : err_);
            continue;
        }
        if (got < 0)
            continue;
        if (i == 0) {
            out_buffer_.append(buf, static_cast<size_t>(got));
            const auto newline = out_buffer_.find('\n');
            if ((newline == std::string::npos && out_buffer_.size() > kMaxMessageBytes)
                || (newline != std::string::npos && newline > kMaxMessageBytes)) {
                out_too_long_ = true;
                out_buffer_.resize(std::min(out_buffer_.size(), kMaxMessageBytes));
            }
        } else {
            err_buffer_.append(buf, static_cast<size_t>(got));
            if (stderr_cap_ > 0 && err_buffer_.size() > stderr_cap_) {
                const size_t drop = err_buffer_.size() - stderr_cap_;
                err_buffer_.erase(0, drop);
                stderr_dropped_ += drop;
            }
        }
    }
}

bool WorkerProcess::write_all(const std::string& bytes, double deadline_s, const std::atomic<bool>* stop)
{
    const SigpipeBlock block;
    size_t done = 0;
    while (done < bytes.size()) {
        if (in_ < 0)
            return false;
        const ssize_t n = ::write(in_, bytes.data() + done, bytes.size() - done);
        if (n > 0) {
            done += static_cast<size_t>(n);
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            return false; // EPIPE: the worker is gone
        if (steady_now_s() > deadline_s || (stop && stop->load()))
            return false;
        pump(10); // a worker not reading its stdin may be writing; keep its pipes moving
    }
    return true;
}

bool WorkerProcess::has_unrequested_output()
{
    pump(0);
    return !out_buffer_.empty();
}

LineResult WorkerProcess::exchange(const std::string& request, double timeout_s, const std::atomic<bool>* stop)
{
    const double deadline = steady_now_s() + timeout_s;
    LineResult r;
    if (!write_all(request + "\n", deadline, stop)) {
        r.status = stop && stop->load() ? LineResult::Status::Stopped : LineResult::Status::WriteFailed;
        return r;
    }
    bool exited = false;
    while (true) {
        if (const auto newline = out_buffer_.find('\n'); newline != std::string::npos && !out_too_long_) {
            r.status = LineResult::Status::Line;
            r.line = out_buffer_.substr(0, newline);
            out_buffer_.erase(0, newline + 1);
            return r;
        }
        if (out_too_long_) {
            r.status = LineResult::Status::TooLong;
            return r;
        }
        // Stdout closed, or the leader gone (a child it left may hold the pipe): one last read of
        // what was written before, then the partial line if any.
        if (out_ < 0 || exited) {
            r.status = LineResult::Status::Closed;
            r.line = out_buffer_;
            return r;
        }
        if (stop && stop->load()) {
            r.status = LineResult::Status::Stopped;
            return r;
        }
        const double left = deadline - steady_now_s();
        if (left <= 0) {
            r.status = LineResult::Status::Timeout;
            return r;
        }
        exited = leader_exited();
        pump(exited ? 0 : std::min(50, static_cast<int>(left * 1000) + 1));
    }
}

bool WorkerProcess::close_and_wait(double timeout_s)
{
    close_fd(in_);
    const double deadline = steady_now_s() + timeout_s;
    while (!leader_exited()) {
        if (steady_now_s() > deadline)
            return false;
        pump(20);
    }
    return WIFEXITED(status_) && WEXITSTATUS(status_) == 0;
}

void WorkerProcess::end()
{
    if (pid_ <= 0 || reaped_)
        return;
    pump(0); // what it wrote to stderr before the end belongs in its tail
    containment_.end_all();
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) { }
    containment_.leader_reaped();
    if (!leader_exited())
        status_ = status;
    reaped_ = true;
    close_fd(in_);
    close_fd(out_);
    close_fd(err_);
}

std::string WorkerProcess::exit_text()
{
    if (!leader_exited())
        return {};
    if (WIFEXITED(status_))
        return fmt::format("exit {}", WEXITSTATUS(status_));
    if (WIFSIGNALED(status_))
        return fmt::format("killed by signal {} ({})", WTERMSIG(status_), strsignal(WTERMSIG(status_)));
    return "ended";
}

std::string WorkerProcess::stderr_tail(std::size_t bytes) const
{
    const std::string tail = command::tail(err_buffer_, bytes);
    if (stderr_dropped_ > 0 && tail.size() == err_buffer_.size())
        return fmt::format("[... {} earlier bytes cut]\n", stderr_dropped_) + tail;
    return tail;
}

} // namespace kwb::worker
