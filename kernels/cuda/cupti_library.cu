// SPDX-License-Identifier: GPL-3.0-or-later
#include "cupti_library.h"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <mutex>

namespace kwb::cuda::cupti {
namespace {

// libcupti is not on the default loader path of a CUDA install; try the usual places after the
// loader's own search (LD_LIBRARY_PATH, ldconfig). libcupti dlopens libnvperf_host/target itself
// and finds them beside it only through the loader path, so keep its folder on LD_LIBRARY_PATH.
constexpr const char* kCandidates[] = {
    "libcupti.so.13",
    "/usr/local/cuda/lib64/libcupti.so.13",
    "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
    "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcupti.so.13",
};

Library load()
{
    Library lib;
    void* handle = nullptr;
    std::string first_error;
    for (const char* candidate : kCandidates) {
        handle = ::dlopen(candidate, RTLD_NOW | RTLD_LOCAL);
        if (handle)
            break;
        if (first_error.empty())
            first_error = ::dlerror();
    }
    if (!handle) {
        lib.reason = "CUPTI not loaded (" + first_error
            + "): install the CUDA 13 CUPTI library (cuda-cupti-13-0) or put its folder on LD_LIBRARY_PATH";
        return lib;
    }
    bool complete = true;
    std::string missing;
    const auto bind = [&](auto& fn, const char* name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(handle, name));
        if (!fn) {
            complete = false;
            missing = name;
        }
    };
#define KWB_BIND(name) bind(lib.name, #name)
    KWB_BIND(cuptiGetResultString);
    KWB_BIND(cuptiGetTimestamp);
    KWB_BIND(cuptiProfilerInitialize);
    KWB_BIND(cuptiDeviceGetChipName);
    KWB_BIND(cuptiProfilerHostInitialize);
    KWB_BIND(cuptiProfilerHostDeinitialize);
    KWB_BIND(cuptiProfilerHostConfigAddMetrics);
    KWB_BIND(cuptiProfilerHostGetConfigImageSize);
    KWB_BIND(cuptiProfilerHostGetConfigImage);
    KWB_BIND(cuptiProfilerHostGetNumOfPasses);
    KWB_BIND(cuptiProfilerHostEvaluateToGpuValues);
    KWB_BIND(cuptiPmSamplingGetCounterAvailability);
    KWB_BIND(cuptiPmSamplingEnable);
    KWB_BIND(cuptiPmSamplingDisable);
    KWB_BIND(cuptiPmSamplingSetConfig);
    KWB_BIND(cuptiPmSamplingStart);
    KWB_BIND(cuptiPmSamplingStop);
    KWB_BIND(cuptiPmSamplingDecodeData);
    KWB_BIND(cuptiPmSamplingGetCounterDataSize);
    KWB_BIND(cuptiPmSamplingCounterDataImageInitialize);
    KWB_BIND(cuptiPmSamplingGetCounterDataInfo);
    KWB_BIND(cuptiPmSamplingCounterDataGetSampleInfo);
    KWB_BIND(cuptiActivityRegisterCallbacks);
    KWB_BIND(cuptiActivityEnable);
    KWB_BIND(cuptiActivityDisable);
    KWB_BIND(cuptiActivityFlushAll);
    KWB_BIND(cuptiActivityGetNextRecord);
    {
        // Optional: bound after the required set, their absence recorded apart.
        const bool required_complete = complete;
        const std::string required_missing = missing;
        complete = true;
        KWB_BIND(cuptiProfilerGetCounterAvailability);
        KWB_BIND(cuptiRangeProfilerEnable);
        KWB_BIND(cuptiRangeProfilerDisable);
        KWB_BIND(cuptiRangeProfilerGetCounterDataSize);
        KWB_BIND(cuptiRangeProfilerCounterDataImageInitialize);
        KWB_BIND(cuptiRangeProfilerSetConfig);
        KWB_BIND(cuptiRangeProfilerStart);
        KWB_BIND(cuptiRangeProfilerStop);
        KWB_BIND(cuptiRangeProfilerDecodeData);
        KWB_BIND(cuptiRangeProfilerGetCounterDataInfo);
        if (!complete)
            lib.range_profiler_reason
                = "CUPTI too old: libcupti.so.13 has no " + missing + " (the range profiler needs CUPTI 12.6 or later)";
        complete = required_complete;
        missing = required_missing;
    }
#undef KWB_BIND
    if (!complete) {
        lib.reason = "CUPTI too old: libcupti.so.13 has no " + missing + " (PM sampling needs CUPTI 13)";
        return lib;
    }
    lib.loaded = true;
    return lib;
}

} // namespace

std::string Library::explain(const char* call, CUptiResult code) const
{
    const char* name = nullptr;
    if (!cuptiGetResultString || cuptiGetResultString(code, &name) != CUPTI_SUCCESS || !name)
        name = "CUPTI error";
    std::string line = std::string(call) + ": " + name + " (" + std::to_string(static_cast<int>(code)) + ")";
    switch (code) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
        return line
            + ": GPU performance counters are restricted to admin users (ERR_NVGPUCTRPERM); run as root or "
              "load the driver with NVreg_RestrictProfilingToAdminUsers=0 "
              "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)";
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
        return line + ": this GPU (or its virtualisation) has no PM sampling; GPU timing and NVML still work";
    case CUPTI_ERROR_HARDWARE_BUSY:
        return line + ": another profiler (ncu, nsys, DCGM) holds the counters; stop it and run again";
    default:
        return line;
    }
}

const Library& library()
{
    static const Library lib = load();
    return lib;
}

std::string ensure_profiler_initialized()
{
    static std::once_flag once;
    static std::string error;
    std::call_once(once, [] {
        const Library& lib = library();
        if (!lib.loaded) {
            error = lib.reason;
            return;
        }
        auto p = params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
        if (const auto rc = lib.cuptiProfilerInitialize(&p); rc != CUPTI_SUCCESS)
            error = lib.explain("cuptiProfilerInitialize", rc);
    });
    return error;
}

std::string chip_name(const Library& lib, int device, std::string& error)
{
    auto p = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
    p.deviceIndex = static_cast<size_t>(device);
    if (const auto rc = lib.cuptiDeviceGetChipName(&p); rc != CUPTI_SUCCESS) {
        error = lib.explain("cuptiDeviceGetChipName", rc);
        return {};
    }
    return p.pChipName ? p.pChipName : "";
}

std::string make_current(int device)
{
    if (cudaSetDevice(device) != cudaSuccess || cudaFree(nullptr) != cudaSuccess)
        return std::string("CUDA device ") + std::to_string(device)
            + " unusable: " + cudaGetErrorString(cudaGetLastError());
    return {};
}

} // namespace kwb::cuda::cupti
