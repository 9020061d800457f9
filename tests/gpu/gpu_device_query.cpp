// SPDX-License-Identifier: GPL-3.0-or-later
// The GPU backend plugin loads and describes every visible GPU with a plausible hardware sheet.
#include "gpu_check.h"
#include "gpu_plugin.h"
#include "hardware/device_sheet.h"
#include "hardware/gpu_backend.h"

int main()
{
    // Skips only where no GPU is usable; an unusable plugin on a CUDA build fails.
    (void)kwb::gputest::require_plugin();
    const auto sheet = kwb::collect_devices();
    if (!sheet.gpu_unavailable_reason.empty())
        kwb::gputest::skip(sheet.gpu_unavailable_reason);

    int gpus = 0;
    for (const auto& d : sheet.devices) {
        if (d.at("kind") != "cuda")
            continue;
        ++gpus;
        std::printf("%s\n", d.dump().c_str());
        KWB_CHECK(!d.at("name").get<std::string>().empty());
        KWB_CHECK(d.at("sm_count").get<int>() > 0);
        KWB_CHECK(d.at("smem_per_sm_bytes").get<long>() >= 64 * 1024);
        KWB_CHECK(d.at("regs_per_sm").get<int>() >= 32768);
        KWB_CHECK(d.at("max_threads_per_sm").get<int>() >= 1024);
        KWB_CHECK(d.at("l2_bytes").get<long>() > 0);
        KWB_CHECK(d.at("memory_bytes").get<double>() > 1e9);
        KWB_CHECK(d.at("memory_bus_bits").get<int>() > 0);
        KWB_CHECK(!d.at("compute_capability").get<std::string>().empty());
    }
    KWB_CHECK(gpus >= 1);
    return kwb::gputest::finish("gpu_device_query");
}
