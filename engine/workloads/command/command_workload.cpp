// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/command/command_workload.h"

#include "hardware/nvml.h"
#include "study/git_arm.h"
#include "workloads/command/parse_budget.h"
#include "workloads/command/process.h"
#include "workloads/descriptions/builtin_descriptions.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

namespace kwb::command {
namespace {

namespace fs = std::filesystem;

// Samples the GPUs' used memory (all devices, summed) every 100 ms while a command runs. The
// reading includes other processes on the GPUs, which is why it is recorded, not judged.
class GpuMemoryPeak {
public:
    GpuMemoryPeak()
    {
        const auto& lib = nvml::Library::instance();
        if (!lib.available() || lib.device_count() < 1)
            return;
        thread_ = std::thread([this, &lib] {
            while (!stop_) {
                double total = 0;
                bool any = false;
                for (int i = 0; i < lib.device_count(); ++i)
                    if (const auto d = lib.device_by_index(i))
                        if (const auto used = d->read().memory_used_mib) {
                            total += *used;
                            any = true;
                        }
                if (any) {
                    std::lock_guard lock(mutex_);
                    peak_ = peak_ ? std::max(*peak_, total) : total;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
            }
        });
    }
    ~GpuMemoryPeak() { finish(); }
    std::optional<double> finish()
    {
        stop_ = true;
        if (thread_.joinable())
            thread_.join();
        std::lock_guard lock(mutex_);
        return peak_;
    }

private:
    std::atomic<bool> stop_ {false};
    std::thread thread_;
    std::mutex mutex_;
    std::optional<double> peak_;
};

std::string replace_all(std::string text, const std::string& from, const std::string& to)
{
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

// A fresh, not yet existing path for one repetition's result file.
fs::path fresh_result_path()
{
    static std::mt19937_64 rng(std::random_device {}());
    static std::mutex m;
    std::lock_guard lock(m);
    return fs::temp_directory_path() / fmt::format("kwb-out-{:016x}", rng());
}

// How long a teardown may run once a stop was asked for: it still runs (it may stop a container
// or free a port that kwb did not start), but the stop must not wait for its own timeout.
constexpr double kTeardownAfterStopS = 2;

std::size_t output_cap_bytes(const CommandSpec& s)
{
    return static_cast<std::size_t>(s.max_output_mib * 1024 * 1024);
}

ProcessSpec process_for(const CommandSpec& s, const std::string& command, const std::atomic<bool>* stop)
{
    ProcessSpec p {command, s.cwd, s.env, s.timeout_s};
    p.max_output_bytes = output_cap_bytes(s);
    p.stop = stop;
    return p;
}

// Teardowns do not watch the stop request (they are the cleanup after it) but are cut to a few
// seconds once it has come.
ProcessSpec teardown_for(const CommandSpec& s, const std::string& command, const std::atomic<bool>* stop)
{
    ProcessSpec p = process_for(s, command, nullptr);
    if (stop && stop->load())
        p.timeout_s = std::min(p.timeout_s, kTeardownAfterStopS);
    return p;
}

// The result file {out}, up to the cap; `error` says why not.
std::string read_result_file(const fs::path& p, const CommandSpec& s, std::string& error)
{
    std::error_code ec;
    const auto size = fs::file_size(p, ec);
    if (!ec && size > output_cap_bytes(s)) {
        error = fmt::format("the result file {{out}} ({}) holds {:.4g} MiB, more than {:.4g} MiB, the cap on captured "
                            "output (command.max_output_mib)",
            p.string(), static_cast<double>(size) / (1024.0 * 1024.0), s.max_output_mib);
        return {};
    }
    std::ifstream in(p, std::ios::binary);
    std::string text(output_cap_bytes(s) + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.size() > output_cap_bytes(s)) { // it grew after the size was taken
        error = fmt::format("the result file {{out}} ({}) holds more than {:.4g} MiB, the cap on captured output "
                            "(command.max_output_mib)",
            p.string(), s.max_output_mib);
        return {};
    }
    return text;
}

struct HelperOutcome {
    std::string error; // empty when it succeeded
    bool stopped = false; // ended by the stop request
};

// Runs a helper command (setup, teardown, check).
HelperOutcome run_helper(const std::string& what, const std::string& command, const ProcessSpec& spec)
{
    if (command.empty())
        return {};
    const auto r = run_process(spec);
    if (r.ok())
        return {};
    return {fmt::format("{} command `{}`: {}; stderr: {}", what, command, r.describe(), tail(r.err, 1024)), r.stopped};
}

class PreparedCommand : public PreparedWorkload {
public:
    PreparedCommand(CommandSpec spec, std::string arm)
        : spec_(std::move(spec))
        , arm_(std::move(arm))
    {
        validate(spec_, arm_);
    }
    ~PreparedCommand() override
    {
        if (set_up_ && !spec_.teardown.empty())
            (void)run_helper("teardown", spec_.teardown, teardown_for(spec_, spec_.teardown, cancel_));
    }
    void set_cancel(const std::atomic<bool>* cancel) override { cancel_ = cancel; }
    RepetitionResult run_once() override
    {
        RepetitionResult r;
        if (!set_up()) {
            r.interrupted = true;
            return r;
        }
        const Attempt a = run_attempt(spec_, cancel_);
        r.interrupted = a.interrupted;
        r.failed = !a.ok;
        r.error = a.error;
        r.exit_status = a.exit_status;
        r.stdout_tail = a.stdout_tail;
        r.stderr_tail = a.stderr_tail;
        r.adapter = a.adapter;
        r.fingerprint = a.reading.fingerprint;
        r.peak_gpu_mem_mib = a.peak_gpu_mem_mib;
        if (a.ok)
            r.metrics = a.reading.metrics;
        if (a.peak_gpu_mem_mib && a.ok)
            r.metrics["peak_gpu_mem_mib"] = *a.peak_gpu_mem_mib;
        return r;
    }
    VerifyResult verify() override
    {
        if (!set_up())
            return {false, 0, 0, "stopped before the check command ran"};
        return check_;
    }

private:
    // The arm's setup and check command, once, on first use rather than when the arm is prepared:
    // the runner hands the stop request over after preparing (set_cancel), and a setup must be
    // stoppable like everything else an arm runs. False when a stop cut them short; throws
    // WorkloadError when one failed.
    bool set_up()
    {
        if (set_up_ || interrupted_)
            return set_up_;
        if (const auto h = run_helper("setup", spec_.setup, process_for(spec_, spec_.setup, cancel_));
            !h.error.empty()) {
            if (h.stopped) {
                interrupted_ = true;
                return false;
            }
            throw WorkloadError(fmt::format("arm {}: {}", arm_, h.error));
        }
        set_up_ = true; // from here the teardown is owed
        if (!spec_.check.empty()) {
            const auto r = run_process(process_for(spec_, spec_.check, cancel_));
            if (r.stopped) {
                interrupted_ = true;
                return false;
            }
            check_.ok = r.ok();
            if (!r.ok())
                throw WorkloadError(fmt::format("arm {}: the check command failed ({}), so its output is not known "
                                                "correct; stderr: {}",
                    arm_, r.describe(), tail(r.err, 1024)));
            check_.detail = fmt::format("check command `{}` exited 0", spec_.check);
        } else {
            // Not a failure: nothing was compared. The missing gate "correctness: ... unverified"
            // records it (command_controls.h), and this detail says so in Arm.check.
            check_.ok = true;
            check_.detail = "unverified: no check command";
        }
        return true;
    }

    CommandSpec spec_;
    std::string arm_;
    VerifyResult check_;
    const std::atomic<bool>* cancel_ = nullptr;
    bool set_up_ = false;
    bool interrupted_ = false;
};

class CommandWorkload : public DescribedWorkload {
public:
    CommandWorkload()
        : DescribedWorkload(command_description())
    {
    }
    std::unique_ptr<PreparedWorkload> prepare(const nlohmann::json&, Backend) const override
    {
        throw WorkloadError("command: an arm needs a command (Arm.command), not parameters");
    }
    std::unique_ptr<PreparedWorkload> prepare_arm(const Arm& arm, Backend) const override
    {
        if (!arm.command)
            throw WorkloadError(fmt::format("command: arm {} has no command", arm.name));
        // A commit arm's program finds its commit in its environment (study/git_arm.h).
        CommandSpec spec = *arm.command;
        spec.env = launch_environment(arm, std::move(spec.env));
        return std::make_unique<PreparedCommand>(spec, arm.name);
    }
};

// Reads the output into metrics within the budget: the adapter named, or the first that
// recognises it. Sets a.ok, a.adapter and a.reading, or a.error (a.interrupted for a stop).
void read_output(Attempt& a, const CommandSpec& s, const std::string& text, bool to_file, double deadline_s,
    const std::atomic<bool>* stop)
{
    const ParseBudget budget(deadline_s, s.timeout_s, stop, text);
    try {
        budget.check();
        std::unique_ptr<Adapter> adapter = s.adapter == "auto" ? detect_adapter(text, s.adapter_options)
                                                               : make_adapter(s.adapter, s.adapter_options);
        if (!adapter) {
            a.error = fmt::format("no adapter recognises the {} (first bytes: '{}'); name one with --adapter",
                to_file ? "result file" : "output", text.substr(0, 80));
            return;
        }
        a.adapter = adapter->name();
        a.reading = adapter->read(text);
        a.ok = true;
    } catch (const ParseInterrupted& e) {
        a.interrupted = e.stopped();
        a.error = e.what();
    } catch (const AdapterError& e) {
        a.error = e.what();
    }
}

} // namespace

Attempt run_attempt(const CommandSpec& s, const std::atomic<bool>* stop)
{
    Attempt a;
    const auto each_teardown = [&] {
        return run_helper("per-repetition teardown", s.teardown_each, teardown_for(s, s.teardown_each, stop));
    };
    if (const auto h = run_helper("per-repetition setup", s.setup_each, process_for(s, s.setup_each, stop));
        !h.error.empty()) {
        a.interrupted = h.stopped;
        a.error = h.error;
        (void)each_teardown();
        return a;
    }
    const bool to_file = s.cmd.find("{out}") != std::string::npos;
    const fs::path out = to_file ? fresh_result_path() : fs::path();
    ProcessResult r;
    {
        GpuMemoryPeak peak;
        r = run_process(process_for(s, to_file ? replace_all(s.cmd, "{out}", out.string()) : s.cmd, stop));
        a.peak_gpu_mem_mib = peak.finish();
    }
    a.seconds = r.seconds;
    a.stdout_tail = tail(r.out, kTailBytes);
    a.stderr_tail = tail(r.err, kTailBytes);
    if (!r.spawn_failed && !r.timed_out && !r.stopped && r.output_capped.empty() && r.signal == 0)
        a.exit_status = r.exit_status;
    std::string text, file_error;
    if (to_file) {
        std::error_code ec;
        if (fs::exists(out, ec)) {
            if (r.ok())
                text = read_result_file(out, s, file_error);
            fs::remove(out, ec);
        }
    }
    if (!to_file)
        text = std::move(r.out);
    // The timeout runs from the command's start over its reading too (parse_budget.h).
    if (r.ok() && file_error.empty() && !(to_file && text.empty()))
        read_output(a, s, text, to_file, r.started_s + s.timeout_s, stop);
    const auto teardown = each_teardown();
    if (r.stopped || a.interrupted) {
        a.interrupted = true;
        a.ok = false;
        a.error = "stopped: the run was asked to stop (SIGINT or SIGTERM)";
        return a;
    }
    if (!teardown.error.empty() && r.ok()) {
        a.ok = false;
        a.error = teardown.error;
        return a;
    }
    if (!r.ok()) {
        a.error = fmt::format("the command failed: {}", r.describe());
        return a;
    }
    if (!file_error.empty()) {
        a.error = file_error;
        return a;
    }
    if (to_file && text.empty()) {
        a.error = fmt::format("the result file {{out}} ({}) is missing or empty", out.string());
        return a;
    }
    return a;
}

std::unique_ptr<Workload> make_command_workload()
{
    return std::make_unique<CommandWorkload>();
}

} // namespace kwb::command
