// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/driver_kernels.h"

#include "study/arm_roles.h"
#include "study/study_file.h"
#include "workloads/command/command_spec.h"
#include "workloads/worker/worker_check.h"

#include <fmt/format.h>

namespace kwb {
namespace {

using nlohmann::json;

std::optional<int> whole(const json& j, const char* key)
{
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer() || it->get<long long>() < 0 || it->get<long long>() > 1000000000)
        return std::nullopt;
    return static_cast<int>(it->get<long long>());
}

void add_sass(KernelInventory& k, const KernelInventory& sass)
{
    bool any = false;
    for (auto& x : k.kernels)
        for (const auto& s : sass.kernels)
            if (s.name == x.name && s.arch == x.arch && !s.sass_sha256.empty()) {
                x.sass_sha256 = s.sass_sha256;
                x.binary = s.binary;
                any = true;
            }
    if (!any && !k.kernels.empty()) {
        if (sass.notes.empty())
            k.notes.push_back("no SASS hash: cuobjdump did not read the GPU backend plugin");
        else
            for (const auto& n : sass.notes)
                k.notes.push_back("no SASS hash: " + n);
    }
}

} // namespace

KernelInventory driver_inventory(const json& reply)
{
    KernelInventory k;
    k.taken_at = utc_now_iso8601();
    if (!reply.is_object()) {
        k.notes.push_back("the GPU backend's kernel attributes reply is not a JSON object");
        return k;
    }
    if (const auto e = reply.find("error"); e != reply.end() && e->is_string()) {
        k.notes.push_back("the GPU backend could not list the kernels: " + e->get<std::string>());
        return k;
    }
    k.source = "driver";
    std::string library;
    if (const auto l = reply.find("library"); l != reply.end() && l->is_string())
        library = std::filesystem::path(l->get<std::string>()).filename().string();
    if (const auto list = reply.find("kernels"); list != reply.end() && list->is_array())
        for (const auto& x : *list) {
            if (!x.is_object() || !x.contains("name") || !x["name"].is_string())
                continue;
            KernelResource r;
            r.name = x["name"].get<std::string>();
            r.binary = library;
            r.arch = x.value("arch", std::string());
            r.registers = whole(x, "registers");
            r.static_smem_bytes = whole(x, "static_smem_bytes");
            r.local_bytes = whole(x, "local_bytes");
            k.kernels.push_back(std::move(r));
        }
    if (const auto notes = reply.find("notes"); notes != reply.end() && notes->is_array())
        for (const auto& n : *notes)
            if (n.is_string())
                k.notes.push_back(n.get<std::string>());
    return k;
}

EmbeddedKernels embedded_kernels(const Workload& w, const Experiment& e, Backend backend, int device,
    const KwbGpuKernelAttributesApi* api, const std::string& api_reason, const KernelInventory& sass)
{
    EmbeddedKernels out;
    const AbArms ab = ab_arms(e);
    if (!ab || w.name() == command::kCommandWorkload || w.name() == worker::kWorkerWorkload)
        return out; // not an embedded A/B: a commit arm's build is read by git_prepare
    if (backend != Backend::Cuda) {
        out.notes.push_back(fmt::format("{}: the CPU backend runs {}: no CUDA kernel to record", e.id, w.name()));
        return out;
    }
    if (!api) {
        out.notes.push_back(fmt::format("{}: the kernels' attributes were not recorded: {}", e.id, api_reason));
        return out;
    }
    for (const Arm* arm : {ab.baseline, ab.treatment}) {
        const json params = resolve_params(w, arm->params, backend);
        const char* text = api->kernel_attributes(w.name().c_str(), params.dump().c_str(), device);
        KernelInventory k = driver_inventory(json::parse(text ? text : "", nullptr, false));
        add_sass(k, sass);
        out.arms[arm->name] = std::move(k);
    }
    return out;
}

void record_embedded_kernels(const std::string& study_path, const std::string& id, const EmbeddedKernels& k)
{
    if (study_path.empty() || k.arms.empty())
        return;
    KernelInventories all = load_kernel_inventories(study_path);
    all[id] = k.arms;
    save_kernel_inventories(study_path, all);
}

} // namespace kwb
