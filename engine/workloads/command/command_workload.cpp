// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/command/command_workload.h"

#include "hardware/nvml.h"
#include "workloads/command/process.h"

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

ProcessSpec process_for(const CommandSpec& s, const std::string& command)
{
    return {command, s.cwd, s.env, s.timeout_s};
}

std::string read_file(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Runs a helper command (setup, teardown, check); empty error when it succeeded.
std::string run_helper(const CommandSpec& s, const std::string& what, const std::string& command)
{
    if (command.empty())
        return {};
    const auto r = run_process(process_for(s, command));
    if (r.ok())
        return {};
    return fmt::format("{} command `{}`: {}; stderr: {}", what, command, r.describe(), tail(r.err, 1024));
}

class PreparedCommand : public PreparedWorkload {
public:
    PreparedCommand(CommandSpec spec, std::string arm)
        : spec_(std::move(spec))
        , arm_(std::move(arm))
    {
        validate(spec_, arm_);
        if (const auto e = run_helper(spec_, "setup", spec_.setup); !e.empty())
            throw WorkloadError(fmt::format("arm {}: {}", arm_, e));
        if (!spec_.check.empty()) {
            const auto r = run_process(process_for(spec_, spec_.check));
            check_.ok = r.ok();
            check_.detail = fmt::format("check command `{}`: {}", spec_.check, r.describe());
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
    }
    ~PreparedCommand() override
    {
        if (!spec_.teardown.empty())
            (void)run_helper(spec_, "teardown", spec_.teardown);
    }
    RepetitionResult run_once() override
    {
        const Attempt a = run_attempt(spec_);
        RepetitionResult r;
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
    VerifyResult verify() override { return check_; }

private:
    CommandSpec spec_;
    std::string arm_;
    VerifyResult check_;
};

class CommandWorkload : public Workload {
public:
    std::string name() const override { return kCommandWorkload; }
    std::string description() const override
    {
        return "an external benchmark command per arm, its output read through a metric adapter (docs/adapters.md)";
    }
    std::vector<Backend> backends() const override { return {Backend::Cpu}; } // a command picks its own devices
    std::vector<ParamSpec> params() const override { return {}; }
    std::vector<MetricSpec> metrics() const override
    {
        std::vector<MetricSpec> out;
        const auto add = [&](const KeySpec& k) {
            for (const auto& m : out)
                if (m.name == k.metric)
                    return;
            out.push_back({k.metric, k.unit, k.direction, k.description});
        };
        for (const auto& c : canonical_metrics())
            add(c);
        for (const auto& n : adapter_names())
            if (n != "keymap" && n != "regex")
                for (const auto& k : make_adapter(n)->keys())
                    if (k.metric.find_first_of("([ ") == std::string::npos)
                        add(k);
        return out;
    }
    std::unique_ptr<PreparedWorkload> prepare(const nlohmann::json&, Backend) const override
    {
        throw WorkloadError("command: an arm needs a command (Arm.command), not parameters");
    }
    std::unique_ptr<PreparedWorkload> prepare_arm(const Arm& arm, Backend) const override
    {
        if (!arm.command)
            throw WorkloadError(fmt::format("command: arm {} has no command", arm.name));
        return std::make_unique<PreparedCommand>(*arm.command, arm.name);
    }
};

} // namespace

void validate(const CommandSpec& s, const std::string& arm)
{
    if (s.cmd.empty())
        throw WorkloadError(fmt::format("arm {}: command.cmd is empty", arm));
    if (!(s.timeout_s > 0))
        throw WorkloadError(fmt::format("arm {}: command.timeout_s must be above 0 seconds", arm));
    if (!s.cwd.empty() && !fs::is_directory(s.cwd))
        throw WorkloadError(fmt::format("arm {}: command.cwd '{}' is not a directory", arm, s.cwd));
    if (s.adapter != "auto") {
        try {
            (void)make_adapter(s.adapter, s.adapter_options);
        } catch (const AdapterError& e) {
            throw WorkloadError(fmt::format("arm {}: command.adapter: {}", arm, e.what()));
        }
    }
}

Attempt run_attempt(const CommandSpec& s)
{
    Attempt a;
    if (const auto e = run_helper(s, "per-repetition setup", s.setup_each); !e.empty()) {
        a.error = e;
        return a;
    }
    const bool to_file = s.cmd.find("{out}") != std::string::npos;
    const fs::path out = to_file ? fresh_result_path() : fs::path();
    ProcessResult r;
    {
        GpuMemoryPeak peak;
        r = run_process(process_for(s, to_file ? replace_all(s.cmd, "{out}", out.string()) : s.cmd));
        a.peak_gpu_mem_mib = peak.finish();
    }
    a.seconds = r.seconds;
    a.stdout_tail = tail(r.out, kTailBytes);
    a.stderr_tail = tail(r.err, kTailBytes);
    if (!r.spawn_failed && !r.timed_out && r.signal == 0)
        a.exit_status = r.exit_status;
    std::string text;
    if (to_file) {
        std::error_code ec;
        if (fs::exists(out, ec)) {
            text = read_file(out);
            fs::remove(out, ec);
        }
    }
    if (const auto e = run_helper(s, "per-repetition teardown", s.teardown_each); !e.empty() && r.ok()) {
        a.error = e;
        return a;
    }
    if (!r.ok()) {
        a.error = fmt::format("the command failed: {}", r.describe());
        return a;
    }
    if (to_file && text.empty()) {
        a.error = fmt::format("the result file {{out}} ({}) is missing or empty", out.string());
        return a;
    }
    if (!to_file)
        text = r.out;
    try {
        std::unique_ptr<Adapter> adapter = s.adapter == "auto" ? detect_adapter(text, s.adapter_options)
                                                               : make_adapter(s.adapter, s.adapter_options);
        if (!adapter) {
            a.error = fmt::format("no adapter recognises the {} (first bytes: '{}'); name one with --adapter",
                to_file ? "result file" : "output", text.substr(0, 80));
            return a;
        }
        a.adapter = adapter->name();
        a.reading = adapter->read(text);
        a.ok = true;
    } catch (const AdapterError& e) {
        a.error = e.what();
    }
    return a;
}

std::unique_ptr<Workload> make_command_workload()
{
    return std::make_unique<CommandWorkload>();
}

} // namespace kwb::command
