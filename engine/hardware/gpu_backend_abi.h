// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The C interface between kwb_engine and the GPU backend plugin (libkwb_gpu_backend.so), which
// alone links CUDA libraries. kwb dlopens the plugin and asks for this table; bump the ABI
// version for any change to its layout.
//
// Strings cross the boundary as JSON, so neither side shares a C++ type with the other. Every
// returned `const char*` stays valid until the next call of the same function on the same thread.
// No function throws; failures come back as {"error": "one line"} (or a null handle with *error).
//
// Version 2: workloads (prepare / run / verify / release), configuration checks, ceilings
// calibration and NVTX ranges.
// Version 3: CUPTI (loaded by the plugin with dlopen): PM sampling and kernel activity records.
// Beside the table: the range profiler's own table (KwbGpuRangeProfilerApi, version 1, at the end),
// so the main table's layout is unchanged. Activity records gained fields (registers, shared memory).
// Beside both: the kernels' attributes table (KwbGpuKernelAttributesApi, version 1, at the end).

#define KWB_GPU_BACKEND_ABI_VERSION 3
#define KWB_GPU_BACKEND_ENTRY "kwb_gpu_backend_api"

extern "C" {

// A workload prepared for one parameter set on one device: buffers allocated, inputs seeded.
typedef struct KwbGpuWorkload KwbGpuWorkload;

// A CUPTI PM-sampling session on one device (version 3).
typedef struct KwbPmSampler KwbPmSampler;

#define KWB_PM_MAX_METRICS 32

// One decoded PM sample: its window in the CUPTI timestamp clock (ns, the clock of
// gpu_timestamp_ns) and one value per metric of the session, in pm_metrics_json order.
typedef struct KwbPmSample {
    unsigned long long start_ns;
    unsigned long long end_ns;
    double values[KWB_PM_MAX_METRICS];
} KwbPmSample;

struct KwbGpuBackendApi {
    int abi_version;
    // The plugin's CUDA runtime version, e.g. 13000.
    int cuda_runtime_version;
    // A JSON array of device objects (the hardware sheet of each visible CUDA device), or a JSON
    // object {"error": "..."} when no device can be used (no driver, driver too old, no GPU).
    const char* (*devices_json)(void);

    // ---- workloads ---------------------------------------------------------------------------
    // A JSON array of the workload names this plugin has code for, e.g. ["bandwidth","gemm"].
    const char* (*workloads_json)(void);

    // What one configuration needs of one device, checked without allocating or launching:
    //   {"ok": true, "smem_bytes_per_block": S, "threads_per_block": T, "blocks_per_sm": B, ...}
    // or {"ok": false, "error": "block 256x256x64, 4 stages needs 256 KiB of shared memory per
    //     block; this GPU allows 227 KiB"} (also for a GPU this build has no code for).
    // `params_json` holds every parameter of the workload (defaults filled in by the engine).
    const char* (*check_config)(const char* workload, const char* params_json, int device);

    // Allocates and seeds inputs on `device`. Null on failure, *error then points to one line.
    KwbGpuWorkload* (*prepare)(const char* workload, const char* params_json, int device, const char** error);

    // One repetition: `launches` launches of the workload, timed with CUDA events on its stream.
    // cold == 0: one event pair around all launches. cold != 0: before each launch the L2 is
    // flushed (a write over an L2-sized buffer, outside the timed region) and each launch is timed
    // with its own event pair; the times are summed. Returns
    //   {"total_ms": T, "launches": N, "ms_per_launch": T/N, "flops_per_launch": F, "bytes_per_launch": B,
    //    "metrics": {name: value, ...}}   (metrics: workload-specific extras, may be empty)
    // or {"error": "..."} (a device fault: the context is poisoned, release and stop).
    const char* (*run)(KwbGpuWorkload* workload, int launches, int cold);

    // Runs the workload once more and compares its output with the reference:
    //   {"ok": bool, "max_abs_error": E, "max_rel_error": R, "tolerance": T, "compared": "what vs what",
    //    "buffer_set": S}
    // buffer_set (absent for a workload with buffers of its own): the id of the device buffers it
    // runs on. Workloads prepared with equal buffer-defining parameters (sizes, dtype, seeds) share
    // one set while both are prepared, so two arms that differ only in the kernel time it on the
    // same memory; the same id means the same buffers. The outputs are poisoned before each check.
    const char* (*verify)(KwbGpuWorkload* workload);

    void (*release)(KwbGpuWorkload* workload);

    // Measured ceilings of a device, each {"median": X, "n": N, "min": .., "max": .., "cv_pct": .., "unit": ".."}:
    //   {"copy_gbs": {...}, "read_gbs": {...}, "l2_read_gbs": {...}, "bf16_gemm_tflops": {...},
    //    "shapes": {...}} or {"error": "..."}; read_gbs / l2_read_gbs are absent in older plugins.
    // bf16_gemm_tflops is absent, with "cublaslt": "why", when cuBLASLt cannot be loaded.
    const char* (*calibrate)(int device);

    // NVTX ranges (NVTX3, header-only in the plugin) so an `nsys profile kwb run` timeline reads
    // as the run order: "experiment ab-1", "warmup baseline #0", "rep treatment #3"...
    void (*range_push)(const char* name);
    void (*range_pop)(void);

    // ---- CUPTI (version 3) -------------------------------------------------------------------
    // The plugin loads libcupti.so.13 with dlopen on first use; without it every entry below
    // answers with the reason and GPU timing keeps working.
    // "" when PM sampling can run on `device`; otherwise one line: what is wrong and the fix
    // (e.g. counters restricted to admin users: ERR_NVGPUCTRPERM).
    const char* (*cupti_status)(int device);
    // Configures PM sampling on `device` (70-380 ms: do it once, before the run). `metrics_json`
    // is a JSON array of CUPTI PM metric names (at most KWB_PM_MAX_METRICS) that must fit one pass
    // (the engine's set: engine/sampling/cupti_metrics.h). Null on failure, *error holds one line.
    KwbPmSampler* (*pm_open)(int device, const char* metrics_json, unsigned long long interval_ns, const char** error);
    // The session's metric names, a JSON array, in the order of KwbPmSample::values.
    const char* (*pm_metrics_json)(KwbPmSampler* sampler);
    // Start and stop collection (1-2 ms each; repeatable). 0 on success, else *error is set.
    int (*pm_start)(KwbPmSampler* sampler, const char** error);
    int (*pm_stop)(KwbPmSampler* sampler, const char** error);
    // Decodes what the hardware has collected into `out` (at most `capacity` samples) and returns
    // how many were written, or -1 with *error. Samples come back in time order. Call from one
    // thread at a time (the engine's decode thread); after pm_stop, call until it returns 0.
    int (*pm_decode)(KwbPmSampler* sampler, KwbPmSample* out, int capacity, const char** error);
    void (*pm_close)(KwbPmSampler* sampler);
    // cuptiGetTimestamp: the clock of PM samples and activity records (ns).
    unsigned long long (*gpu_timestamp_ns)(void);
    // Kernel activity records (CUPTI Activity, concurrent-kernel kind): begin, run launches,
    // end returns {"kernels": [{"name": s, "start_ns": t, "end_ns": t, "registers_per_thread": r,
    // "static_smem_bytes": b, "dynamic_smem_bytes": b, "grid": [x, y, z], "block": [x, y, z]}, ...]} (the last
    // five added with the range profiler; readers ignore what they do not know) or {"error": "..."}. 0 from
    // begin on success, else *error is set.
    int (*activity_begin)(const char** error);
    const char* (*activity_end)(void);
};

typedef const KwbGpuBackendApi* (*KwbGpuBackendEntry)(void);

// ---- the range profiler (a table of its own) -------------------------------------------------
// A second entry point, looked up with dlsym beside the main one, so the main table (version 3)
// keeps its layout: a plugin without this symbol still loads and only `kwb profile --arms all`
// says the plugin is too old. Bump KWB_GPU_RANGE_PROFILER_ABI_VERSION for any change below.
#define KWB_GPU_RANGE_PROFILER_ABI_VERSION 1
#define KWB_GPU_RANGE_PROFILER_ENTRY "kwb_gpu_range_profiler_api"

struct KwbGpuRangeProfilerApi {
    int abi_version;
    // Prepares `workload` with `params_json` on `device`, checks it once against its reference, and
    // runs `launches` launches under the CUPTI range profiler (CUPTI_AutoRange + CUPTI_KernelReplay:
    // one range per kernel, each kernel replayed once per pass; 120-190 ms a launch on the H200),
    // with one launch before it under CUPTI Activity for each kernel's launch record. Must not run
    // while PM sampling collects (CUPTI_ERROR_HARDWARE_BUSY). `metrics_json` is a JSON array of
    // range-profiler metric names. Returns
    //   {"metrics": [names], "passes": P, "launches": N, "ranges_dropped": D,
    //    "kernels": [{"name", "registers_per_thread", "static_smem_bytes", "dynamic_smem_bytes",
    //                 "grid": [x, y, z], "block": [x, y, z]}, ...]   (one launch's kernels, in order)
    //    "ranges": [[value per metric, null where CUPTI gave none], ...]  (launch order),
    //    "verified": {the verify reply}, "notes": [...]}
    // or {"error": "one line"} (counters restricted, no CUPTI, the workload failed).
    const char* (*range_profile)(
        const char* workload, const char* params_json, int device, int launches, const char* metrics_json);
};

typedef const KwbGpuRangeProfilerApi* (*KwbGpuRangeProfilerEntry)(void);

// ---- the kernels' attributes (a table of its own) --------------------------------------------
// A third entry point, looked up with dlsym like the range profiler's: a plugin without it still
// loads, and an embedded arm's kernels are then not recorded (a note says the plugin is older).
// Bump KWB_GPU_KERNEL_ATTRIBUTES_ABI_VERSION for any change below. docs/git-arms.md.
#define KWB_GPU_KERNEL_ATTRIBUTES_ABI_VERSION 1
#define KWB_GPU_KERNEL_ATTRIBUTES_ENTRY "kwb_gpu_kernel_attributes_api"

struct KwbGpuKernelAttributesApi {
    int abi_version;
    // The kernels one configuration of `workload` launches, read on `device` with
    // cudaFuncGetAttributes and cudaFuncGetName, without allocating or launching:
    //   {"library": the plugin file's path (dladdr), "kernels": [{"name": mangled name,
    //    "arch": "sm_90" (the binary's version), "registers": r (per thread), "static_smem_bytes": b,
    //    "local_bytes": l (per thread), "max_threads_per_block": t, "threads_per_block": T (the launch's)}],
    //    "notes": ["..."]}   (notes: what it could not say, e.g. kernels it does not list)
    // or {"error": "one line"} (parameters it refuses, a configuration this build has no kernel for).
    const char* (*kernel_attributes)(const char* workload, const char* params_json, int device);
};

typedef const KwbGpuKernelAttributesApi* (*KwbGpuKernelAttributesEntry)(void);
}
