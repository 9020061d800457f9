// SPDX-License-Identifier: GPL-3.0-or-later
// Offline facts about CUPTI metric expressions for a chip, with no GPU (CUDA 13's CUPTI and
// nvperf_host on the build machine): how many PM-sampling passes the set needs (the Profiler Host
// API, as shared/notes/cupti-h200.md section 3.2 found works offline), and which raw counters each
// expression reads (NVPW_MetricsEvaluator_GetMetricRawDependencies; the names come back hashed,
// which is enough to tell whether two expressions read the same counter). Prints JSON.
//
// Build: g++ -std=c++17 -I/usr/local/cuda/include scripts/cupti/metric_deps.cpp
//          -L/usr/local/cuda/lib64 -lcupti -lnvperf_host -Wl,-rpath,/usr/local/cuda/lib64 -o /tmp/metric_deps
// Run:   /tmp/metric_deps GH100 METRIC... > out.json   (tests/data/lanes/make_cupti_deps.sh does it)
#include <cstdio>
#include <cupti_profiler_host.h>
#include <nvperf_cuda_host.h>
#include <nvperf_host.h>
#include <string>
#include <vector>

namespace {

std::string quoted(const std::string& s)
{
    return "\"" + s + "\"";
}

long passes(const char* chip, std::vector<const char*>& metrics)
{
    CUpti_Profiler_Host_Initialize_Params hi {};
    hi.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
    hi.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
    hi.pChipName = chip;
    if (cuptiProfilerHostInitialize(&hi) != CUPTI_SUCCESS)
        return -1;
    CUpti_Profiler_Host_ConfigAddMetrics_Params add {};
    add.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
    add.pHostObject = hi.pHostObject;
    add.ppMetricNames = metrics.data();
    add.numMetrics = metrics.size();
    if (cuptiProfilerHostConfigAddMetrics(&add) != CUPTI_SUCCESS)
        return -2; // a name the chip does not know for PM sampling
    CUpti_Profiler_Host_GetConfigImageSize_Params size {};
    size.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
    size.pHostObject = hi.pHostObject;
    cuptiProfilerHostGetConfigImageSize(&size);
    std::vector<uint8_t> image(size.configImageSize);
    CUpti_Profiler_Host_GetConfigImage_Params get {};
    get.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
    get.pHostObject = hi.pHostObject;
    get.configImageSize = image.size();
    get.pConfigImage = image.data();
    if (cuptiProfilerHostGetConfigImage(&get) != CUPTI_SUCCESS)
        return -3;
    CUpti_Profiler_Host_GetNumOfPasses_Params n {};
    n.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
    n.configImageSize = image.size();
    n.pConfigImage = image.data();
    if (cuptiProfilerHostGetNumOfPasses(&n) != CUPTI_SUCCESS)
        return -4;
    return static_cast<long>(n.numOfPasses);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: metric_deps CHIP METRIC...\n");
        return 2;
    }
    const char* chip = argv[1];
    std::vector<const char*> metrics(argv + 2, argv + argc);
    NVPW_InitializeHost_Params init {};
    init.structSize = NVPW_InitializeHost_Params_STRUCT_SIZE;
    if (NVPW_InitializeHost(&init) != NVPA_STATUS_SUCCESS)
        return 1;
    NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize_Params size {};
    size.structSize = NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize_Params_STRUCT_SIZE;
    size.pChipName = chip;
    if (NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize(&size) != NVPA_STATUS_SUCCESS)
        return 1;
    std::vector<uint8_t> scratch(size.scratchBufferSize);
    NVPW_CUDA_MetricsEvaluator_Initialize_Params ei {};
    ei.structSize = NVPW_CUDA_MetricsEvaluator_Initialize_Params_STRUCT_SIZE;
    ei.scratchBufferSize = scratch.size();
    ei.pScratchBuffer = scratch.data();
    ei.pChipName = chip;
    if (NVPW_CUDA_MetricsEvaluator_Initialize(&ei) != NVPA_STATUS_SUCCESS)
        return 1;
    std::printf(
        "{\"chip\":%s,\"pm_sampling_passes\":%ld,\"raw_dependencies\":{", quoted(chip).c_str(), passes(chip, metrics));
    for (size_t i = 0; i < metrics.size(); ++i) {
        std::printf("%s\n%s:", i ? "," : "", quoted(metrics[i]).c_str());
        NVPW_MetricEvalRequest request {};
        NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest_Params cv {};
        cv.structSize = NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest_Params_STRUCT_SIZE;
        cv.pMetricsEvaluator = ei.pMetricsEvaluator;
        cv.pMetricName = metrics[i];
        cv.pMetricEvalRequest = &request;
        cv.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE;
        if (NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest(&cv) != NVPA_STATUS_SUCCESS) {
            std::printf("null"); // known to PM sampling only, not to the evaluator
            continue;
        }
        NVPW_MetricsEvaluator_GetMetricRawDependencies_Params d {};
        d.structSize = NVPW_MetricsEvaluator_GetMetricRawDependencies_Params_STRUCT_SIZE;
        d.pMetricsEvaluator = ei.pMetricsEvaluator;
        d.pMetricEvalRequests = &request;
        d.numMetricEvalRequests = 1;
        d.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE;
        d.metricEvalRequestStrideSize = sizeof(request);
        if (NVPW_MetricsEvaluator_GetMetricRawDependencies(&d) != NVPA_STATUS_SUCCESS) {
            std::printf("null");
            continue;
        }
        std::vector<const char*> raw(d.numRawDependencies), optional(d.numOptionalRawDependencies);
        d.ppRawDependencies = raw.data();
        d.ppOptionalRawDependencies = optional.data();
        NVPW_MetricsEvaluator_GetMetricRawDependencies(&d);
        std::printf("[");
        for (size_t k = 0; k < raw.size(); ++k)
            std::printf("%s%s", k ? "," : "", quoted(raw[k]).c_str());
        std::printf("]");
    }
    std::printf("}}\n");
    return 0;
}
