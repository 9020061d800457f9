// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/runnability.h"

#include "run/visible_gpu.h"
#include "study/arm_roles.h"
#include "study/experiment_shape.h"
#include "workloads/backend_choice.h"
#include "workloads/command/command_workload.h"
#include "workloads/cuda_workload.h"
#include "workloads/worker/worker_workload.h"

#include <algorithm>
#include <fmt/format.h>

namespace kwb {
namespace {

bool has_metric(const Workload& w, const std::string& metric)
{
    // A command's metrics are what its adapter reads (the tool's own keys too): a missing one fails
    // each repetition with a note naming what was read instead (docs/adapters.md).
    if (w.name() == command::kCommandWorkload)
        return true;
    const auto metrics = w.metrics();
    return std::any_of(metrics.begin(), metrics.end(), [&](const MetricSpec& m) { return m.name == metric; });
}

// The backend asked for ("auto", "cpu", "cuda"), or the problem with it.
Runnability choose_backend(const Workload& w, const Experiment& e, std::string wanted)
{
    Runnability r;
    if (wanted != "auto" && wanted != "cpu" && wanted != "cuda") {
        r.problem = fmt::format("unknown backend '{}' (expected auto, cpu or cuda)", wanted);
        return r;
    }
    if (!has_backend(w, Backend::Cpu)) { // a cuda-only workload (attention_decode)
        if (wanted == "cpu") {
            r.problem = fmt::format("{} has no cpu backend", w.name());
            return r;
        }
        wanted = "cuda";
    }
    // Asked only when CUDA is a candidate: it loads the GPU backend.
    const std::string unavailable
        = wanted != "cpu" && has_backend(w, Backend::Cuda) ? cuda_unavailable_reason(w.name()) : "";
    if (wanted == "cuda") {
        if (!has_backend(w, Backend::Cuda)) {
            r.problem = fmt::format("{} has no cuda backend", w.name());
            return r;
        }
        if (!unavailable.empty()) {
            r.unavailable = fmt::format("the cuda backend is not available here: {}", unavailable);
            return r;
        }
    }
    BackendContext here;
    here.cuda_kernels = has_backend(w, Backend::Cuda) && unavailable.empty();
    const AbArms arms = ab_arms(e);
    const WorkloadBackends backends {has_backend(w, Backend::Cpu), has_backend(w, Backend::Cuda),
        params_fit_backend(w, arms.baseline->params, Backend::Cuda)
            && params_fit_backend(w, arms.treatment->params, Backend::Cuda)};
    r.backend = chosen_backend(e, wanted, backends, here);
    return r;
}

// A command experiment (docs/adapters.md): kwb cannot see what a command runs on, so it runs on the
// GPU only when told so: backend "cuda" (the experiment's, kwb new --backend cuda, or the run's),
// or "auto" when the run names a device (kwb run --device N, a spread-out cell) and a GPU is there;
// otherwise on the host's CPU. Its GPU needs no plugin code, only a device visible at that index.
Runnability choose_command_backend(const Experiment& e, const std::string& wanted, bool device_named)
{
    Runnability r;
    if (wanted != "auto" && wanted != "cpu" && wanted != "cuda") {
        r.problem = fmt::format("unknown backend '{}' (expected auto, cpu or cuda)", wanted);
        return r;
    }
    const std::string why = wanted == "cpu" ? std::string() : no_visible_gpu_reason(selected_cuda_device());
    if (wanted == "cuda" && !why.empty()) {
        r.unavailable = fmt::format("the commands' GPU is not visible: {}", why);
        return r;
    }
    BackendContext here;
    here.gpu_visible = why.empty();
    here.device_named = device_named;
    r.backend = chosen_backend(e, wanted, {}, here);
    return r;
}

// A worker experiment (docs/worker-protocol.md): each arm's parameters resolve against its own
// recorded description, and the backend is the device the worker described, not one kwb picks.
Runnability check_worker_runnable(const Workload& w, const Study& study, const Experiment& e, const std::string& wanted)
{
    Runnability r;
    nlohmann::json resolved[2];
    const AbArms ab = ab_arms(e);
    for (const Arm& arm : e.arms) {
        if (!arm.worker) {
            r.problem
                = fmt::format("arm {}: a worker experiment's arms each need a worker (cmd and description)", arm.name);
            return r;
        }
        try {
            worker::validate(*arm.worker, arm.name);
            const auto described = worker::described_workload(arm.worker->description);
            const nlohmann::json params = resolve_params(*described, arm.params);
            described->validate(params, Backend::Cpu);
            if (&arm == ab.baseline)
                resolved[0] = params;
            if (&arm == ab.treatment)
                resolved[1] = params;
            if (!has_metric(*described, e.metric)) {
                r.problem = fmt::format("arm {}: the worker has no metric '{}' (metrics: {})", arm.name, e.metric,
                    metric_names(*described));
                return r;
            }
        } catch (const WorkloadError& ex) {
            r.problem = fmt::format("arm {}: {}", arm.name, ex.what());
            return r;
        }
    }
    const ShapeCheck shape = check_experiment_shape(study, e, resolved[0], resolved[1]);
    if (!shape.ok()) {
        r.problem = shape.problem;
        return r;
    }
    const std::string& kind = ab.baseline->worker->description.device.kind;
    r.backend = chosen_backend(e, wanted, {}, {});
    if (wanted != "auto" && wanted != to_string(r.backend)) {
        r.problem
            = fmt::format("the worker runs on {} (its describe answer); --backend {} cannot move it", kind, wanted);
        return r;
    }
    r.workload = &w;
    r.notices = shape.notices;
    const bool has_samples = std::any_of(e.samples.begin(), e.samples.end(), [](const Sample& s) { return !s.warmup; });
    if (has_samples && (e.backend == "cpu" || e.backend == "cuda") && e.backend != to_string(r.backend))
        r.problem = fmt::format("its samples were taken on {}; the worker now describes {}", e.backend, kind);
    return r;
}

} // namespace

Runnability check_runnable(const WorkloadRegistry& registry, const Study& study, const Experiment& e,
    std::string_view backend_option, bool device_named)
{
    Runnability r;
    const Workload* w = registry.find(e.workload);
    if (!w) {
        r.problem = fmt::format("unknown workload '{}' (see kwb workloads)", e.workload);
        return r;
    }
    r.problem = arms_problem(e);
    if (!r.problem.empty())
        return r;
    if (w->name() == worker::kWorkerWorkload) {
        const std::string wanted = backend_option.empty() ? e.backend : std::string(backend_option);
        return check_worker_runnable(*w, study, e, wanted.empty() ? "auto" : wanted);
    }
    if (!has_metric(*w, e.metric)) {
        r.problem = fmt::format("{} has no metric '{}'", w->name(), e.metric);
        return r;
    }
    const AbArms arms = ab_arms(e); // both there: arms_problem() counted them
    const Arm* const pair[2] = {arms.baseline, arms.treatment};
    nlohmann::json resolved[2];
    for (size_t i = 0; i < 2; ++i) {
        try {
            resolved[i] = resolve_params(*w, pair[i]->params);
        } catch (const WorkloadError& ex) {
            r.problem = fmt::format("arm {}: {}", pair[i]->name, ex.what());
            return r;
        }
    }
    const ShapeCheck shape = check_experiment_shape(study, e, resolved[0], resolved[1]);
    if (!shape.ok()) {
        r.problem = shape.problem;
        return r;
    }
    const std::string wanted = backend_option.empty() ? e.backend : std::string(backend_option);
    const bool command = w->name() == command::kCommandWorkload;
    Runnability chosen = command ? choose_command_backend(e, wanted, device_named) : choose_backend(*w, e, wanted);
    if (!chosen.runnable())
        return chosen;
    r.backend = chosen.backend;
    r.workload = w;
    r.notices = shape.notices;
    // Parameters the chosen backend lacks, and configurations the GPU cannot hold, are bad input
    // found before anything runs ("block 256x256x64, 4 stages needs 256 KiB of shared memory").
    for (const Arm* arm : pair) {
        if (command) // a command has no parameters, and its GPU no configuration kwb knows
            break;
        nlohmann::json params;
        try {
            params = resolve_params(*w, arm->params, r.backend);
        } catch (const WorkloadError& ex) {
            r.problem = fmt::format("arm {}: {}", arm->name, ex.what());
            return r;
        }
        if (r.backend == Backend::Cuda)
            if (const auto why = check_cuda_config(w->name(), params, selected_cuda_device()); !why.empty()) {
                r.problem = fmt::format("arm {}: {}", arm->name, why);
                return r;
            }
    }
    // Samples of one experiment must come from one backend: resuming on another would mix them.
    const bool has_samples = std::any_of(e.samples.begin(), e.samples.end(), [](const Sample& s) { return !s.warmup; });
    if (has_samples && (e.backend == "cpu" || e.backend == "cuda") && e.backend != to_string(r.backend))
        r.problem = fmt::format("its samples were taken on {}; resume it with --backend {}", e.backend, e.backend);
    return r;
}

} // namespace kwb
