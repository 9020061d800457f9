// SPDX-License-Identifier: GPL-3.0-or-later
// The CUPTI range profiler for `kwb profile --arms all`. The sequence was measured on the H200
// (shared/notes/cupti-h200.md section 3.3): counter availability from the context, a host object of
// type RANGE_PROFILER with the config image, Enable, a counter-data image sized for the ranges,
// SetConfig with CUPTI_AutoRange (one range per kernel, in launch order) and CUPTI_KernelReplay
// (each kernel replayed for every pass inside its launch, memory saved and restored), Start, the
// launches, Stop, DecodeData, GetCounterDataInfo, an evaluation per range, Disable. AutoRange names
// ranges "0", "1", ..., so the kernels are named from one launch under CUPTI Activity first, which
// also gives their registers and shared memory (the range profiler has no launch__ metrics on
// sm_90); the engine matches ranges to that sequence only when they are whole launches of it.
#include "cuda_check.h"
#include "cupti_abi.h"
#include "cupti_library.h"
#include "cupti_range_profiler.h"

#include <algorithm>
#include <cuda.h>
#include <cuda_runtime.h>

namespace kwb::cuda::cupti {
namespace {

using nlohmann::json;

// The counter-data image holds every range of one Start..Stop; bounded because each range costs
// image space and 120-190 ms of replay on the H200.
constexpr std::size_t kMaxRanges = 1024;

void check(const Library& lib, const char* call, CUptiResult rc)
{
    if (rc != CUPTI_SUCCESS)
        throw GpuError(lib.explain(call, rc));
}

CUcontext current_context()
{
    using GetCurrent = CUresult (*)(CUcontext*);
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q {};
    KWB_CUDA(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &q));
    CUcontext ctx = nullptr;
    if (!fn || q != cudaDriverEntryPointSuccess || reinterpret_cast<GetCurrent>(fn)(&ctx) != CUDA_SUCCESS || !ctx)
        throw GpuError("range profiler: no current CUDA context");
    return ctx;
}

// One launch under CUPTI Activity: its kernels in start order, each with its launch record.
json kernels_of_one_launch(GpuWorkload& workload, cudaStream_t stream)
{
    const char* error = nullptr;
    if (activity_begin(&error) != 0)
        throw GpuError(std::string("range profiler: CUPTI Activity: ") + (error ? error : "?"));
    workload.launch(stream);
    KWB_CUDA_LAUNCHED("launch");
    KWB_CUDA(cudaStreamSynchronize(stream));
    auto reply = json::parse(activity_end(), nullptr, false);
    if (reply.is_discarded() || !reply.contains("kernels"))
        throw GpuError("range profiler: CUPTI Activity: "
            + (reply.is_object() ? reply.value("error", std::string("no kernel records")) : std::string("no reply")));
    auto kernels = reply.at("kernels");
    std::stable_sort(kernels.begin(), kernels.end(),
        [](const json& a, const json& b) { return a.value("start_ns", 0ull) < b.value("start_ns", 0ull); });
    for (auto& k : kernels) {
        k.erase("start_ns");
        k.erase("end_ns");
    }
    return kernels;
}

class HostObject {
public:
    HostObject(const Library& lib, const std::string& chip, std::vector<uint8_t>& availability)
        : lib_(lib)
    {
        auto p = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
        p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
        p.pChipName = chip.c_str();
        p.pCounterAvailabilityImage = availability.data();
        check(lib, "cuptiProfilerHostInitialize", lib.cuptiProfilerHostInitialize(&p));
        host_ = p.pHostObject;
    }
    ~HostObject()
    {
        auto p = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
        p.pHostObject = host_;
        lib_.cuptiProfilerHostDeinitialize(&p);
    }
    HostObject(const HostObject&) = delete;
    HostObject& operator=(const HostObject&) = delete;

    // The config image of `names`, and how many replay passes it needs.
    std::vector<uint8_t> config(std::vector<const char*>& names, std::size_t& passes)
    {
        auto add = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
            CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
        add.pHostObject = host_;
        add.ppMetricNames = names.data();
        add.numMetrics = names.size();
        check(lib_, "cuptiProfilerHostConfigAddMetrics (a metric this GPU does not have?)",
            lib_.cuptiProfilerHostConfigAddMetrics(&add));
        auto size = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
            CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
        size.pHostObject = host_;
        check(lib_, "cuptiProfilerHostGetConfigImageSize", lib_.cuptiProfilerHostGetConfigImageSize(&size));
        std::vector<uint8_t> image(size.configImageSize);
        auto get
            = params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
        get.pHostObject = host_;
        get.configImageSize = image.size();
        get.pConfigImage = image.data();
        check(lib_, "cuptiProfilerHostGetConfigImage", lib_.cuptiProfilerHostGetConfigImage(&get));
        auto n
            = params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
        n.configImageSize = image.size();
        n.pConfigImage = image.data();
        check(lib_, "cuptiProfilerHostGetNumOfPasses", lib_.cuptiProfilerHostGetNumOfPasses(&n));
        passes = n.numOfPasses;
        return image;
    }
    CUpti_Profiler_Host_Object* get() const { return host_; }

private:
    const Library& lib_;
    CUpti_Profiler_Host_Object* host_ = nullptr;
};

// Enabled on the context for its lifetime (Disable costs 16-18 ms).
class RangeProfiler {
public:
    RangeProfiler(const Library& lib, CUcontext ctx)
        : lib_(lib)
    {
        auto p = params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
        p.ctx = ctx;
        check(lib, "cuptiRangeProfilerEnable", lib.cuptiRangeProfilerEnable(&p));
        object_ = p.pRangeProfilerObject;
    }
    ~RangeProfiler()
    {
        if (started_) {
            auto s = params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
            s.pRangeProfilerObject = object_;
            lib_.cuptiRangeProfilerStop(&s);
        }
        auto p = params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
        p.pRangeProfilerObject = object_;
        lib_.cuptiRangeProfilerDisable(&p);
    }
    RangeProfiler(const RangeProfiler&) = delete;
    RangeProfiler& operator=(const RangeProfiler&) = delete;

    // Sizes and initialises the counter-data image for `ranges` ranges and sets the config.
    void configure(std::vector<const char*>& names, const std::vector<uint8_t>& config, std::size_t ranges)
    {
        auto size = params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
            CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
        size.pRangeProfilerObject = object_;
        size.pMetricNames = names.data();
        size.numMetrics = names.size();
        size.maxNumOfRanges = ranges;
        size.maxNumRangeTreeNodes = static_cast<uint32_t>(ranges);
        check(lib_, "cuptiRangeProfilerGetCounterDataSize", lib_.cuptiRangeProfilerGetCounterDataSize(&size));
        image_.assign(size.counterDataSize, 0);
        auto init = params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
            CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
        init.pRangeProfilerObject = object_;
        init.counterDataSize = image_.size();
        init.pCounterData = image_.data();
        check(lib_, "cuptiRangeProfilerCounterDataImageInitialize",
            lib_.cuptiRangeProfilerCounterDataImageInitialize(&init));
        auto set = params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
        set.pRangeProfilerObject = object_;
        set.configSize = config.size();
        set.pConfig = config.data();
        set.counterDataImageSize = image_.size();
        set.pCounterDataImage = image_.data();
        set.range = CUPTI_AutoRange;
        set.replayMode = CUPTI_KernelReplay;
        set.maxRangesPerPass = ranges;
        set.numNestingLevels = 1;
        set.minNestingLevel = 1;
        set.passIndex = 0;
        set.targetNestingLevel = 1;
        check(lib_, "cuptiRangeProfilerSetConfig", lib_.cuptiRangeProfilerSetConfig(&set));
    }
    void start()
    {
        auto p = params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
        p.pRangeProfilerObject = object_;
        // HARDWARE_BUSY here: PM sampling or another profiler holds the counters (explain() says so).
        check(lib_, "cuptiRangeProfilerStart", lib_.cuptiRangeProfilerStart(&p));
        started_ = true;
    }
    // Stops and decodes; the number of ranges dropped.
    std::size_t stop_and_decode()
    {
        auto s = params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
        s.pRangeProfilerObject = object_;
        started_ = false;
        check(lib_, "cuptiRangeProfilerStop", lib_.cuptiRangeProfilerStop(&s));
        auto d = params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
        d.pRangeProfilerObject = object_;
        check(lib_, "cuptiRangeProfilerDecodeData", lib_.cuptiRangeProfilerDecodeData(&d));
        return d.numOfRangeDropped;
    }
    // Each range's value of each metric, in launch order.
    json evaluate(HostObject& host, std::vector<const char*>& names)
    {
        auto info = params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
            CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
        info.pCounterDataImage = image_.data();
        info.counterDataImageSize = image_.size();
        check(lib_, "cuptiRangeProfilerGetCounterDataInfo", lib_.cuptiRangeProfilerGetCounterDataInfo(&info));
        json ranges = json::array();
        std::vector<double> values(names.size());
        for (std::size_t r = 0; r < info.numTotalRanges; ++r) {
            auto ev = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
                CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
            ev.pHostObject = host.get();
            ev.pCounterDataImage = image_.data();
            ev.counterDataImageSize = image_.size();
            ev.rangeIndex = r;
            ev.ppMetricNames = names.data();
            ev.numMetrics = names.size();
            ev.pMetricValues = values.data();
            json row = json::array();
            const bool ok = lib_.cuptiProfilerHostEvaluateToGpuValues(&ev) == CUPTI_SUCCESS;
            for (double v : values)
                row.push_back(ok ? json(v) : json(nullptr));
            ranges.push_back(row);
        }
        return ranges;
    }

private:
    const Library& lib_;
    CUpti_RangeProfiler_Object* object_ = nullptr;
    std::vector<uint8_t> image_;
    bool started_ = false;
};

std::vector<uint8_t> counter_availability(const Library& lib, CUcontext ctx)
{
    auto p = params<CUpti_Profiler_GetCounterAvailability_Params>(
        CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
    p.ctx = ctx;
    check(lib, "cuptiProfilerGetCounterAvailability", lib.cuptiProfilerGetCounterAvailability(&p));
    std::vector<uint8_t> image(p.counterAvailabilityImageSize);
    p.pCounterAvailabilityImage = image.data();
    check(lib, "cuptiProfilerGetCounterAvailability", lib.cuptiProfilerGetCounterAvailability(&p));
    return image;
}

} // namespace

json range_profile(
    GpuWorkload& workload, cudaStream_t stream, int device, int launches, const std::vector<std::string>& metrics)
{
    const Library& lib = library();
    if (!lib.loaded)
        throw GpuError(lib.reason);
    if (!lib.range_profiler_reason.empty())
        throw GpuError(lib.range_profiler_reason);
    if (metrics.empty() || launches < 1)
        throw ConfigError("range_profile: at least one metric and one launch");
    if (auto why = make_current(device); !why.empty())
        throw GpuError(why);
    if (auto why = ensure_profiler_initialized(); !why.empty())
        throw GpuError(why);
    std::vector<const char*> names;
    for (const auto& m : metrics)
        names.push_back(m.c_str());

    workload.launch(stream); // warm: first-launch costs stay out of both views
    KWB_CUDA_LAUNCHED("launch");
    KWB_CUDA(cudaStreamSynchronize(stream));
    const json kernels = kernels_of_one_launch(workload, stream);
    if (kernels.empty())
        throw GpuError("range profiler: one launch of the workload ran no kernel that CUPTI Activity saw");
    json notes = json::array();
    int n = launches;
    if (kernels.size() * static_cast<std::size_t>(n) > kMaxRanges) {
        n = std::max<int>(1, static_cast<int>(kMaxRanges / kernels.size()));
        notes.push_back(std::to_string(n) + " launches profiled, not " + std::to_string(launches) + ": a launch runs "
            + std::to_string(kernels.size()) + " kernels and one pass holds at most " + std::to_string(kMaxRanges)
            + " ranges");
    }

    const CUcontext ctx = current_context();
    auto availability = counter_availability(lib, ctx);
    std::string why;
    const std::string chip = chip_name(lib, device, why);
    if (!why.empty())
        throw GpuError(why);
    HostObject host(lib, chip, availability);
    std::size_t passes = 0;
    const auto config = host.config(names, passes);
    RangeProfiler profiler(lib, ctx);
    const std::size_t ranges = kernels.size() * static_cast<std::size_t>(n);
    profiler.configure(names, config, ranges);
    profiler.start();
    for (int i = 0; i < n; ++i) {
        workload.launch(stream); // each kernel is replayed `passes` times inside its launch
        KWB_CUDA_LAUNCHED("launch");
        KWB_CUDA(cudaStreamSynchronize(stream));
    }
    const std::size_t dropped = profiler.stop_and_decode();
    if (dropped)
        notes.push_back(std::to_string(dropped) + " ranges dropped by CUPTI");
    return {{"metrics", metrics}, {"passes", passes}, {"launches", n}, {"ranges_dropped", dropped},
        {"kernels", kernels}, {"ranges", profiler.evaluate(host, names)}, {"notes", notes}};
}

} // namespace kwb::cuda::cupti
