// SPDX-License-Identifier: GPL-3.0-or-later
#include "cuda_check.h"
#include "device_query.h"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <string>

namespace kwb::cuda {
namespace {

std::string why_no_device(cudaError_t err)
{
    // The static runtime reports a missing driver as "insufficient driver"; tell the two apart.
    if (void* driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD); driver == nullptr) {
        driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!driver)
            return "no NVIDIA driver (libcuda.so.1 not found: install the NVIDIA driver)";
    }
    switch (err) {
    case cudaErrorInsufficientDriver:
        return "the NVIDIA driver is older than the CUDA " + std::to_string(CUDART_VERSION / 1000)
            + " runtime of the GPU backend (update the driver)";
    case cudaErrorNoDevice:
        return "no CUDA-capable GPU is visible (check CUDA_VISIBLE_DEVICES and nvidia-smi)";
    default:
        if (err == cudaErrorInitializationError || err == cudaErrorSystemDriverMismatch)
            return std::string("the NVIDIA driver could not be initialised: ") + cudaGetErrorString(err);
        return std::string("no NVIDIA driver is usable: ") + cudaGetErrorString(err);
    }
}

// "GPU-8c1a2b3c-...": the form nvidia-smi and NVML print, so the two can be matched.
std::string uuid_text(const cudaUUID_t& uuid)
{
    static constexpr char kHex[] = "0123456789abcdef";
    std::string text = "GPU-";
    for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            text += '-';
        const auto byte = static_cast<unsigned char>(uuid.bytes[i]);
        text += kHex[byte >> 4];
        text += kHex[byte & 0xf];
    }
    return text;
}

int attribute(cudaDeviceAttr attr, int device)
{
    int value = 0;
    cudaDeviceGetAttribute(&value, attr, device);
    return value;
}

} // namespace

nlohmann::json query_devices()
{
    int count = 0;
    if (const cudaError_t err = cudaGetDeviceCount(&count); err != cudaSuccess)
        return {{"error", why_no_device(err)}};
    if (count == 0)
        return {{"error", why_no_device(cudaErrorNoDevice)}};
    int driver = 0;
    cudaDriverGetVersion(&driver);
    auto devices = nlohmann::json::array();
    for (int d = 0; d < count; ++d) {
        cudaDeviceProp p {};
        if (cudaGetDeviceProperties(&p, d) != cudaSuccess)
            continue;
        const int clock_khz = attribute(cudaDevAttrClockRate, d);
        const int mem_clock_khz = attribute(cudaDevAttrMemoryClockRate, d);
        const int bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, d);
        char pci[32] = {};
        cudaDeviceGetPCIBusId(pci, sizeof(pci), d);
        devices.push_back({
            {"kind", "cuda"},
            {"index", d},
            {"name", p.name},
            {"compute_capability", std::to_string(p.major) + "." + std::to_string(p.minor)},
            {"sm_count", p.multiProcessorCount},
            {"smem_per_sm_bytes", p.sharedMemPerMultiprocessor},
            {"smem_per_block_optin_bytes", p.sharedMemPerBlockOptin},
            {"regs_per_sm", p.regsPerMultiprocessor},
            {"max_threads_per_sm", p.maxThreadsPerMultiProcessor},
            {"max_blocks_per_sm", p.maxBlocksPerMultiProcessor},
            {"warp_size", p.warpSize},
            {"l2_bytes", p.l2CacheSize},
            {"memory_bytes", p.totalGlobalMem},
            {"memory_bus_bits", bus_bits},
            {"memory_clock_mhz", mem_clock_khz / 1000},
            // Double data rate: two transfers per clock on each bus bit.
            {"theoretical_bandwidth_gbs", 2.0 * mem_clock_khz * 1e3 * (bus_bits / 8) / 1e9},
            {"sm_clock_mhz", clock_khz / 1000},
            {"pci_bus_id", pci},
            {"uuid", uuid_text(p.uuid)},
            {"driver_version", driver},
            {"runtime_version", CUDART_VERSION},
        });
    }
    return devices;
}

int current_sm_count()
{
    int device = 0, sms = 0;
    KWB_CUDA(cudaGetDevice(&device));
    KWB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return sms;
}

} // namespace kwb::cuda
