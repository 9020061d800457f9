// SPDX-License-Identifier: GPL-3.0-or-later
#include "ssh_session.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace kwb::cli {
namespace {

std::vector<std::string> full_argv(const std::string& host, const std::string& script)
{
    std::vector<std::string> argv = ssh_command();
    argv.push_back("--"); // a host that starts with '-' is a destination, not an option
    argv.push_back(host);
    argv.push_back("sh -c " + shell_quote(script)); // the login shell may be fish or csh
    return argv;
}

// Starts argv with pipes for the wanted standard streams; returns the child's pid.
pid_t spawn(const std::vector<std::string>& argv, int* in, int* out, int* err)
{
    int pin[2] = {-1, -1}, pout[2] = {-1, -1}, perr[2] = {-1, -1};
    if ((in && ::pipe2(pin, O_CLOEXEC) != 0) || ::pipe2(pout, O_CLOEXEC) != 0 || ::pipe2(perr, O_CLOEXEC) != 0)
        throw std::runtime_error(fmt::format("cannot make a pipe for ssh: {}", std::strerror(errno)));
    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0)
        throw std::runtime_error(fmt::format("cannot start ssh: {}", std::strerror(errno)));
    if (pid == 0) {
        const int null = ::open("/dev/null", O_RDONLY);
        ::dup2(in ? pin[0] : null, 0);
        ::dup2(pout[1], 1);
        ::dup2(perr[1], 2);
        ::signal(SIGPIPE, SIG_DFL);
        // Its own process group: a Ctrl-C at the terminal goes to kwb, which decides what the
        // remote run does, and does not cut the connection under it.
        ::setpgid(0, 0);
        ::execvp(args[0], args.data());
        std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
        ::_exit(127);
    }
    if (in) {
        ::close(pin[0]);
        *in = pin[1];
    }
    ::close(pout[1]);
    ::close(perr[1]);
    *out = pout[0];
    *err = perr[0];
    return pid;
}

int wait_exit(pid_t pid)
{
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) { }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool drain(int fd, std::string& into)
{
    char buffer[65536];
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
        into.append(buffer, static_cast<size_t>(n));
        return true;
    }
    return n < 0 && (errno == EINTR || errno == EAGAIN);
}

std::string last_line(const std::string& text)
{
    std::istringstream lines(text);
    std::string line, last;
    while (std::getline(lines, line))
        if (line.find_first_not_of(" \t\r") != std::string::npos)
            last = line;
    return last;
}

} // namespace

std::vector<std::string> ssh_command()
{
    std::vector<std::string> argv;
    const char* custom = std::getenv("KWB_SSH");
    std::istringstream words(custom && *custom ? custom : "ssh");
    for (std::string w; words >> w;)
        argv.push_back(w);
    for (const char* option : {"ServerAliveInterval=10", "ServerAliveCountMax=3", "ConnectTimeout=20"}) {
        argv.push_back("-o");
        argv.push_back(option);
    }
    return argv;
}

std::string shell_quote(std::string_view word)
{
    std::string quoted = "'";
    for (const char c : word)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

std::string remote_shell_path(std::string_view folder)
{
    if (folder.starts_with('/'))
        return shell_quote(folder);
    if (folder == "~")
        return "\"$HOME\"";
    if (folder.starts_with("~/"))
        folder.remove_prefix(2);
    return "\"$HOME\"/" + shell_quote(folder);
}

std::string ProcessResult::last_err_line() const
{
    return last_line(err);
}

ProcessResult ssh_run(const std::string& host, const std::string& script, std::string_view input)
{
    int in = -1, out = -1, err = -1;
    const pid_t pid = spawn(full_argv(host, script), &in, &out, &err);
    ProcessResult result;
    size_t written = 0;
    if (input.empty()) {
        ::close(in);
        in = -1;
    } else {
        ::fcntl(in, F_SETFL, O_NONBLOCK);
    }
    while (out >= 0 || err >= 0) {
        pollfd fds[3] = {{out, POLLIN, 0}, {err, POLLIN, 0}, {in, POLLOUT, 0}};
        if (::poll(fds, 3, -1) < 0 && errno != EINTR)
            break;
        if (fds[0].revents && !drain(out, result.out)) {
            ::close(out);
            out = -1;
        }
        if (fds[1].revents && !drain(err, result.err)) {
            ::close(err);
            err = -1;
        }
        if (in >= 0 && fds[2].revents) {
            const ssize_t n = ::write(in, input.data() + written, input.size() - written);
            if (n > 0)
                written += static_cast<size_t>(n);
            if ((n < 0 && errno != EAGAIN && errno != EINTR) || written == input.size()) {
                ::close(in);
                in = -1;
            }
        }
    }
    if (in >= 0)
        ::close(in);
    result.exit_code = wait_exit(pid);
    return result;
}

SshStream::SshStream(const std::string& host, const std::string& script)
{
    pid_ = spawn(full_argv(host, script), nullptr, &out_, &err_);
}

SshStream::~SshStream()
{
    if (pid_ > 0)
        finish(true);
}

bool SshStream::read(std::string& into, int timeout_ms)
{
    if (ended_)
        return false;
    pollfd fds[2] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}};
    if (::poll(fds, err_ >= 0 ? 2 : 1, timeout_ms) <= 0)
        return true;
    if (err_ >= 0 && fds[1].revents && !drain(err_, err_text_)) {
        ::close(err_);
        err_ = -1;
    }
    if (fds[0].revents && !drain(out_, into))
        ended_ = true;
    return !ended_;
}

int SshStream::finish(bool kill)
{
    if (pid_ <= 0)
        return -1;
    if (kill)
        ::kill(pid_, SIGTERM);
    if (err_ >= 0) {
        while (drain(err_, err_text_)) { }
        ::close(err_);
        err_ = -1;
    }
    ::close(out_);
    out_ = -1;
    const int code = wait_exit(pid_);
    pid_ = -1;
    return code;
}

std::string SshStream::last_err_line() const
{
    return last_line(err_text_);
}

} // namespace kwb::cli
