// SPDX-License-Identifier: GPL-3.0-or-later
// The entry point kwb_engine dlopens (see engine/hardware/gpu_backend_abi.h): JSON in and out,
// exceptions caught here so none crosses the C boundary.
#include "calibrate.h"
#include "config_check.h"
#include "cupti_abi.h"
#include "cupti_range_profiler.h"
#include "device_query.h"
#include "gpu_workload.h"
#include "hardware/gpu_backend_abi.h"
#include "timing_harness.h"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <memory>
#include <nvtx3/nvToolsExt.h>
#include <string>

struct KwbGpuWorkload {
    int device = 0;
    std::unique_ptr<kwb::cuda::TimingHarness> harness;
    std::unique_ptr<kwb::cuda::GpuWorkload> workload;
};

namespace {

using nlohmann::json;

// Each function's answer lives until its next call on the same thread (the ABI's promise).
const char* answer(std::string& slot, const json& value)
{
    slot = value.dump();
    return slot.c_str();
}

json error_json(const std::string& what)
{
    return {{"error", what}};
}

// Runs `body`, turning every failure into {"error": "one line"}.
template<typename F> json guarded(F&& body)
{
    try {
        return body();
    } catch (const std::exception& e) {
        return error_json(e.what());
    } catch (...) {
        return error_json("unknown failure in the GPU backend plugin");
    }
}

json parse_params(const char* params_json)
{
    if (!params_json || !*params_json)
        return json::object();
    auto params = json::parse(params_json, nullptr, false);
    if (params.is_discarded() || !params.is_object())
        throw kwb::cuda::ConfigError("the workload parameters are not a JSON object");
    return params;
}

const kwb::cuda::WorkloadKind& kind_of(const char* workload)
{
    const auto* kind = kwb::cuda::find_workload(workload ? workload : "");
    if (!kind)
        throw kwb::cuda::ConfigError(
            std::string("the GPU backend has no workload \"") + (workload ? workload : "") + "\"");
    return *kind;
}

void use_device(int device)
{
    int count = 0;
    KWB_CUDA(cudaGetDeviceCount(&count));
    if (device < 0 || device >= count)
        throw kwb::cuda::ConfigError(
            "no CUDA device " + std::to_string(device) + " (" + std::to_string(count) + " visible)");
    KWB_CUDA(cudaSetDevice(device));
}

const char* devices_json()
{
    thread_local std::string text;
    return answer(text, kwb::cuda::query_devices());
}

const char* workloads_json()
{
    thread_local std::string text;
    json names = json::array();
    for (const auto& kind : kwb::cuda::workload_kinds())
        names.push_back(kind.name);
    return answer(text, names);
}

const char* check_config(const char* workload, const char* params_json, int device)
{
    thread_local std::string text;
    return answer(text, guarded([&]() -> json {
        try {
            const auto& kind = kind_of(workload);
            use_device(device);
            return kwb::cuda::check_needs(kind.needs(parse_params(params_json)), device);
        } catch (const kwb::cuda::ConfigError& e) {
            return {{"ok", false}, {"error", e.what()}};
        }
    }));
}

KwbGpuWorkload* prepare(const char* workload, const char* params_json, int device, const char** error)
{
    thread_local std::string text;
    try {
        const auto& kind = kind_of(workload);
        use_device(device);
        const auto params = parse_params(params_json);
        kwb::cuda::check_needs(kind.needs(params), device);
        auto prepared = std::make_unique<KwbGpuWorkload>();
        prepared->device = device;
        prepared->harness = std::make_unique<kwb::cuda::TimingHarness>(device);
        prepared->workload = kind.prepare(params, prepared->harness->stream());
        return prepared.release();
    } catch (const std::exception& e) {
        text = e.what();
    } catch (...) {
        text = "unknown failure in the GPU backend plugin";
    }
    if (error)
        *error = text.c_str();
    return nullptr;
}

const char* run(KwbGpuWorkload* w, int launches, int cold)
{
    thread_local std::string text;
    return answer(text, guarded([&]() -> json {
        if (!w)
            return error_json("run: no prepared workload");
        KWB_CUDA(cudaSetDevice(w->device));
        const auto t = w->harness->time(*w->workload, launches, cold != 0);
        return {{"total_ms", t.total_ms}, {"launches", t.launches}, {"ms_per_launch", t.total_ms / t.launches},
            {"flops_per_launch", w->workload->flops_per_launch()},
            {"bytes_per_launch", w->workload->bytes_per_launch()}, {"metrics", w->workload->metrics()}};
    }));
}

const char* verify(KwbGpuWorkload* w)
{
    thread_local std::string text;
    return answer(text, guarded([&]() -> json {
        if (!w)
            return error_json("verify: no prepared workload");
        KWB_CUDA(cudaSetDevice(w->device));
        auto reply = w->workload->verify(w->harness->stream());
        if (const auto set = w->workload->buffer_set(); set && reply.is_object())
            reply["buffer_set"] = set;
        return reply;
    }));
}

void release(KwbGpuWorkload* w)
{
    if (!w)
        return;
    cudaSetDevice(w->device);
    delete w;
}

const char* calibrate(int device)
{
    thread_local std::string text;
    return answer(text, guarded([&]() -> json {
        use_device(device);
        return kwb::cuda::calibrate_device(device);
    }));
}

void range_push(const char* name)
{
    nvtxRangePushA(name ? name : "");
}
void range_pop()
{
    nvtxRangePop();
}

// Prepared here (as prepare() does), checked once, profiled, released: the engine never holds a
// handle across the profiler, so an arm that fails leaves nothing behind.
const char* range_profile(const char* workload, const char* params_json, int device, int launches, const char* metrics)
{
    thread_local std::string text;
    return answer(text, guarded([&]() -> json {
        std::vector<std::string> names;
        const auto list = json::parse(metrics ? metrics : "null", nullptr, false);
        if (!list.is_array())
            return error_json("range_profile: the metrics are not a JSON array of names");
        for (const auto& m : list)
            if (m.is_string())
                names.push_back(m.get<std::string>());
        const char* why = nullptr;
        std::unique_ptr<KwbGpuWorkload, void (*)(KwbGpuWorkload*)> w(
            prepare(workload, params_json, device, &why), &release);
        if (!w)
            return error_json(why ? why : "the GPU backend could not prepare it");
        auto verified = w->workload->verify(w->harness->stream());
        auto reply = kwb::cuda::cupti::range_profile(*w->workload, w->harness->stream(), device, launches, names);
        reply["verified"] = verified;
        return reply;
    }));
}

// The plugin file's own path, for cuobjdump's SASS of the kernels it lists.
std::string plugin_library()
{
    Dl_info info {};
    if (::dladdr(reinterpret_cast<const void*>(&plugin_library), &info) && info.dli_fname)
        return info.dli_fname;
    return {};
}

// The configuration's kernel, as check_config finds it (ResourceNeeds::kernel), read with the
// runtime's function attributes: no allocation, no launch. A workload whose launch runs several
// kernels lists the one its needs name, and says so.
const char* kernel_attributes(const char* workload, const char* params_json, int device)
{
    thread_local std::string text;
    return answer(text, guarded([&]() -> json {
        const auto& kind = kind_of(workload);
        use_device(device);
        const auto needs = kind.needs(parse_params(params_json));
        json reply = {{"library", plugin_library()}, {"kernels", json::array()}, {"notes", json::array()}};
        if (!needs.kernel) {
            reply["notes"].push_back(
                needs.not_built.empty() ? needs.what + ": the workload names no kernel" : needs.not_built);
            return reply;
        }
        cudaFuncAttributes a {};
        KWB_CUDA(cudaFuncGetAttributes(&a, needs.kernel));
        const char* name = nullptr;
        if (cudaFuncGetName(&name, needs.kernel) != cudaSuccess || !name) {
            (void)cudaGetLastError();
            name = nullptr;
        }
        reply["kernels"].push_back(
            {{"name", name ? std::string(name) : needs.what}, {"arch", "sm_" + std::to_string(a.binaryVersion)},
                {"registers", a.numRegs}, {"static_smem_bytes", a.sharedSizeBytes}, {"local_bytes", a.localSizeBytes},
                {"max_threads_per_block", a.maxThreadsPerBlock}, {"threads_per_block", needs.threads_per_block}});
        reply["notes"].push_back(kind.name + ": the kernel of its configuration (" + needs.what
            + "); other kernels a launch may also run are not listed");
        return reply;
    }));
}

const KwbGpuBackendApi kApi = {
    KWB_GPU_BACKEND_ABI_VERSION,
    CUDART_VERSION,
    &devices_json,
    &workloads_json,
    &check_config,
    &prepare,
    &run,
    &verify,
    &release,
    &calibrate,
    &range_push,
    &range_pop,
    &kwb::cuda::cupti::cupti_status,
    &kwb::cuda::cupti::pm_open,
    &kwb::cuda::cupti::pm_metrics_json,
    &kwb::cuda::cupti::pm_start,
    &kwb::cuda::cupti::pm_stop,
    &kwb::cuda::cupti::pm_decode,
    &kwb::cuda::cupti::pm_close,
    &kwb::cuda::cupti::gpu_timestamp_ns,
    &kwb::cuda::cupti::activity_begin,
    &kwb::cuda::cupti::activity_end,
};

const KwbGpuRangeProfilerApi kRangeProfilerApi = {
    KWB_GPU_RANGE_PROFILER_ABI_VERSION,
    &range_profile,
};

const KwbGpuKernelAttributesApi kKernelAttributesApi = {
    KWB_GPU_KERNEL_ATTRIBUTES_ABI_VERSION,
    &kernel_attributes,
};

} // namespace

extern "C" __attribute__((visibility("default"))) const KwbGpuKernelAttributesApi* kwb_gpu_kernel_attributes_api()
{
    return &kKernelAttributesApi;
}

extern "C" __attribute__((visibility("default"))) const KwbGpuBackendApi* kwb_gpu_backend_api()
{
    return &kApi;
}

extern "C" __attribute__((visibility("default"))) const KwbGpuRangeProfilerApi* kwb_gpu_range_profiler_api()
{
    return &kRangeProfilerApi;
}
