// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/worker/worker_workload.h"

#include "study/git_arm.h"
#include "workloads/command/process.h"
#include "workloads/cuda_workload.h"
#include "workloads/worker/output_check.h"
#include "workloads/worker/worker_client.h"

#include <filesystem>
#include <fmt/format.h>
#include <random>

namespace kwb::worker {
namespace {

namespace fs = std::filesystem;

inline constexpr std::size_t kTailBytes = 4096; // of stderr kept with a failed repetition

// A stderr tail inside a one-line message.
std::string one_line(const std::string& text, std::size_t bytes)
{
    std::string out = command::tail(text, bytes);
    for (char& c : out)
        if (c == '\n' || c == '\r')
            c = ' ';
    while (!out.empty() && out.back() == ' ')
        out.pop_back();
    return out;
}

fs::path fresh_output_dir()
{
    static std::mt19937_64 rng(std::random_device {}());
    const fs::path dir = fs::temp_directory_path() / fmt::format("kwb-worker-{:016x}", rng());
    fs::create_directories(dir);
    return dir;
}

class PreparedWorker : public PreparedWorkload {
public:
    explicit PreparedWorker(const Arm& arm)
        : spec_(*arm.worker)
        , arm_(arm.name)
    {
        spec_.env = launch_environment(arm, std::move(spec_.env)); // a commit arm's commit (study/git_arm.h)
        validate(spec_, arm_);
        const auto described = described_workload(spec_.description);
        resolved_ = resolve_params(*described, arm.params);
        described->validate(resolved_, Backend::Cpu);
        cold_ = resolved_.value(kCacheParam, std::string("hot")) == "cold";
        params_ = worker_params(spec_.description, resolved_);
        output_dir_ = fresh_output_dir();
    }
    ~PreparedWorker() override
    {
        // An orderly release, except after a stop: that must not wait for the worker.
        if (client_ && !(cancel_ && cancel_->load()))
            (void)client_->release();
        client_.reset();
        std::error_code ec;
        fs::remove_all(output_dir_, ec);
    }
    void set_cancel(const std::atomic<bool>* cancel) override { cancel_ = cancel; }
    bool set_launches(int launches) override
    {
        launches_ = std::max(1, launches);
        return true;
    }
    void set_verify_seed(std::uint64_t seed) override { verify_seed_ = seed; }
    bool verify_after_run() const override { return true; }

    RepetitionResult run_once() override
    {
        RepetitionResult r;
        r.adapter = kWorkerWorkload; // a worker that leaves the metric out fails that repetition
        if (!ensure_running(r))
            return r;
        try {
            const TimeAnswer t = client_->time(launches_, cold_);
            r.total_ms = t.total_ms;
            r.launches = launches_;
            const double ms = t.total_ms / launches_;
            r.metrics["time_ms"] = ms;
            if (ms > 0 && prepared_.bytes_per_launch && *prepared_.bytes_per_launch > 0)
                r.metrics["gbs"] = *prepared_.bytes_per_launch / (ms * 1e6);
            if (ms > 0 && prepared_.flop_per_launch && *prepared_.flop_per_launch > 0)
                r.metrics["tflops"] = *prepared_.flop_per_launch / (ms * 1e9);
            for (const auto& [k, v] : t.metrics)
                if (k != "time_ms")
                    r.metrics[k] = v;
            r.iterations = t.per_launch_ms;
        } catch (const WorkerStopped&) {
            client_.reset();
            r.interrupted = true;
        } catch (const WorkerFault& f) {
            client_.reset();
            fail(r, f.what(), f.stderr_tail());
            r.arm_lost = restarted_; // its one restart is spent
            if (r.arm_lost)
                r.error += "; the worker was already restarted once";
        } catch (const WorkerRequestFailed& f) {
            fail(r, f.what(), client_->stderr_tail());
        }
        return r;
    }

    VerifyResult verify() override
    {
        VerifyResult v;
        try {
            if (!client_) {
                RepetitionResult r;
                if (!ensure_running(r)) {
                    v.detail = r.interrupted ? "stopped before the check ran" : r.error;
                    return v;
                }
            }
            std::error_code ec;
            if (!last_output_.empty())
                fs::remove(last_output_, ec);
            last_output_ = (output_dir_ / fmt::format("{}-{}.f32", arm_, ++rounds_)).string();
            fs::remove(last_output_, ec);
            const VerifyAnswer a = client_->verify(verify_seed_ ? verify_seed_ : rounds_, last_output_);
            OutputFile file {last_output_, a.elements, spec_.atol, spec_.rtol, a.reference.has_value()};
            v.output = file;
            const OutputCheck c = check_output(file);
            if (!c.ok) {
                v.detail = fmt::format("worker {}: {}", worker_name(), c.detail);
                return v;
            }
            if (a.reference) {
                v.ok = a.reference->passed;
                v.max_abs_error = a.reference->max_abs_error.value_or(0);
                v.max_rel_error = a.reference->max_rel_error;
                v.tolerance = a.reference->tolerance.value_or(0);
                v.detail = fmt::format("worker {} against its reference ({}){}", worker_name(), c.detail,
                    a.reference->detail.empty() ? "" : ": " + a.reference->detail);
            } else {
                // Complete for the baseline (it is the reference); the runner compares the others.
                v.ok = true;
                v.detail = fmt::format("worker {}: {}; no reference callable: the baseline's output is the reference",
                    worker_name(), c.detail);
            }
        } catch (const WorkerStopped&) {
            client_.reset();
            v.detail = "stopped before the check ran";
        } catch (const WorkerFault& f) {
            client_.reset();
            v.detail = fmt::format("verify failed: {}; stderr: {}", f.what(), one_line(f.stderr_tail(), 300));
        } catch (const WorkerRequestFailed& f) {
            v.detail = f.what();
        }
        return v;
    }

private:
    std::string worker_name() const
    {
        return spec_.description.worker.empty() ? "`" + spec_.cmd + "`" : spec_.description.worker;
    }

    void fail(RepetitionResult& r, const std::string& what, const std::string& stderr_text)
    {
        r.failed = true;
        r.error = fmt::format("worker {}: {}", worker_name(), what);
        r.stderr_tail = command::tail(stderr_text, kTailBytes);
    }

    // Starts the worker on first use, or again after a fault (once per arm). False with `r` filled
    // (failed, arm_lost, or interrupted) when it is not running; throws WorkloadError when the first
    // start fails: the arm cannot run at all.
    bool ensure_running(RepetitionResult& r)
    {
        if (client_)
            return true;
        if (cancel_ && cancel_->load()) { // a stop: no start, and no restart spent on it
            r.interrupted = true;
            return false;
        }
        if (!started_) {
            try {
                start();
                started_ = true;
                return true;
            } catch (const WorkerStopped&) {
                client_.reset();
                r.interrupted = true;
                return false;
            } catch (const WorkerFault& f) {
                client_.reset();
                throw WorkloadError(fmt::format("arm {}: the worker did not start: {}; stderr: {}", arm_, f.what(),
                    one_line(f.stderr_tail(), 300)));
            } catch (const WorkerRequestFailed& f) {
                client_.reset();
                throw WorkloadError(fmt::format("arm {}: the worker did not start: {}", arm_, f.what()));
            }
        }
        if (restarted_) {
            fail(r, "the worker is gone after its one restart", "");
            r.arm_lost = true;
            return false;
        }
        restarted_ = true;
        try {
            start();
            return true;
        } catch (const WorkerStopped&) {
            client_.reset();
            r.interrupted = true;
        } catch (const WorkerFault& f) {
            client_.reset();
            fail(r, fmt::format("the restart failed: {}", f.what()), f.stderr_tail());
            r.arm_lost = true;
        } catch (const WorkerRequestFailed& f) {
            client_.reset();
            fail(r, fmt::format("the restart failed: {}", f.what()), "");
            r.arm_lost = true;
        }
        return false;
    }

    // hello, describe, prepare. The live description must still hold the arm's parameters and run
    // on the kind of device the study recorded: else its numbers would not be the study's.
    void start()
    {
        client_ = std::make_unique<WorkerClient>(spec_, arm_, selected_cuda_device(), cancel_);
        const WorkerDescription live = client_->describe();
        for (const auto& [name, value] : params_.items())
            if (!live.find(name))
                throw WorkloadError(fmt::format("arm {}: the worker no longer describes parameter '{}'; write the "
                                                "study again with kwb new",
                    arm_, name));
        if (live.device.kind != spec_.description.device.kind)
            throw WorkloadError(fmt::format("arm {}: the worker runs on {} now, the study recorded {}", arm_,
                live.device.kind, spec_.description.device.kind));
        prepared_ = client_->prepare(params_, kPrepareSeed);
    }

    WorkerSpec spec_;
    std::string arm_;
    nlohmann::json resolved_, params_;
    bool cold_ = false;
    int launches_ = 1;
    std::uint64_t verify_seed_ = 0;
    const std::atomic<bool>* cancel_ = nullptr;
    std::unique_ptr<WorkerClient> client_;
    PrepareAnswer prepared_;
    bool started_ = false, restarted_ = false;
    fs::path output_dir_;
    std::string last_output_;
    int rounds_ = 0;
};

class WorkerWorkload : public Workload {
public:
    std::string name() const override { return kWorkerWorkload; }
    std::string description() const override
    {
        return "a worker process per arm, started once per experiment and driven over the worker protocol "
               "(docs/worker-protocol.md)";
    }
    std::vector<Backend> backends() const override { return {Backend::Cpu, Backend::Cuda}; }
    std::vector<ParamSpec> params() const override { return {}; } // each arm's worker describes its own
    std::vector<MetricSpec> metrics() const override { return described_workload({})->metrics(); }
    std::unique_ptr<PreparedWorkload> prepare(const nlohmann::json&, Backend) const override
    {
        throw WorkloadError("worker: an arm needs a worker (Arm.worker), not parameters");
    }
    std::unique_ptr<PreparedWorkload> prepare_arm(const Arm& arm, Backend) const override
    {
        if (!arm.worker)
            throw WorkloadError(fmt::format("worker: arm {} has no worker", arm.name));
        return std::make_unique<PreparedWorker>(arm);
    }
};

} // namespace

std::unique_ptr<Workload> make_worker_workload()
{
    return std::make_unique<WorkerWorkload>();
}

} // namespace kwb::worker
