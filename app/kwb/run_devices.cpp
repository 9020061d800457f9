// SPDX-License-Identifier: GPL-3.0-or-later
#include "run_devices.h"

#include "builtin_workloads.h"
#include "commands.h"
#include "ledger_hook.h"
#include "progress_stream.h"
#include "run/fold_parts.h"
#include "run/progress_events.h"
#include "stop_signal.h"
#include "study/grid.h"
#include "study/new_attempt.h"
#include "study/study_file.h"
#include "study/study_lock.h"
#include "study/study_parts.h"
#include "util/atomic_file.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <poll.h>
#include <set>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace kwb::cli {
namespace {

template<typename... Args> void notice(fmt::format_string<Args...> format, Args&&... args)
{
    try {
        const std::string text = fmt::format(format, std::forward<Args>(args)...);
        std::fputs(text.c_str(), stderr);
        std::fflush(stderr);
    } catch (const std::exception&) {
    }
}

// One worker: `kwb run STUDY --cell ID --device D` in its own process group (a Ctrl-C at the
// terminal reaches the parent alone, which then stops each worker with one SIGTERM).
struct Worker {
    pid_t pid = -1;
    int device = 0;
    std::string id;
    int out = -1; // its stdout (the progress stream), with --json-progress
    std::string pending; // a line not yet ended
};

class Parent {
public:
    Parent(const DevicesRunRequest& r, Study& study, const std::atomic<bool>& stop)
        : r_(r)
        , study_(study)
        , stop_(stop)
    {
        char buffer[4096] = {};
        const ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
        exe_ = n > 0 ? std::string(buffer, static_cast<size_t>(n)) : std::string("kwb");
    }

    int run(std::deque<std::string> queue)
    {
        std::deque<int> free(r_.devices.begin(), r_.devices.end());
        while ((!queue.empty() && !ending()) || !workers_.empty()) {
            while (!ending() && !free.empty() && !queue.empty()) {
                spawn(queue.front(), free.front());
                queue.pop_front();
                free.pop_front();
            }
            if (stop_.load() && !stopping_) {
                stopping_ = true;
                for (const auto& w : workers_)
                    kill(w.pid, SIGTERM);
            }
            wait_a_little();
            for (size_t i = 0; i < workers_.size();) {
                int status = 0;
                if (waitpid(workers_[i].pid, &status, WNOHANG) != workers_[i].pid) {
                    ++i;
                    continue;
                }
                drain(workers_[i], true);
                free.push_back(workers_[i].device);
                finished(workers_[i], status);
                workers_.erase(workers_.begin() + static_cast<long>(i));
            }
        }
        if ((stopping_ || stop_.load()) && code_ == kOk) {
            code_ = kStopped;
            status_ = "stopped";
        }
        if (!r_.json_progress)
            for (const auto& grid : study_.grids)
                if (grid.interaction)
                    say_out(fmt::format("{}: interaction: {}\n", grid.id, grid.interaction->summary));
        set_exit_stream(-1, ""); // this is the end: an immediate exit from here adds none
        emit(progress::end_event(status_, code_));
        return code_;
    }

private:
    bool ending() const { return stopping_ || failed_ || stop_.load(); }

    void spawn(const std::string& id, int device)
    {
        std::vector<std::string> args {exe_, "run", r_.study, "--cell", id, "--device", std::to_string(device)};
        if (!r_.backend.empty())
            args.insert(args.end(), {"--backend", r_.backend});
        if (r_.no_cupti)
            args.push_back("--no-cupti");
        if (r_.json_progress)
            args.push_back("--json-progress");
        std::vector<char*> argv;
        for (auto& a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);

        int pipe_fds[2] = {-1, -1};
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        if (r_.json_progress) {
            // Close-on-exec: another worker must not inherit this pipe, or its end never comes.
            if (pipe2(pipe_fds, O_CLOEXEC) != 0)
                throw std::runtime_error(fmt::format("cannot make a pipe for a worker: {}", std::strerror(errno)));
            posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
        }
        posix_spawnattr_t attr;
        posix_spawnattr_init(&attr);
        sigset_t defaults;
        sigemptyset(&defaults);
        sigaddset(&defaults, SIGPIPE); // ignored here; a worker sets its own handling
        sigaddset(&defaults, SIGINT);
        sigaddset(&defaults, SIGTERM);
        sigset_t none;
        sigemptyset(&none);
        posix_spawnattr_setsigdefault(&attr, &defaults);
        posix_spawnattr_setsigmask(&attr, &none);
        posix_spawnattr_setpgroup(&attr, 0);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
        pid_t pid = -1;
        const int error = posix_spawn(&pid, exe_.c_str(), &actions, &attr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attr);
        if (pipe_fds[1] >= 0)
            close(pipe_fds[1]);
        if (error != 0) {
            if (pipe_fds[0] >= 0)
                close(pipe_fds[0]);
            fail(fmt::format("cannot start the worker for {} ({}): {}", id, exe_, std::strerror(error)));
            return;
        }
        if (pipe_fds[0] >= 0)
            fcntl(pipe_fds[0], F_SETFL, fcntl(pipe_fds[0], F_GETFL) | O_NONBLOCK);
        workers_.push_back({pid, device, id, pipe_fds[0], {}});
        if (!r_.json_progress)
            notice("kwb: {}: {} runs on device {} (worker PID {})\n", r_.study, id, device, pid);
    }

    // Waits up to 0.1 s for a worker's stream (or just sleeps when nothing is relayed).
    void wait_a_little()
    {
        std::vector<pollfd> fds;
        for (const auto& w : workers_)
            if (w.out >= 0)
                fds.push_back({w.out, POLLIN, 0});
        if (fds.empty()) {
            usleep(100'000);
            return;
        }
        if (poll(fds.data(), fds.size(), 100) <= 0)
            return;
        for (auto& w : workers_)
            drain(w, false);
    }

    // Relays the worker's complete lines, each with the device it runs on; its own `end` is the
    // parent's to write, once for the whole run.
    void drain(Worker& w, bool exited)
    {
        if (w.out < 0)
            return;
        char buffer[65536];
        for (;;) {
            const ssize_t n = read(w.out, buffer, sizeof buffer);
            if (n > 0) {
                w.pending.append(buffer, static_cast<size_t>(n));
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            if (n == 0 || exited || (n < 0 && errno != EAGAIN)) {
                close(w.out);
                w.out = -1;
            }
            break;
        }
        size_t start = 0;
        for (size_t end; (end = w.pending.find('\n', start)) != std::string::npos; start = end + 1) {
            auto line = nlohmann::json::parse(w.pending.substr(start, end - start), nullptr, false);
            if (!line.is_object() || !line.contains("type") || line["type"] == "end")
                continue;
            line["device"] = w.device;
            emit(line);
        }
        w.pending.erase(0, start);
    }

    void finished(const Worker& w, int status)
    {
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        if (code == kStopped) {
            stopping_ = true;
        } else if (code != kOk) {
            fail(WIFSIGNALED(status) ? fmt::format(
                     "the worker for {} on device {} was killed by signal {}", w.id, w.device, WTERMSIG(status))
                                     : fmt::format("the worker for {} on device {} exited {}", w.id, w.device, code));
        }
        fold(w.id);
    }

    void fold(const std::string& id)
    {
        const auto reports = fold_parts(builtin_workloads(), study_, r_.study, {id});
        for (const auto& report : reports)
            if (!report.changed && report.outcome != "unchanged")
                notice("kwb: {}: part of {}: {}\n", r_.study, report.id, report.outcome);
        if (!any_changed(reports))
            return;
        set_protected(true);
        try {
            save_study(study_, r_.study);
        } catch (const std::exception& e) {
            set_protected(false);
            // The part keeps the samples: kwb collect folds them later.
            fail(fmt::format("{} (the part {} keeps its samples; kwb collect folds it)", e.what(),
                part_path(r_.study, id).string()));
            return;
        }
        set_protected(false);
        index_in_ledger(r_.study, study_);
    }

    void fail(const std::string& message)
    {
        notice("kwb: {}: {}\n", r_.study, message);
        emit(progress::error_event(message, false));
        failed_ = true;
        if (code_ == kOk) {
            code_ = kRunFailed;
            status_ = "failed";
        }
    }

    void emit(const nlohmann::json& line)
    {
        if (!r_.json_progress)
            return;
        const std::string text = progress::line(line);
        if (std::fputs(text.c_str(), stdout) < 0 || std::fflush(stdout) != 0)
            request_stop(); // the reader went away: stop as on a signal (progress-stream.md)
    }

    void say_out(const std::string& text)
    {
        std::fputs(text.c_str(), stdout);
        std::fflush(stdout);
    }

    const DevicesRunRequest& r_;
    Study& study_;
    const std::atomic<bool>& stop_;
    std::string exe_;
    std::vector<Worker> workers_;
    bool stopping_ = false;
    bool failed_ = false;
    int code_ = kOk;
    std::string status_ = "done";
};

} // namespace

int run_on_devices(const DevicesRunRequest& r, const ExperimentCheck& check)
{
    const std::atomic<bool>& stop = install_stop_signals();
    set_exit_at_once(true);
    if (r.json_progress)
        end_stream_on_immediate_exit(stdout);
    std::set<int> distinct(r.devices.begin(), r.devices.end());
    if (distinct.size() != r.devices.size())
        throw BadInput("--devices: a device is listed twice (one worker per device)");
    LockHolder holder;
    std::optional<StudyLock> lock;
    try {
        lock = lock_study_for_exit(r.study, &holder);
    } catch (const std::exception& e) {
        throw BadInput(fmt::format("{} (kwb run locks the study while it runs)", e.what()));
    }
    if (!lock)
        throw BadInput(fmt::format(
            "{}: is being run by {} (one kwb run per study; wait for it or stop it)", r.study, holder.describe()));
    struct ReleaseAtExit {
        ~ReleaseAtExit() { set_exit_cleanup_path(""); }
    } release_at_exit;
    for (const auto& leftover : remove_stale_temporaries(r.study))
        notice("kwb: removed {}, left by a save that was cut short\n", leftover.string());
    Study study;
    try {
        study = load_study(r.study);
    } catch (const StudyLoadError& e) {
        throw BadInput(e.what());
    }
    // Parts an earlier spread-out run (or a Slurm task) finished but never folded come first, so
    // a cell done elsewhere is not run again.
    const auto leftovers = fold_parts(builtin_workloads(), study, r.study, {});
    std::deque<std::string> queue;
    for (auto& e : study.experiments)
        if (is_runnable(e)) {
            check(study, e);
            queue.push_back(e.id);
        }
    if (any_changed(leftovers) || !queue.empty()) {
        try {
            check_replaceable(r.study);
        } catch (const std::exception& e) {
            throw BadInput(fmt::format("{} (kwb run saves its results into the study)", e.what()));
        }
    }
    if (any_changed(leftovers))
        save_study(study, r.study);
    std::signal(SIGPIPE, SIG_IGN);
    if (queue.empty())
        notice("kwb: {}: no pending experiments (done and failed ones are not rerun)\n", r.study);
    set_exit_at_once(false);
    Parent parent(r, study, stop);
    return parent.run(std::move(queue));
}

} // namespace kwb::cli
