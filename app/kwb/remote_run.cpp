// SPDX-License-Identifier: GPL-3.0-or-later
// The remote side is plain files in one folder per study, so any later ssh session can find the
// run again: the study, `stream.jsonl` (the progress stream), `stderr.txt`, `kwb.pid`, and `exit`
// (the exit status, written when kwb ends). kwb is started under setsid/nohup with every standard
// stream on a file: a dropped connection cannot reach it. Following a run is `tail -F` of the
// stream over ssh from the last byte relayed, so a reconnect resumes without gaps or repeats.
#include "remote_run.h"

#include "commands.h"
#include "ledger_hook.h"
#include "progress_stream.h"
#include "remote_hosts.h"
#include "run/progress_events.h"
#include "ssh_session.h"
#include "stop_signal.h"
#include "study/remote_marker.h"
#include "study/study_file.h"
#include "study/study_lock.h"
#include "util/atomic_file.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <unistd.h>

namespace kwb::cli {
namespace {

constexpr const char* kDefaultRemoteDir = ".kwb/runs";
constexpr int kReconnectAttempts = 6; // 1+2+4+8+16+16 s: a minute of a lost network

// SIGHUP (a closed terminal, the window closing mid-run) only lets go of the run: it goes on there.
std::atomic<bool> g_detach {false};
extern "C" void on_hangup(int)
{
    g_detach.store(true);
}

std::string this_host()
{
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0)
        return "localhost";
    return name;
}

template<typename... Args> void note(fmt::format_string<Args...> format, Args&&... args)
{
    try {
        std::fputs((fmt::format(format, std::forward<Args>(args)...) + "\n").c_str(), stderr);
        std::fflush(stderr);
    } catch (const std::exception&) {
    }
}

std::string trimmed(std::string s)
{
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' '))
        s.pop_back();
    return s;
}

// The remote kwb's notices, each naming the host it comes from: "kwb: gpu-01: no GPU: ...".
void relay_notices(const std::string& host, const std::string& text)
{
    for (size_t start = 0; start < text.size();) {
        const auto end = text.find('\n', start);
        const auto line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (!line.empty())
            note("{}", line.starts_with("kwb: ") ? fmt::format("kwb: {}: {}", host, line.substr(5)) : line);
        start = end == std::string::npos ? text.size() : end + 1;
    }
}

// The remote kwb cannot take the run (it does not start, or it is another release): the one kind of
// refusal that `kwb remote install HOST` cures, so the stream names that remedy (docs/progress-stream.md).
class RemoteKwbUnusable : public BadInput {
public:
    using BadInput::BadInput;
};

// The version check: one line naming both versions when the remote kwb is another release, since
// the two exchange a study file and a stream whose formats belong to a version.
void check_remote_version(const std::string& host, const std::string& remote_kwb)
{
    const auto r = ssh_run(host, shell_quote(remote_kwb) + " --version");
    if (r.exit_code == 255)
        throw std::runtime_error(fmt::format("{}: ssh failed: {}", host, r.last_err_line()));
    if (r.exit_code != 0)
        throw RemoteKwbUnusable(fmt::format("{}: cannot run the remote kwb '{}' (--remote-kwb names it): {}; kwb "
                                            "remote install {} puts this version there",
            host, remote_kwb,
            r.last_err_line().empty() ? fmt::format("exit status {}", r.exit_code) : r.last_err_line(), host));
    const std::string theirs = trimmed(r.out);
    const std::string ours = "kwb " KWB_VERSION;
    if (theirs != ours)
        throw RemoteKwbUnusable(fmt::format("{}: version skew: the remote kwb '{}' is {} and this one is {}; install "
                                            "the same version there, e.g. kwb remote install {} (a study and its "
                                            "progress stream belong to a version)",
            host, remote_kwb, theirs.empty() ? "of no version" : theirs, ours, host));
}

// With --json-progress the refusal is also the stream's error line, naming the remedy, and its end.
void check_remote_version_for_run(const std::string& host, const std::string& remote_kwb, bool json_progress)
{
    try {
        check_remote_version(host, remote_kwb);
    } catch (const RemoteKwbUnusable& e) {
        if (json_progress) {
            const nlohmann::json remedy = {{"kind", "remote-install"}, {"host", host}};
            std::fputs(progress::line(progress::error_event(e.what(), false, remedy)).c_str(), stdout);
            std::fputs(progress::line(progress::end_event("failed", kBadInput)).c_str(), stdout);
            std::fflush(stdout);
        }
        throw;
    }
}

// The state of the remote folder: none, running, finished (exit written) or died (no exit).
std::string state_script(const std::string& folder)
{
    return fmt::format("d={}; if [ -f \"$d/exit\" ]; then echo finished; elif [ -f \"$d/kwb.pid\" ] && kill -0 "
                       "\"$(cat \"$d/kwb.pid\")\" 2>/dev/null; then echo running; elif [ -f \"$d/kwb.pid\" ]; then "
                       "sleep 1; if [ -f \"$d/exit\" ]; then echo finished; else echo died; fi; else echo none; fi",
        remote_shell_path(folder));
}

class Relay {
public:
    Relay(const RemoteRunOptions& o, std::string host)
        : o_(o)
        , host_(std::move(host))
    {
    }

    // Takes the complete lines of `bytes` (the rest waits for more); returns false once stdout is gone.
    void feed(std::string& bytes)
    {
        size_t start = 0;
        for (size_t nl; (nl = bytes.find('\n', start)) != std::string::npos; start = nl + 1) {
            const std::string line = bytes.substr(start, nl - start);
            offset_ += line.size() + 1;
            handle(line);
        }
        bytes.erase(0, start);
    }
    std::uint64_t offset() const { return offset_; }
    bool output_gone() const { return output_gone_; }
    bool saw_end() const { return saw_end_; }

private:
    void handle(const std::string& line)
    {
        const auto event = nlohmann::json::parse(line, nullptr, false);
        if (event.is_object()) {
            const int v = event.value("v", kProgressStreamVersion);
            if (v != kProgressStreamVersion && !skew_named_) {
                skew_named_ = true;
                note("kwb: {}: version skew: the remote progress stream is version {} and this kwb reads version {}",
                    host_, v, kProgressStreamVersion);
            }
            const std::string type = event.value("type", "");
            if (type == "end")
                saw_end_ = true;
            if (!o_.json_progress)
                summarise(type, event);
        }
        if (o_.json_progress && !output_gone_) {
            const std::string text = line + "\n";
            if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
                output_gone_ = true; // the reader went away: stop the run as a local one would
        }
    }

    void summarise(const std::string& type, const nlohmann::json& e)
    {
        if (type == "start")
            note("kwb: {}: running {} ({} on {})", host_, e.value("experiment", ""), e.value("workload", ""),
                e.value("backend", ""));
        else if (type == "error")
            note("kwb: {}: {}", host_, e.value("message", ""));
        else if (type == "verdict") {
            const auto word = [](const nlohmann::json& v) {
                return v.is_object() ? v.value("verdict", std::string("-")) : std::string("-");
            };
            fmt::print("{}: {}; sample verdict {}; final verdict {}\n", e.value("experiment", ""),
                e.value("stop_reason", ""), word(e.value("verdict", nlohmann::json())),
                word(e.value("final_verdict", nlohmann::json())));
            std::fflush(stdout);
        }
    }

    const RemoteRunOptions& o_;
    std::string host_;
    std::uint64_t offset_ = 0;
    bool skew_named_ = false;
    bool output_gone_ = false;
    bool saw_end_ = false;
};

std::string launch_script(const std::string& folder, const std::string& name, const std::string& remote_kwb,
    const std::vector<std::string>& run_arguments)
{
    std::string command = shell_quote(remote_kwb) + " run " + shell_quote(name) + " --json-progress";
    for (const auto& a : run_arguments)
        command += " " + shell_quote(a);
    // The detached part: kwb's pid for stopping and following it; its status once it ends.
    const std::string detached = command
        + " > stream.jsonl 2> stderr.txt < /dev/null & echo $! > kwb.pid.tmp && mv kwb.pid.tmp kwb.pid; wait $!; "
          "echo $? > exit.tmp && mv exit.tmp exit";
    return fmt::format("set -e; d={0}; mkdir -p \"$d\"; cd \"$d\"; "
                       "if [ -f kwb.pid ] && [ ! -f exit ] && kill -0 \"$(cat kwb.pid)\" 2>/dev/null; then "
                       "echo \"kwb: a run of this study is already going on in $d\" >&2; exit 3; fi; "
                       "rm -f exit kwb.pid stream.jsonl stderr.txt; cat > {1}.upload; mv {1}.upload {1}; "
                       "setsid nohup sh -c {2} > /dev/null 2>&1 < /dev/null & "
                       "i=0; while [ ! -f kwb.pid ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; [ -f kwb.pid ]",
        remote_shell_path(folder), shell_quote(name), shell_quote(detached));
}

std::string parent_dir_of(const std::string& folder)
{
    const auto slash = folder.rfind('/');
    return slash == std::string::npos ? std::string(".") : folder.substr(0, slash);
}

} // namespace

std::string remote_folder_for(const std::string& study, const std::string& remote_dir)
{
    std::error_code ec;
    auto absolute = std::filesystem::weakly_canonical(std::filesystem::absolute(study), ec);
    if (ec)
        absolute = std::filesystem::absolute(study);
    std::uint64_t hash = 1469598103934665603ull; // FNV-1a: stable across builds and machines
    for (const char c : this_host() + ":" + absolute.string()) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 1099511628211ull;
    }
    std::string dir = remote_dir.empty() ? kDefaultRemoteDir : remote_dir;
    while (dir.size() > 1 && dir.back() == '/')
        dir.pop_back();
    return fmt::format("{}/{}-{:016x}", dir, absolute.filename().string(), hash);
}

int run_remote(const RemoteRunOptions& o)
{
    const std::atomic<bool>& stop = install_stop_signals();
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGHUP, on_hangup);
    // The local study is this process's while it sends, follows and fetches; between sessions the
    // record beside it says a remote run owns it.
    LockHolder holder;
    std::optional<StudyLock> lock;
    try {
        lock = StudyLock::try_acquire(o.study, &holder);
    } catch (const std::exception& e) {
        throw BadInput(fmt::format("{} (kwb run locks the study while it runs)", e.what()));
    }
    if (!lock)
        throw BadInput(fmt::format(
            "{}: is being run by {} (one kwb run per study; wait for it or stop it)", o.study, holder.describe()));
    std::optional<RemoteRun> record;
    try {
        record = read_remote_marker(o.study);
    } catch (const std::exception& e) {
        throw BadInput(e.what());
    }
    if (record && !o.host.empty() && record->host != o.host)
        throw BadInput(fmt::format("{}: is being run on {}, not {} (kwb run {} --attach follows it)", o.study,
            record->describe(), o.host, o.study));
    if (o.attach && !record)
        throw BadInput(fmt::format("{}: --attach: no remote run owns this study (no {} beside it)", o.study,
            remote_marker_path(o.study).filename().string()));

    RemoteRun run;
    if (record) {
        run = *record;
        if (!o.remote_kwb.empty())
            run.remote_kwb = o.remote_kwb;
    } else {
        run.host = o.host;
        run.remote_kwb = remote_kwb_for(o.host, o.remote_kwb);
        run.remote_folder = remote_folder_for(o.study, o.remote_dir);
        run.study_name = std::filesystem::path(o.study).filename().string();
        run.local_host = this_host();
        run.started_at = utc_now_iso8601();
    }
    check_remote_version_for_run(run.host, run.remote_kwb, o.json_progress);
    const std::string& host = run.host;
    const std::string folder = remote_shell_path(run.remote_folder);

    if (!record) {
        std::string text;
        try {
            text = read_file(o.study);
            parse_study(text, o.study);
        } catch (const std::exception& e) {
            throw BadInput(e.what());
        }
        if (stop.load())
            return kStopped;
        write_remote_marker(o.study, run); // before the launch: a run there is never unrecorded here
        const auto r
            = ssh_run(host, launch_script(run.remote_folder, run.study_name, run.remote_kwb, o.run_arguments), text);
        if (r.exit_code != 0) {
            remove_remote_marker(o.study);
            if (r.exit_code == 255)
                throw std::runtime_error(fmt::format("{}: ssh failed: {}", host, r.last_err_line()));
            throw BadInput(fmt::format("{}: cannot start the run in {}: {}", host, run.remote_folder,
                r.last_err_line().empty() ? fmt::format("exit status {}", r.exit_code) : r.last_err_line()));
        }
        note("kwb: {}: started in {} (a dropped connection leaves it running: kwb run {} --attach follows it again)",
            host, run.remote_folder, o.study);
    } else {
        note("kwb: {}: attaching to the run in {} (started {})", host, run.remote_folder, run.started_at);
    }

    Relay relay(o, host);
    std::string pending;
    bool stop_sent = false;
    int failures = 0;
    std::string state;
    const auto send_stop = [&] {
        if (stop_sent)
            return;
        // Sent once it got there: a stop asked while the connection is down is sent on reconnecting.
        stop_sent
            = ssh_run(host, fmt::format("kill -INT \"$(cat {}/kwb.pid)\" 2>/dev/null; true", folder)).exit_code == 0;
    };
    while (true) {
        {
            SshStream stream(host,
                fmt::format("cd {} && exec tail -c +{} -s 0.2 --pid=\"$(cat kwb.pid)\" -F stream.jsonl 2>/dev/null",
                    folder, relay.offset() + 1));
            pending.clear();
            while (!g_detach.load() && stream.read(pending, 100)) {
                const auto before = relay.offset();
                relay.feed(pending);
                if (relay.offset() != before)
                    failures = 0;
                if ((stop.load() || relay.output_gone()) && !stop_sent)
                    send_stop();
            }
            relay.feed(pending);
            stream.finish(g_detach.load());
        }
        if (g_detach.load()) {
            note("kwb: {}: detached; the run goes on there (kwb run {} --attach follows it again)", host, o.study);
            return kStopped;
        }
        // The stream ended: the run ended, or the connection did. The state and the unread rest of
        // the stream in one call.
        const auto r = ssh_run(host,
            fmt::format("{}; cd {} && tail -c +{} stream.jsonl 2>/dev/null; true", state_script(run.remote_folder),
                folder, relay.offset() + 1));
        if (r.exit_code == 0) {
            const auto nl = r.out.find('\n');
            state = r.out.substr(0, nl);
            if (state == "finished" || state == "died") {
                std::string rest = nl == std::string::npos ? std::string() : r.out.substr(nl + 1);
                relay.feed(rest);
                break;
            }
            if (state == "none")
                throw std::runtime_error(fmt::format("{}: the run's folder {} is gone; the study there is lost, this "
                                                     "copy is as it was sent (remove {} to run it again)",
                    host, run.remote_folder, remote_marker_path(o.study).string()));
        }
        if (++failures > kReconnectAttempts) {
            note("kwb: {}: cannot reach the host ({}); the run goes on there: kwb run {} --attach follows it again",
                host, r.last_err_line().empty() ? "the stream keeps ending" : r.last_err_line(), o.study);
            return kRunFailed;
        }
        note("kwb: {}: the connection was lost; reattaching (the run goes on there)", host);
        for (int waited = 0; waited < std::min(16, 1 << (failures - 1)) * 10 && !stop.load() && !g_detach.load();
             ++waited)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        if (stop.load() && !stop_sent)
            send_stop();
    }

    // The run ended there: its status, its notices, and the study, which replaces this copy only
    // once it arrived whole and loads.
    const auto status
        = ssh_run(host, fmt::format("cd {} && cat exit 2>/dev/null; cat stderr.txt >&2 2>/dev/null; true", folder));
    relay_notices(host, status.err);
    int code = kRunFailed;
    try {
        code = std::stoi(trimmed(status.out));
    } catch (const std::exception&) {
        note("kwb: {}: the remote kwb ended without an exit status (killed?); fetching what it saved", host);
    }
    if (code != kOk && code != kRunFailed && code != kBadInput && code != kFailOn && code != kStopped) {
        // Killed there (137: SIGKILL, the OOM killer): every save before it is in the study.
        note("kwb: {}: the remote kwb was killed (exit status {}); fetching what it saved", host, code);
        code = kRunFailed;
    }
    const auto fetched = ssh_run(host, fmt::format("cat {}/{}", folder, shell_quote(run.study_name)));
    if (fetched.exit_code != 0)
        throw std::runtime_error(fmt::format("{}: cannot fetch the study from {}: {}; it stays there (kwb run {} "
                                             "--attach fetches it)",
            host, run.remote_folder, fetched.last_err_line(), o.study));
    try {
        parse_study(fetched.out, fmt::format("{}:{}/{}", host, run.remote_folder, run.study_name));
    } catch (const std::exception& e) {
        throw std::runtime_error(
            fmt::format("the study fetched from {} does not load ({}); this copy is unchanged", host, e.what()));
    }
    write_file_atomically(o.study, fetched.out);
    remove_remote_marker(o.study);
    index_in_ledger(o.study); // the machine that holds the study indexes it (docs/ledger.md)
    ssh_run(host,
        fmt::format(
            "rm -rf {} && rmdir {} 2>/dev/null; true", folder, remote_shell_path(parent_dir_of(run.remote_folder))));
    note("kwb: {}: the study is back in {} (remote exit status {})", host, o.study, code);
    if (!relay.saw_end() && o.json_progress && !relay.output_gone()) {
        // A run that died without its last line: the stream still ends, as the contract says.
        const std::string status_word = code == kOk ? "done" : code == kStopped ? "stopped" : "failed";
        std::fputs(progress::line(progress::end_event(status_word, code)).c_str(), stdout);
        std::fflush(stdout);
    }
    return code;
}

int devices_remote(const std::string& host, const std::string& remote_kwb, bool json)
{
    const std::string kwb = remote_kwb_for(host, remote_kwb);
    const auto r
        = ssh_run(host, fmt::format("{0} --version && {0} devices{1}", shell_quote(kwb), json ? " --json" : ""));
    if (r.exit_code == 255)
        throw std::runtime_error(fmt::format("{}: ssh failed: {}", host, r.last_err_line()));
    const auto nl = r.out.find('\n');
    const std::string version = r.out.substr(0, nl);
    if (r.exit_code != 0 && nl == std::string::npos)
        throw BadInput(fmt::format("{}: cannot run the remote kwb '{}' (--remote-kwb names it): {}", host, kwb,
            r.last_err_line().empty() ? fmt::format("exit status {}", r.exit_code) : r.last_err_line()));
    if (version != "kwb " KWB_VERSION)
        note(
            "kwb: {}: version skew: the remote kwb '{}' is {} and this one is kwb {}", host, kwb, version, KWB_VERSION);
    relay_notices(host, r.err);
    std::fputs(nl == std::string::npos ? "" : r.out.c_str() + nl + 1, stdout);
    return r.exit_code;
}

} // namespace kwb::cli
