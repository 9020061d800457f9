// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The C interface between kwb_engine and the GPU backend plugin (libkwb_gpu_backend.so), which
// alone links CUDA libraries. kwb dlopens the plugin and asks for this table; bump the ABI
// version for any change to its layout.

#define KWB_GPU_BACKEND_ABI_VERSION 1
#define KWB_GPU_BACKEND_ENTRY "kwb_gpu_backend_api"

extern "C" {

struct KwbGpuBackendApi {
    int abi_version;
    // The plugin's CUDA runtime version, e.g. 13000.
    int cuda_runtime_version;
    // A JSON array of device objects (the hardware sheet of each visible CUDA device), or a JSON
    // object {"error": "..."} when no device can be used (no driver, driver too old, no GPU).
    // The string stays valid until the next call.
    const char* (*devices_json)();
};

typedef const KwbGpuBackendApi* (*KwbGpuBackendEntry)();
}
