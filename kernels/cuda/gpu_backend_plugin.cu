// SPDX-License-Identifier: GPL-3.0-or-later
// The entry point kwb_engine dlopens (see engine/hardware/gpu_backend_abi.h).
#include "cupti_abi.h"
#include "device_query.h"
#include "hardware/gpu_backend_abi.h"

#include <cuda_runtime.h>

#include <string>

namespace {

const char* devices_json()
{
    static std::string text;
    text = kwb::cuda::query_devices().dump();
    return text.c_str();
}

const KwbGpuBackendApi kApi = {
    KWB_GPU_BACKEND_ABI_VERSION,
    CUDART_VERSION,
    &devices_json,
    nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, // v2 (workloads; filled on merge)
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

} // namespace

extern "C" __attribute__((visibility("default"))) const KwbGpuBackendApi* kwb_gpu_backend_api()
{
    return &kApi;
}
