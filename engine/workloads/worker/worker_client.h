// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/worker_spec.h"
#include "workloads/worker/worker_process.h"
#include "workloads/workload.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

// kwb's side of the worker protocol, version 1 (docs/worker-protocol.md): one request at a time,
// each answer checked (its id, `ok`, the fields its op promises) before anything in it is used.
// A fault (garbage, a wrong id, a partial line, a crash, a hang past the timeout, a line over
// 1 MiB, a missing field) ends the worker's whole process group at once and throws WorkerFault
// with the reason and the stderr tail: the worker is unusable, never read as a number.
namespace kwb::worker {

inline constexpr int kProtocolVersion = 1;

// The documented per-message timeouts (the `time` request's is the arm's timeout_s).
inline constexpr double kHelloTimeoutS = 60;
inline constexpr double kDescribeTimeoutS = 60;
inline constexpr double kPrepareTimeoutS = 300;
inline constexpr double kVerifyTimeoutS = 300;
inline constexpr double kReleaseTimeoutS = 10;
inline constexpr double kExitWaitS = 5;

// The worker is gone or broke the protocol; its process group has been ended.
class WorkerFault : public WorkloadError {
public:
    WorkerFault(const std::string& what, std::string stderr_tail)
        : WorkloadError(what)
        , stderr_tail_(std::move(stderr_tail))
    {
    }
    const std::string& stderr_tail() const { return stderr_tail_; }

private:
    std::string stderr_tail_;
};

// The worker answered `ok: false`: that request failed, the worker lives on.
class WorkerRequestFailed : public WorkloadError {
public:
    using WorkloadError::WorkloadError;
};

// The run's stop request came while a request was out; the worker's group has been ended.
class WorkerStopped : public WorkloadError {
public:
    WorkerStopped()
        : WorkloadError("stopped: the run was asked to stop (SIGINT or SIGTERM)")
    {
    }
};

struct PrepareAnswer {
    std::optional<double> flop_per_launch, bytes_per_launch;
};

struct ReferenceAnswer {
    bool passed = false;
    std::optional<double> max_abs_error, max_rel_error, tolerance;
    std::string detail;
};

struct VerifyAnswer {
    long long elements = 0;
    std::optional<ReferenceAnswer> reference;
};

struct TimeAnswer {
    double total_ms = 0;
    std::vector<double> per_launch_ms; // cold only
    std::map<std::string, double> metrics;
};

class WorkerClient {
public:
    // Starts the worker (KWB_WORKER_PROTOCOL=1, KWB_DEVICE, KWB_ARM set) and says hello; throws
    // WorkerFault when it cannot start or its hello is not protocol 1.
    WorkerClient(const WorkerSpec& spec, const std::string& arm, int device, const std::atomic<bool>* stop);
    ~WorkerClient(); // ends the group (release() first for an orderly end)

    const std::string& worker_name() const { return name_; }
    WorkerDescription describe();
    PrepareAnswer prepare(const nlohmann::json& params, std::uint64_t seed);
    VerifyAnswer verify(std::uint64_t seed, const std::string& output_path);
    TimeAnswer time(int launches, bool cold);
    // release, then close stdin and wait for exit 0; the group is ended whatever the worker does.
    // Never throws. Returns the problem when the worker did not end cleanly (empty: it did).
    std::string release();

    std::string stderr_tail() const;
    pid_t pid() const;

private:
    nlohmann::json request(const std::string& op, nlohmann::json fields, double timeout_s);
    [[noreturn]] void fault(const std::string& what);

    WorkerSpec spec_;
    std::string arm_;
    const std::atomic<bool>* stop_ = nullptr;
    std::unique_ptr<WorkerProcess> process_;
    long long next_id_ = 1;
    std::string name_;
};

} // namespace kwb::worker
