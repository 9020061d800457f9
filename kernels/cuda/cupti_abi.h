// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The plugin's CUPTI entries of KwbGpuBackendApi (version 3), for the table in
// gpu_backend_plugin.cu.
#include "hardware/gpu_backend_abi.h"

namespace kwb::cuda::cupti {

const char* cupti_status(int device);
KwbPmSampler* pm_open(int device, const char* metrics_json, unsigned long long interval_ns, const char** error);
const char* pm_metrics_json(KwbPmSampler* sampler);
int pm_start(KwbPmSampler* sampler, const char** error);
int pm_stop(KwbPmSampler* sampler, const char** error);
int pm_decode(KwbPmSampler* sampler, KwbPmSample* out, int capacity, const char** error);
void pm_close(KwbPmSampler* sampler);
unsigned long long gpu_timestamp_ns();
int activity_begin(const char** error);
const char* activity_end();

} // namespace kwb::cuda::cupti
