// SPDX-License-Identifier: GPL-3.0-or-later
// Kernel durations and launch resources from CUPTI Activity (concurrent-kernel records), for
// `kwb profile` and the range profiler's kernel list (cupti_range_profiler.cu): measured
// on the H200 to return one record per launch and to run beside PM sampling
// (shared/notes/cupti-h200.md section 3.4).
#include "cupti_abi.h"
#include "cupti_library.h"

#include <cstdlib>
#include <cuda_runtime.h>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

namespace kwb::cuda::cupti {
namespace {

constexpr size_t kBufferBytes = size_t {8} << 20;

std::mutex g_mutex;
nlohmann::json g_kernels = nlohmann::json::array();

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records)
{
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid)
{
    const Library& lib = library();
    CUpti_Activity* record = nullptr;
    std::lock_guard lock(g_mutex);
    while (lib.cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
        if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL)
            continue;
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        // The launch record's resources too: the range profiler's table reads registers and
        // shared memory from here (sm_90's range profiler has no launch__ metrics).
        g_kernels.push_back({{"name", k->name ? k->name : "?"}, {"start_ns", k->start}, {"end_ns", k->end},
            {"registers_per_thread", k->registersPerThread}, {"static_smem_bytes", k->staticSharedMemory},
            {"dynamic_smem_bytes", k->dynamicSharedMemory}, {"grid", {k->gridX, k->gridY, k->gridZ}},
            {"block", {k->blockX, k->blockY, k->blockZ}}});
    }
    std::free(buffer);
}

} // namespace

int activity_begin(const char** error)
{
    static thread_local std::string line;
    const Library& lib = library();
    if (!lib.loaded) {
        line = lib.reason;
        *error = line.c_str();
        return -1;
    }
    static std::once_flag once;
    static CUptiResult registered = CUPTI_SUCCESS;
    std::call_once(
        once, [&] { registered = lib.cuptiActivityRegisterCallbacks(&buffer_requested, &buffer_completed); });
    if (registered != CUPTI_SUCCESS) {
        line = lib.explain("cuptiActivityRegisterCallbacks", registered);
        *error = line.c_str();
        return -1;
    }
    {
        std::lock_guard lock(g_mutex);
        g_kernels = nlohmann::json::array();
    }
    if (const auto rc = lib.cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); rc != CUPTI_SUCCESS) {
        line = lib.explain("cuptiActivityEnable", rc);
        *error = line.c_str();
        return -1;
    }
    return 0;
}

const char* activity_end()
{
    static thread_local std::string text;
    const Library& lib = library();
    if (!lib.loaded)
        return (text = nlohmann::json {{"error", lib.reason}}.dump()).c_str();
    cudaDeviceSynchronize();
    const auto flushed = lib.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    lib.cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (flushed != CUPTI_SUCCESS)
        return (text = nlohmann::json {{"error", lib.explain("cuptiActivityFlushAll", flushed)}}.dump()).c_str();
    std::lock_guard lock(g_mutex);
    text = nlohmann::json {{"kernels", g_kernels}}.dump();
    return text.c_str();
}

} // namespace kwb::cuda::cupti
