// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// libcupti.so.13 loaded with dlopen: the plugin links no CUPTI library, so a machine without
// CUPTI keeps GPU timing and hears, in one line, why sampling is off. The function types come
// from the CUPTI headers (decltype), so a signature can never drift from the library's.
#include <cupti_activity.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <string>

namespace kwb::cuda::cupti {

struct Library {
#define KWB_CUPTI_FN(name) decltype(&::name) name = nullptr
    KWB_CUPTI_FN(cuptiGetResultString);
    KWB_CUPTI_FN(cuptiGetTimestamp);
    KWB_CUPTI_FN(cuptiProfilerInitialize);
    KWB_CUPTI_FN(cuptiDeviceGetChipName);
    KWB_CUPTI_FN(cuptiProfilerHostInitialize);
    KWB_CUPTI_FN(cuptiProfilerHostDeinitialize);
    KWB_CUPTI_FN(cuptiProfilerHostConfigAddMetrics);
    KWB_CUPTI_FN(cuptiProfilerHostGetConfigImageSize);
    KWB_CUPTI_FN(cuptiProfilerHostGetConfigImage);
    KWB_CUPTI_FN(cuptiProfilerHostGetNumOfPasses);
    KWB_CUPTI_FN(cuptiProfilerHostEvaluateToGpuValues);
    KWB_CUPTI_FN(cuptiPmSamplingGetCounterAvailability);
    KWB_CUPTI_FN(cuptiPmSamplingEnable);
    KWB_CUPTI_FN(cuptiPmSamplingDisable);
    KWB_CUPTI_FN(cuptiPmSamplingSetConfig);
    KWB_CUPTI_FN(cuptiPmSamplingStart);
    KWB_CUPTI_FN(cuptiPmSamplingStop);
    KWB_CUPTI_FN(cuptiPmSamplingDecodeData);
    KWB_CUPTI_FN(cuptiPmSamplingGetCounterDataSize);
    KWB_CUPTI_FN(cuptiPmSamplingCounterDataImageInitialize);
    KWB_CUPTI_FN(cuptiPmSamplingGetCounterDataInfo);
    KWB_CUPTI_FN(cuptiPmSamplingCounterDataGetSampleInfo);
    KWB_CUPTI_FN(cuptiActivityRegisterCallbacks);
    KWB_CUPTI_FN(cuptiActivityEnable);
    KWB_CUPTI_FN(cuptiActivityDisable);
    KWB_CUPTI_FN(cuptiActivityFlushAll);
    KWB_CUPTI_FN(cuptiActivityGetNextRecord);
    // The range profiler (kwb profile --arms all), bound when present: a CUPTI without it keeps
    // PM sampling, and range_profiler_reason says why the range profiler is off.
    KWB_CUPTI_FN(cuptiProfilerGetCounterAvailability);
    KWB_CUPTI_FN(cuptiRangeProfilerEnable);
    KWB_CUPTI_FN(cuptiRangeProfilerDisable);
    KWB_CUPTI_FN(cuptiRangeProfilerGetCounterDataSize);
    KWB_CUPTI_FN(cuptiRangeProfilerCounterDataImageInitialize);
    KWB_CUPTI_FN(cuptiRangeProfilerSetConfig);
    KWB_CUPTI_FN(cuptiRangeProfilerStart);
    KWB_CUPTI_FN(cuptiRangeProfilerStop);
    KWB_CUPTI_FN(cuptiRangeProfilerDecodeData);
    KWB_CUPTI_FN(cuptiRangeProfilerGetCounterDataInfo);
#undef KWB_CUPTI_FN

    bool loaded = false;
    std::string reason; // why it is not loaded, one line
    std::string range_profiler_reason; // empty when the range profiler's entries are all bound

    // "cuptiPmSamplingEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35): <fix>": the call, CUPTI's
    // name for the code and, for the codes a user can act on, what to do.
    std::string explain(const char* call, CUptiResult code) const;
};

// A CUPTI parameter struct, zeroed, with its size set (the CUPTI convention).
template<class Params> Params params(size_t struct_size)
{
    Params p {};
    p.structSize = struct_size;
    return p;
}

// The process-wide library, loaded on first use (thread-safe).
const Library& library();

// The device's CUPTI chip name ("GH100"); empty with `error` set on failure.
std::string chip_name(const Library& lib, int device, std::string& error);

// Makes `device`'s primary context current (CUPTI's profiler needs one); empty on success.
std::string make_current(int device);

// cuptiProfilerInitialize once per process (77-105 ms on the H200). Empty on success.
std::string ensure_profiler_initialized();

} // namespace kwb::cuda::cupti
