// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The GPU tests talk to the plugin through its C ABI only, as kwb_engine does. On a CUDA build a
// plugin that is missing or of another ABI is a failure; with no usable GPU the test is skipped.
#include "gpu_check.h"
#include "hardware/gpu_backend.h"

#include <nlohmann/json.hpp>
#include <string>

namespace kwb::gputest {

struct Plugin {
    const KwbGpuBackendApi* api = nullptr;
    nlohmann::json device; // device 0's sheet

    nlohmann::json check(const std::string& workload, const nlohmann::json& params) const
    {
        return nlohmann::json::parse(api->check_config(workload.c_str(), params.dump().c_str(), 0));
    }
};

inline Plugin require_plugin()
{
    const auto& backend = kwb::GpuBackend::instance();
    if (!backend.api()) {
#ifdef KWB_CUDA_BUILD
        std::printf("FAILED: this is a CUDA build but the GPU backend plugin is unusable: %s\n",
            backend.unavailable_reason().c_str());
        std::exit(1);
#else
        skip(backend.unavailable_reason());
#endif
    }
    Plugin p {backend.api(), {}};
    if (p.api->abi_version != KWB_GPU_BACKEND_ABI_VERSION) {
        std::printf("FAILED: plugin ABI %d, tests built for %d\n", p.api->abi_version, KWB_GPU_BACKEND_ABI_VERSION);
        std::exit(1);
    }
    const auto devices = nlohmann::json::parse(p.api->devices_json());
    if (devices.is_object() && devices.contains("error"))
        skip(devices.at("error").get<std::string>());
    if (!devices.is_array() || devices.empty())
        skip("no CUDA device is visible");
    p.device = devices.at(0);
    return p;
}

// A prepared workload, released on scope exit; null (with `error`) when prepare refused.
class Prepared {
public:
    Prepared(const Plugin& plugin, const std::string& workload, const nlohmann::json& params)
        : api_(plugin.api)
    {
        const char* why = nullptr;
        handle_ = api_->prepare(workload.c_str(), params.dump().c_str(), 0, &why);
        if (!handle_)
            error = why ? why : "(no reason)";
    }
    ~Prepared()
    {
        if (handle_)
            api_->release(handle_);
    }
    Prepared(const Prepared&) = delete;
    Prepared& operator=(const Prepared&) = delete;

    explicit operator bool() const { return handle_ != nullptr; }
    nlohmann::json run(int launches, bool cold) const
    {
        return nlohmann::json::parse(api_->run(handle_, launches, cold ? 1 : 0));
    }
    nlohmann::json verify() const { return nlohmann::json::parse(api_->verify(handle_)); }
    std::string error;

private:
    const KwbGpuBackendApi* api_;
    KwbGpuWorkload* handle_ = nullptr;
};

// Prepares, verifies and expects a pass; prints the check either way.
inline bool expect_verified(const Plugin& plugin, const std::string& workload, const nlohmann::json& params)
{
    Prepared w(plugin, workload, params);
    if (!w) {
        std::printf("prepare %s %s refused: %s\n", workload.c_str(), params.dump().c_str(), w.error.c_str());
        ++failures();
        return false;
    }
    const auto v = w.verify();
    const bool ok = v.value("ok", false);
    std::printf("%s %s %s: %s\n", ok ? "ok  " : "FAIL", workload.c_str(), params.dump().c_str(), v.dump().c_str());
    if (!ok)
        ++failures();
    return ok;
}

} // namespace kwb::gputest
