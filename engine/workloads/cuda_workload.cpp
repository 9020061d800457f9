// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/cuda_workload.h"

#include "hardware/gpu_backend.h"

#include <fmt/format.h>

namespace kwb {
namespace {

const KwbGpuBackendApi& api_or_throw(const std::string& workload)
{
    const auto* api = GpuBackend::instance().api();
    if (!api)
        throw WorkloadError(fmt::format(
            "{}: the GPU backend is not available: {}", workload, GpuBackend::instance().unavailable_reason()));
    if (!api->prepare || !api->run || !api->verify || !api->release)
        throw WorkloadError(fmt::format("{}: the GPU backend plugin has no workloads", workload));
    return *api;
}

nlohmann::json parse_reply(const char* text, const std::string& workload, const char* what)
{
    auto reply = nlohmann::json::parse(text ? text : "", nullptr, false);
    if (reply.is_discarded() || !reply.is_object())
        throw WorkloadError(fmt::format("{}: the GPU backend's {} reply is not a JSON object", workload, what));
    if (const auto it = reply.find("error"); it != reply.end() && it->is_string())
        throw WorkloadError(fmt::format("{}: {}", workload, it->get<std::string>()));
    return reply;
}

std::optional<double> number_at(const nlohmann::json& j, const char* key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
}

// {"name": {"unit": "ms", "t_ms": [...], "values": [...]}, ...}: readings the workload timed with
// CUDA events, t_ms from the repetition's start.
void read_readings(const nlohmann::json& j, std::vector<MetricReading>& out)
{
    for (const auto& [name, series] : j.items()) {
        if (!series.is_object())
            continue;
        const auto t = series.value("t_ms", nlohmann::json::array());
        const auto v = series.value("values", nlohmann::json::array());
        const std::string unit = series.value("unit", std::string());
        for (std::size_t i = 0; i < t.size() && i < v.size(); ++i)
            if (t[i].is_number() && v[i].is_number())
                out.push_back({t[i].get<double>() / 1000.0, name, v[i].get<double>(), unit});
    }
}

class CudaPreparedWorkload final : public PreparedWorkload {
public:
    CudaPreparedWorkload(const KwbGpuBackendApi& api, KwbGpuWorkload* handle, std::string name,
        const CudaRunOptions& options, CudaMetrics metrics)
        : api_(api)
        , handle_(handle)
        , name_(std::move(name))
        , options_(options)
        , metrics_(std::move(metrics))
    {
    }
    ~CudaPreparedWorkload() override { api_.release(handle_); }
    CudaPreparedWorkload(const CudaPreparedWorkload&) = delete;
    CudaPreparedWorkload& operator=(const CudaPreparedWorkload&) = delete;

    RepetitionResult run_once() override
    {
        const auto reply = parse_reply(api_.run(handle_, options_.launches, options_.cold ? 1 : 0), name_, "run");
        const auto per_launch = number_at(reply, "ms_per_launch");
        if (!per_launch)
            throw WorkloadError(fmt::format("{}: the GPU backend's run reply has no ms_per_launch", name_));
        RepetitionResult r;
        r.total_ms = number_at(reply, "total_ms");
        r.launches = options_.launches;
        r.metrics["time_ms"] = *per_launch;
        metrics_(reply, r.metrics);
        if (const auto it = reply.find("metrics"); it != reply.end() && it->is_object()) {
            for (const auto& [key, value] : it->items()) {
                if (value.is_number())
                    r.metrics.emplace(key, value.get<double>());
                else if (key == "iterations" && value.is_array()) { // the workload's own iteration values
                    for (const auto& v : value)
                        if (v.is_number())
                            r.iterations.push_back(v.get<double>());
                } else if (key == "readings" && value.is_object())
                    read_readings(value, r.readings);
            }
        }
        return r;
    }

    VerifyResult verify() override
    {
        const auto reply = parse_reply(api_.verify(handle_), name_, "verify");
        VerifyResult v;
        v.ok = reply.value("ok", false);
        v.max_abs_error = reply.value("max_abs_error", 0.0);
        v.max_rel_error = number_at(reply, "max_rel_error");
        v.tolerance = reply.value("tolerance", 0.0);
        v.detail = reply.value("compared", std::string());
        if (const auto it = reply.find("buffer_set"); it != reply.end() && it->is_number_unsigned())
            v.buffer_set = it->get<std::uint64_t>();
        return v;
    }

    bool set_launches(int launches) override
    {
        options_.launches = launches;
        return true;
    }

private:
    const KwbGpuBackendApi& api_;
    KwbGpuWorkload* handle_;
    std::string name_;
    CudaRunOptions options_;
    CudaMetrics metrics_;
};

int g_device = 0;

} // namespace

void select_cuda_device(int device)
{
    g_device = device;
}

int selected_cuda_device()
{
    return g_device;
}

CudaRunOptions cuda_run_options(const nlohmann::json& params)
{
    CudaRunOptions o;
    o.device = g_device;
    o.cold = params.value("cache", std::string("hot")) == "cold";
    if (const auto it = params.find("iterations"); it != params.end() && it->is_number_integer())
        o.launches = std::max(1, it->get<int>());
    return o;
}

void cuda_time_metrics(const nlohmann::json& run, std::map<std::string, double>& metrics)
{
    const double ms = metrics.at("time_ms");
    if (ms <= 0)
        return;
    if (const auto bytes = number_at(run, "bytes_per_launch"); bytes && *bytes > 0)
        metrics["gbs"] = *bytes / (ms * 1e6);
    if (const auto flops = number_at(run, "flops_per_launch"); flops && *flops > 0)
        metrics["tflops"] = *flops / (ms * 1e9);
}

std::unique_ptr<PreparedWorkload> prepare_cuda(
    const std::string& workload, const nlohmann::json& params, const CudaRunOptions& options, CudaMetrics metrics)
{
    const auto& api = api_or_throw(workload);
    const char* error = nullptr;
    KwbGpuWorkload* handle = api.prepare(workload.c_str(), params.dump().c_str(), options.device, &error);
    if (!handle)
        throw WorkloadError(
            fmt::format("{}: {}", workload, error && *error ? error : "the GPU backend could not prepare it"));
    return std::make_unique<CudaPreparedWorkload>(api, handle, workload, options, std::move(metrics));
}

std::string cuda_unavailable_reason(const std::string& workload)
{
    const auto* api = GpuBackend::instance().api();
    if (!api)
        return GpuBackend::instance().unavailable_reason();
    if (!api->workloads_json || !api->prepare)
        return "the GPU backend plugin has no workloads";
    // A plugin that loads on a machine with no usable GPU (no driver, no device) says why.
    const auto devices = nlohmann::json::parse(api->devices_json(), nullptr, false);
    if (devices.is_object() && devices.contains("error"))
        return devices.value("error", std::string("no usable GPU"));
    if (devices.is_array() && devices.empty())
        return "no CUDA GPU is visible";
    const auto names = nlohmann::json::parse(api->workloads_json(), nullptr, false);
    if (names.is_array())
        for (const auto& n : names)
            if (n.is_string() && n.get<std::string>() == workload)
                return {};
    return fmt::format("the GPU backend plugin has no code for {}", workload);
}

void validate_cuda_config(const std::string& workload, const nlohmann::json& params)
{
    if (!cuda_unavailable_reason(workload).empty())
        return;
    if (const auto why = check_cuda_config(workload, params, selected_cuda_device()); !why.empty())
        throw WorkloadError(why);
}

std::string check_cuda_config(const std::string& workload, const nlohmann::json& params, int device)
{
    const auto* api = GpuBackend::instance().api();
    if (!api || !api->check_config)
        return {};
    const auto reply
        = nlohmann::json::parse(api->check_config(workload.c_str(), params.dump().c_str(), device), nullptr, false);
    if (reply.is_discarded() || !reply.is_object())
        return fmt::format("{}: the GPU backend's configuration check did not answer in JSON", workload);
    if (reply.value("ok", false))
        return {};
    return reply.value("error", std::string("the GPU backend refused this configuration"));
}

} // namespace kwb
