// SPDX-License-Identifier: GPL-3.0-or-later
#include "hardware/gpu_backend.h"

#include <cstdlib>
#include <dlfcn.h>
#include <fmt/format.h>
#include <system_error>

namespace kwb {
namespace {

constexpr const char* kPluginFile = "libkwb_gpu_backend.so";

std::filesystem::path program_dir()
{
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::current_path() : exe.parent_path();
}

} // namespace

GpuBackend& GpuBackend::instance()
{
    static GpuBackend backend;
    return backend;
}

std::vector<std::filesystem::path> GpuBackend::candidate_paths()
{
    std::vector<std::filesystem::path> paths;
    if (const char* env = std::getenv("KWB_GPU_BACKEND"); env && *env)
        paths.emplace_back(env);
    const auto dir = program_dir();
    paths.push_back(dir / KWB_PLUGIN_RELDIR / kPluginFile);
    paths.push_back(dir / "../lib" / kPluginFile);
    return paths;
}

GpuBackend::GpuBackend()
{
    std::string tried;
    for (const auto& candidate : candidate_paths()) {
        std::error_code ec;
        if (!std::filesystem::exists(candidate, ec)) {
            tried += fmt::format("{}{}", tried.empty() ? "" : ", ", candidate.lexically_normal().string());
            continue;
        }
        path_ = candidate.lexically_normal();
        void* handle = ::dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            // dlerror names the missing library, e.g. "libcupti.so.13: cannot open shared object file".
            reason_ = fmt::format("GPU backend plugin {} cannot load: {}", path_.string(), ::dlerror());
            attributes_reason_ = range_reason_ = reason_;
            return;
        }
        auto entry = reinterpret_cast<KwbGpuBackendEntry>(::dlsym(handle, KWB_GPU_BACKEND_ENTRY));
        if (!entry) {
            reason_ = fmt::format("GPU backend plugin {} has no entry point {}", path_.string(), KWB_GPU_BACKEND_ENTRY);
            attributes_reason_ = range_reason_ = reason_;
            return;
        }
        const auto* api = entry();
        if (!api || api->abi_version != KWB_GPU_BACKEND_ABI_VERSION) {
            reason_ = fmt::format("GPU backend plugin {} speaks ABI {} but kwb needs {}", path_.string(),
                api ? api->abi_version : -1, KWB_GPU_BACKEND_ABI_VERSION);
            attributes_reason_ = range_reason_ = reason_;
            return;
        }
        api_ = api;
        find_range_profiler(handle);
        find_kernel_attributes(handle);
        return;
    }
    attributes_reason_ = range_reason_ = reason_ = fmt::format(
        "GPU backend plugin not found (this build has no CUDA support, or it is not installed; looked in {})", tried);
}

void GpuBackend::find_range_profiler(void* handle)
{
    auto entry = reinterpret_cast<KwbGpuRangeProfilerEntry>(::dlsym(handle, KWB_GPU_RANGE_PROFILER_ENTRY));
    if (!entry) {
        range_reason_ = fmt::format("GPU backend plugin {} has no range profiler (entry point {}): it is older than "
                                    "this kwb; install the plugin built with it",
            path_.string(), KWB_GPU_RANGE_PROFILER_ENTRY);
        return;
    }
    const auto* api = entry();
    if (!api || api->abi_version != KWB_GPU_RANGE_PROFILER_ABI_VERSION || !api->range_profile) {
        range_reason_ = fmt::format("GPU backend plugin {} speaks range profiler ABI {} but kwb needs {}",
            path_.string(), api ? api->abi_version : -1, KWB_GPU_RANGE_PROFILER_ABI_VERSION);
        return;
    }
    range_api_ = api;
}

void GpuBackend::find_kernel_attributes(void* handle)
{
    auto entry = reinterpret_cast<KwbGpuKernelAttributesEntry>(::dlsym(handle, KWB_GPU_KERNEL_ATTRIBUTES_ENTRY));
    if (!entry) {
        attributes_reason_ = fmt::format("GPU backend plugin {} cannot list its kernels' attributes (entry point {}): "
                                         "it is older than this kwb; install the plugin built with it",
            path_.string(), KWB_GPU_KERNEL_ATTRIBUTES_ENTRY);
        return;
    }
    const auto* api = entry();
    if (!api || api->abi_version != KWB_GPU_KERNEL_ATTRIBUTES_ABI_VERSION || !api->kernel_attributes) {
        attributes_reason_ = fmt::format("GPU backend plugin {} speaks kernel attributes ABI {} but kwb needs {}",
            path_.string(), api ? api->abi_version : -1, KWB_GPU_KERNEL_ATTRIBUTES_ABI_VERSION);
        return;
    }
    attributes_api_ = api;
}

} // namespace kwb
