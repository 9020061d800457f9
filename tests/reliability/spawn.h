// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Starting kwb with chosen file descriptors (a pipe nobody reads, /dev/full, a closed pipe) and
// waiting for it with a generous limit: QProcess always reads its children's output, so it cannot
// stall a reader the way a hung GUI does.
#include <QByteArray>
#include <QString>
#include <QStringList>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <spawn.h>
#include <string>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace kwbtest {

struct Child {
    pid_t pid = -1;
    int status = 0;
    bool finished = false;
    // The exit code, or -1 when it did not exit normally (killed by a signal) or did not finish.
    int exit_code() const { return finished && WIFEXITED(status) ? WEXITSTATUS(status) : -1; }
};

// Starts `program args` with stdout on `out_fd` and stderr on `err_fd` (-1: inherit).
inline Child spawn(const QString& program, const QStringList& args, int out_fd, int err_fd = -1)
{
    std::vector<QByteArray> storage;
    storage.push_back(program.toLocal8Bit());
    for (const auto& a : args)
        storage.push_back(a.toLocal8Bit());
    std::vector<char*> argv;
    for (auto& s : storage)
        argv.push_back(s.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (out_fd >= 0)
        posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
    if (err_fd >= 0)
        posix_spawn_file_actions_adddup2(&fa, err_fd, STDERR_FILENO);
    Child c;
    if (posix_spawn(&c.pid, argv[0], &fa, nullptr, argv.data(), ::environ) != 0)
        c.pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    return c;
}

// Waits up to `limit_ms` (a hang still fails the test; the limit is not a timing claim).
inline bool wait_for(Child& c, int limit_ms = 120000)
{
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(limit_ms);
    while (std::chrono::steady_clock::now() < until) {
        const pid_t r = ::waitpid(c.pid, &c.status, WNOHANG);
        if (r == c.pid) {
            c.finished = true;
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ::kill(c.pid, SIGKILL);
    ::waitpid(c.pid, &c.status, 0);
    return false;
}

// Waits until the child catches `sig` (its bit in /proc/PID/status's SigCgt): a signal sent earlier
// would meet the default action, not kwb's handler, and a slow start (a sanitized build) makes that
// window long. False if it exited or did not install the handler within the limit.
inline bool wait_for_handler(const Child& c, int sig, int limit_ms = 60000)
{
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(limit_ms);
    const std::string path = "/proc/" + std::to_string(c.pid) + "/status";
    while (std::chrono::steady_clock::now() < until) {
        std::ifstream status(path);
        for (std::string line; std::getline(status, line);)
            if (line.rfind("SigCgt:", 0) == 0 && (std::stoull(line.substr(7), nullptr, 16) >> (sig - 1)) & 1)
                return true;
        if (!status.is_open() && ::waitpid(c.pid, nullptr, WNOHANG) != 0)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return false;
}

// Bytes waiting in a pipe's read end.
inline int pending_bytes(int read_fd)
{
    int n = 0;
    return ::ioctl(read_fd, FIONREAD, &n) == 0 ? n : -1;
}

} // namespace kwbtest
