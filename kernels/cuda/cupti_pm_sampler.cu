// SPDX-License-Identifier: GPL-3.0-or-later
// CUPTI PM sampling behind the ABI's pm_* entries. The call sequence and its costs were measured
// on the H200 (shared/notes/cupti-h200.md section 3.1): host config from the chip name and the
// device's counter availability, one pass; SetConfig with a GPU-time interval and KEEP_OLDEST;
// a small counter-data image decoded often (a full image loses later samples) and re-initialised
// after each decode pass.
#include "cupti_abi.h"
#include "cupti_library.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cuda_runtime.h>
#include <deque>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

struct KwbPmSampler {
    int device = 0;
    std::vector<std::string> metrics;
    std::vector<const char*> metric_ptrs;
    std::string metrics_json;
    CUpti_Profiler_Host_Object* host = nullptr;
    CUpti_PmSampling_Object* pm = nullptr;
    std::vector<uint8_t> config;
    std::vector<uint8_t> counter_data;
    std::deque<KwbPmSample> pending; // decoded, not yet handed out
    bool stopped = true;
};

namespace kwb::cuda::cupti {
namespace {

// 32 MiB of hardware buffer: about 20 s of 1 ms samples of the default set (1.5 KB a sample),
// with SetConfig at about 100 ms (it grows with the buffer: 73 ms at 8 MiB, 381 ms at 512 MiB).
constexpr size_t kHardwareBufferBytes = size_t {32} << 20;
// The image holds the samples of one decode pass; the engine decodes every few ms, so 20 ms
// worth of samples with margin, bounded because each slot costs 50-80 KiB.
uint32_t image_slots(unsigned long long interval_ns)
{
    const double per_20ms = 20e6 / static_cast<double>(std::max<unsigned long long>(interval_ns, 1000));
    return static_cast<uint32_t>(std::clamp(std::ceil(per_20ms * 2), 16.0, 512.0));
}

thread_local std::string t_error;
std::nullptr_t fail(std::string message, const char** error)
{
    t_error = std::move(message);
    if (error)
        *error = t_error.c_str();
    return nullptr;
}

std::string init_image(const Library& lib, KwbPmSampler& s)
{
    auto p = params<CUpti_PmSampling_CounterDataImage_Initialize_Params>(
        CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    p.pPmSamplingObject = s.pm;
    p.counterDataSize = s.counter_data.size();
    p.pCounterData = s.counter_data.data();
    const auto rc = lib.cuptiPmSamplingCounterDataImageInitialize(&p);
    return rc == CUPTI_SUCCESS ? std::string {} : lib.explain("cuptiPmSamplingCounterDataImageInitialize", rc);
}

void destroy(const Library& lib, KwbPmSampler* s)
{
    if (s->pm) {
        if (!s->stopped) {
            auto stop = params<CUpti_PmSampling_Stop_Params>(CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
            stop.pPmSamplingObject = s->pm;
            lib.cuptiPmSamplingStop(&stop);
        }
        auto p = params<CUpti_PmSampling_Disable_Params>(CUpti_PmSampling_Disable_Params_STRUCT_SIZE);
        p.pPmSamplingObject = s->pm;
        lib.cuptiPmSamplingDisable(&p);
    }
    if (s->host) {
        auto p = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
        p.pHostObject = s->host;
        lib.cuptiProfilerHostDeinitialize(&p);
    }
    delete s;
}

// Decodes once into the image, evaluates every completed sample into s.pending and
// re-initialises the image. Sets `end` when CUPTI has no more records (after stop).
std::string decode_pass(const Library& lib, KwbPmSampler& s, bool& end)
{
    auto d = params<CUpti_PmSampling_DecodeData_Params>(CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE);
    d.pPmSamplingObject = s.pm;
    d.pCounterDataImage = s.counter_data.data();
    d.counterDataImageSize = s.counter_data.size();
    if (const auto rc = lib.cuptiPmSamplingDecodeData(&d); rc != CUPTI_SUCCESS)
        return lib.explain("cuptiPmSamplingDecodeData", rc)
            + (d.overflow ? ": the hardware buffer overflowed (decoding fell behind the interval)" : "");
    end = d.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS;
    auto info
        = params<CUpti_PmSampling_GetCounterDataInfo_Params>(CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE);
    info.pCounterDataImage = s.counter_data.data();
    info.counterDataImageSize = s.counter_data.size();
    if (const auto rc = lib.cuptiPmSamplingGetCounterDataInfo(&info); rc != CUPTI_SUCCESS)
        return lib.explain("cuptiPmSamplingGetCounterDataInfo", rc);
    for (size_t i = 0; i < info.numCompletedSamples; ++i) {
        auto si = params<CUpti_PmSampling_CounterData_GetSampleInfo_Params>(
            CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE);
        si.pPmSamplingObject = s.pm;
        si.pCounterDataImage = s.counter_data.data();
        si.counterDataImageSize = s.counter_data.size();
        si.sampleIndex = i;
        if (const auto rc = lib.cuptiPmSamplingCounterDataGetSampleInfo(&si); rc != CUPTI_SUCCESS)
            return lib.explain("cuptiPmSamplingCounterDataGetSampleInfo", rc);
        KwbPmSample sample {};
        sample.start_ns = si.startTimestamp;
        sample.end_ns = si.endTimestamp;
        auto ev = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
            CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
        ev.pHostObject = s.host;
        ev.pCounterDataImage = s.counter_data.data();
        ev.counterDataImageSize = s.counter_data.size();
        ev.rangeIndex = i;
        ev.ppMetricNames = s.metric_ptrs.data();
        ev.numMetrics = s.metric_ptrs.size();
        ev.pMetricValues = sample.values;
        if (const auto rc = lib.cuptiProfilerHostEvaluateToGpuValues(&ev); rc != CUPTI_SUCCESS)
            return lib.explain("cuptiProfilerHostEvaluateToGpuValues", rc);
        if (sample.end_ns > sample.start_ns) // a zero-length sample carries no reading
            s.pending.push_back(sample);
    }
    return init_image(lib, s);
}

} // namespace

const char* cupti_status(int device)
{
    static thread_local std::string line;
    line.clear();
    // The device's primary context first, then CUPTI's profiler (docs: notes/cupti-h200.md 3.1):
    // initialised without a current context, cuptiProfilerInitialize fails with CUPTI_ERROR_UNKNOWN.
    // Embedded workloads had made one by then; a worker arm's kernels run in another process, so
    // kwb's own process has none until this call.
    if (auto why = make_current(device); !why.empty())
        return (line = why).c_str();
    if (auto why = ensure_profiler_initialized(); !why.empty())
        return (line = why).c_str();
    const Library& lib = library();
    chip_name(lib, device, line);
    if (!line.empty())
        return line.c_str();
    auto p = params<CUpti_PmSampling_GetCounterAvailability_Params>(
        CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE);
    p.deviceIndex = static_cast<size_t>(device);
    if (const auto rc = lib.cuptiPmSamplingGetCounterAvailability(&p); rc != CUPTI_SUCCESS)
        line = lib.explain("cuptiPmSamplingGetCounterAvailability", rc);
    return line.c_str();
}

KwbPmSampler* pm_open(int device, const char* metrics_json, unsigned long long interval_ns, const char** error)
{
    if (auto why = make_current(device); !why.empty()) // before CUPTI: see cupti_status
        return fail(why, error);
    if (auto why = ensure_profiler_initialized(); !why.empty())
        return fail(why, error);
    const Library& lib = library();
    auto* s = new KwbPmSampler;
    s->device = device;
    const auto bail = [&](std::string why) -> KwbPmSampler* {
        destroy(lib, s);
        return static_cast<KwbPmSampler*>(fail(std::move(why), error));
    };
    try {
        const auto names = nlohmann::json::parse(metrics_json ? metrics_json : "null");
        if (!names.is_array() || names.empty() || names.size() > KWB_PM_MAX_METRICS)
            return bail("pm_open: metrics must be a JSON array of 1 to 32 metric names");
        for (const auto& n : names)
            s->metrics.push_back(n.get<std::string>());
    } catch (const std::exception& ex) {
        return bail(std::string("pm_open: metrics: ") + ex.what());
    }
    for (const auto& m : s->metrics)
        s->metric_ptrs.push_back(m.c_str());
    s->metrics_json = nlohmann::json(s->metrics).dump();

    std::string why;
    const std::string chip = chip_name(lib, device, why);
    if (!why.empty())
        return bail(why);
    auto avail = params<CUpti_PmSampling_GetCounterAvailability_Params>(
        CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE);
    avail.deviceIndex = static_cast<size_t>(device);
    if (const auto rc = lib.cuptiPmSamplingGetCounterAvailability(&avail); rc != CUPTI_SUCCESS)
        return bail(lib.explain("cuptiPmSamplingGetCounterAvailability", rc));
    std::vector<uint8_t> availability(avail.counterAvailabilityImageSize);
    avail.pCounterAvailabilityImage = availability.data();
    if (const auto rc = lib.cuptiPmSamplingGetCounterAvailability(&avail); rc != CUPTI_SUCCESS)
        return bail(lib.explain("cuptiPmSamplingGetCounterAvailability", rc));

    auto hi = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    hi.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
    hi.pChipName = chip.c_str();
    hi.pCounterAvailabilityImage = availability.data();
    if (const auto rc = lib.cuptiProfilerHostInitialize(&hi); rc != CUPTI_SUCCESS)
        return bail(lib.explain("cuptiProfilerHostInitialize", rc));
    s->host = hi.pHostObject;
    auto add
        = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    add.pHostObject = s->host;
    add.ppMetricNames = s->metric_ptrs.data();
    add.numMetrics = s->metric_ptrs.size();
    if (const auto rc = lib.cuptiProfilerHostConfigAddMetrics(&add); rc != CUPTI_SUCCESS)
        return bail(
            lib.explain("cuptiProfilerHostConfigAddMetrics", rc) + ": a metric name " + chip + " does not know");
    auto size = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
    size.pHostObject = s->host;
    if (const auto rc = lib.cuptiProfilerHostGetConfigImageSize(&size); rc != CUPTI_SUCCESS)
        return bail(lib.explain("cuptiProfilerHostGetConfigImageSize", rc));
    s->config.resize(size.configImageSize);
    auto image
        = params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
    image.pHostObject = s->host;
    image.configImageSize = s->config.size();
    image.pConfigImage = s->config.data();
    if (const auto rc = lib.cuptiProfilerHostGetConfigImage(&image); rc != CUPTI_SUCCESS)
        return bail(lib.explain("cuptiProfilerHostGetConfigImage", rc));
    auto passes
        = params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
    passes.configImageSize = s->config.size();
    passes.pConfigImage = s->config.data();
    if (const auto rc = lib.cuptiProfilerHostGetNumOfPasses(&passes); rc != CUPTI_SUCCESS)
        return bail(lib.explain("cuptiProfilerHostGetNumOfPasses", rc));
    if (passes.numOfPasses != 1)
        return bail("PM sampling needs the metrics in one pass; this set needs " + std::to_string(passes.numOfPasses)
            + " on " + chip);

    auto en = params<CUpti_PmSampling_Enable_Params>(CUpti_PmSampling_Enable_Params_STRUCT_SIZE);
    en.deviceIndex = static_cast<size_t>(device);
    if (const auto rc = lib.cuptiPmSamplingEnable(&en); rc != CUPTI_SUCCESS)
        return bail(lib.explain("cuptiPmSamplingEnable", rc));
    s->pm = en.pPmSamplingObject;
    auto cfg = params<CUpti_PmSampling_SetConfig_Params>(CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE);
    cfg.pPmSamplingObject = s->pm;
    cfg.configSize = s->config.size();
    cfg.pConfig = s->config.data();
    cfg.hardwareBufferSize = kHardwareBufferBytes;
    cfg.samplingInterval = interval_ns;
    cfg.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
    cfg.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
    if (const auto rc = lib.cuptiPmSamplingSetConfig(&cfg); rc != CUPTI_SUCCESS)
        return bail(lib.explain("cuptiPmSamplingSetConfig", rc));
    auto ds
        = params<CUpti_PmSampling_GetCounterDataSize_Params>(CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE);
    ds.pPmSamplingObject = s->pm;
    ds.pMetricNames = s->metric_ptrs.data();
    ds.numMetrics = s->metric_ptrs.size();
    ds.maxSamples = image_slots(interval_ns);
    if (const auto rc = lib.cuptiPmSamplingGetCounterDataSize(&ds); rc != CUPTI_SUCCESS)
        return bail(lib.explain("cuptiPmSamplingGetCounterDataSize", rc));
    s->counter_data.resize(ds.counterDataSize);
    if (auto e = init_image(lib, *s); !e.empty())
        return bail(e);
    return s;
}

const char* pm_metrics_json(KwbPmSampler* s)
{
    return s ? s->metrics_json.c_str() : "[]";
}

int pm_start(KwbPmSampler* s, const char** error)
{
    const Library& lib = library();
    auto p = params<CUpti_PmSampling_Start_Params>(CUpti_PmSampling_Start_Params_STRUCT_SIZE);
    p.pPmSamplingObject = s->pm;
    if (const auto rc = lib.cuptiPmSamplingStart(&p); rc != CUPTI_SUCCESS) {
        fail(lib.explain("cuptiPmSamplingStart", rc), error);
        return -1;
    }
    s->stopped = false;
    return 0;
}

int pm_stop(KwbPmSampler* s, const char** error)
{
    const Library& lib = library();
    auto p = params<CUpti_PmSampling_Stop_Params>(CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
    p.pPmSamplingObject = s->pm;
    if (const auto rc = lib.cuptiPmSamplingStop(&p); rc != CUPTI_SUCCESS) {
        fail(lib.explain("cuptiPmSamplingStop", rc), error);
        return -1;
    }
    s->stopped = true;
    return 0;
}

int pm_decode(KwbPmSampler* s, KwbPmSample* out, int capacity, const char** error)
{
    const Library& lib = library();
    if (s->pending.empty()) {
        // While running one pass gives what has arrived; after stop, drain to END_OF_RECORDS
        // (bounded: a pass that stops for a full image is followed by another).
        for (int pass = 0; pass < 64; ++pass) {
            bool end = false;
            const size_t before = s->pending.size();
            if (auto why = decode_pass(lib, *s, end); !why.empty()) {
                fail(why, error);
                return -1;
            }
            if (end || !s->stopped || s->pending.size() == before)
                break;
        }
    }
    int n = 0;
    while (n < capacity && !s->pending.empty()) {
        out[n++] = s->pending.front();
        s->pending.pop_front();
    }
    return n;
}

void pm_close(KwbPmSampler* s)
{
    if (s)
        destroy(library(), s);
}

unsigned long long gpu_timestamp_ns()
{
    const Library& lib = library();
    uint64_t t = 0;
    if (lib.loaded)
        lib.cuptiGetTimestamp(&t);
    return t;
}

} // namespace kwb::cuda::cupti
