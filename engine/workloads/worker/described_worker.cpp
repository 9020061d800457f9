// SPDX-License-Identifier: GPL-3.0-or-later
// A worker's description as a Workload (its parameters with their domains, its metrics), the
// one-shot describe of `kwb new` (the checks of an arm's settings: worker_check.h).
#include "workloads/command/process.h"
#include "workloads/worker/worker_client.h"
#include "workloads/worker/worker_workload.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>

namespace kwb::worker {
namespace {

bool same_value(const nlohmann::json& a, const nlohmann::json& b)
{
    if (a.is_number() && b.is_number())
        return a.get<double>() == b.get<double>();
    return a == b;
}

std::vector<MetricSpec> worker_metrics(const WorkerDescription& d)
{
    std::vector<MetricSpec> out = {
        {"time_ms", "ms", Direction::Lower, "time per launch: the worker's timed region / launches"},
        {"gbs", "GB/s", Direction::Higher, "bytes per launch (prepare's bytes_per_launch) / time"},
        {"tflops", "TFLOP/s", Direction::Higher, "FLOP per launch (prepare's flop_per_launch) / time"},
    };
    for (const auto& m : d.metrics)
        if (std::none_of(out.begin(), out.end(), [&](const MetricSpec& s) { return s.name == m.name; }))
            out.push_back({m.name, m.unit, m.direction, fmt::format("reported by the worker {}", d.worker)});
    return out;
}

class DescribedWorker : public Workload {
public:
    explicit DescribedWorker(WorkerDescription d)
        : d_(std::move(d))
    {
    }
    std::string name() const override { return kWorkerWorkload; }
    std::string description() const override
    {
        return fmt::format("the worker {} (docs/worker-protocol.md)", d_.worker.empty() ? "(unnamed)" : d_.worker);
    }
    std::vector<Backend> backends() const override { return {Backend::Cpu, Backend::Cuda}; }
    std::vector<ParamSpec> params() const override
    {
        std::vector<ParamSpec> out;
        for (const auto& p : d_.params)
            out.push_back({p.name, p.default_value, p.values, p.description});
        if (!d_.find(kCacheParam))
            out.push_back({kCacheParam, "hot", {"hot", "cold"},
                "kwb's: hot (launches back to back) or cold (L2 flushed before each launch)"});
        return out;
    }
    std::vector<MetricSpec> metrics() const override { return worker_metrics(d_); }
    std::unique_ptr<PreparedWorkload> prepare(const nlohmann::json&, Backend) const override
    {
        throw WorkloadError("worker: an arm is prepared from its worker (Arm.worker)");
    }
    // A worker's listed values are its domain (unlike an embedded workload's demo values).
    void validate(const nlohmann::json& resolved, Backend) const override
    {
        for (const auto& p : params()) {
            if (p.values.empty() || !resolved.contains(p.name))
                continue;
            const auto& v = resolved[p.name];
            if (std::none_of(
                    p.values.begin(), p.values.end(), [&](const nlohmann::json& x) { return same_value(x, v); })) {
                std::string list;
                for (const auto& x : p.values)
                    list += (list.empty() ? "" : ", ") + x.dump();
                throw WorkloadError(
                    fmt::format("parameter '{}': {} is not one of the worker's values ({})", p.name, v.dump(), list));
            }
        }
    }

private:
    WorkerDescription d_;
};

} // namespace

std::unique_ptr<Workload> described_workload(const WorkerDescription& description)
{
    return std::make_unique<DescribedWorker>(description);
}

nlohmann::json worker_params(const WorkerDescription& d, const nlohmann::json& resolved)
{
    nlohmann::json out = nlohmann::json::object();
    for (const auto& p : d.params)
        out[p.name] = resolved.contains(p.name) ? resolved[p.name] : p.default_value;
    return out;
}

WorkerDescription describe_worker(const WorkerSpec& spec, const std::string& arm, int device)
{
    validate(spec, arm);
    try {
        WorkerClient client(spec, arm, device, nullptr);
        WorkerDescription d = client.describe();
        if (const auto problem = client.release(); !problem.empty())
            throw WorkloadError(fmt::format("worker `{}`: release: {}", spec.cmd, problem));
        return d;
    } catch (const WorkerFault& f) {
        const std::string tail = command::tail(f.stderr_tail(), 300);
        throw WorkloadError(
            fmt::format("worker `{}`: {}{}", spec.cmd, f.what(), tail.empty() ? "" : "; stderr: " + tail));
    } catch (const WorkerRequestFailed& f) {
        throw WorkloadError(fmt::format("worker `{}`: {}", spec.cmd, f.what()));
    }
}

} // namespace kwb::worker
