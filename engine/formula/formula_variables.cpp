// SPDX-License-Identifier: GPL-3.0-or-later
#include "formula/formula_variables.h"

#include <algorithm>
#include <fmt/format.h>

namespace kwb {
namespace {

constexpr double kKiB = 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;

void add(std::vector<FormulaVariable>& out, const char* name, double value, const std::string& note)
{
    if (value > 0)
        out.push_back({name, value, "hardware", note});
}

void add(
    std::vector<FormulaVariable>& out, const char* name, const std::optional<double>& value, const std::string& note)
{
    if (value)
        add(out, name, *value, note);
}

double number_of(const nlohmann::json& object, const char* key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_number() ? it->get<double>() : 0.0;
}

// The GPU the study recorded: the one it ran on when known, else the first.
const nlohmann::json* recorded_gpu(const Study& study)
{
    const nlohmann::json* first = nullptr;
    for (const auto& d : study.hardware.devices) {
        if (!d.is_object() || d.value("kind", "") != "cuda")
            continue;
        if (!study.hardware.device_in_use.empty() && d.value("name", "") == study.hardware.device_in_use)
            return &d;
        if (!first)
            first = &d;
    }
    return first;
}

const nlohmann::json* recorded_cpu(const Study& study)
{
    for (const auto& d : study.hardware.devices)
        if (d.is_object() && d.value("kind", "") == "cpu")
            return &d;
    return nullptr;
}

} // namespace

const Experiment* formula_experiment(const Study& study)
{
    const auto& ex = study.experiments;
    const auto ab = std::find_if(ex.rbegin(), ex.rend(), [](const Experiment& e) { return e.kind == "ab"; });
    if (ab != ex.rend())
        return &*ab;
    return ex.empty() ? nullptr : &ex.back();
}

std::vector<FormulaVariable> gpu_part_variables(const GpuPart& part)
{
    std::vector<FormulaVariable> out;
    const std::string from = fmt::format("{} (catalogue)", part.name);
    add(out, "sm_count", part.sm_count, fmt::format("SMs, {}", from));
    add(out, "smem_per_sm", part.smem_per_sm_kib * kKiB, fmt::format("bytes, {}", from));
    add(out, "smem_per_block_optin", part.smem_per_block_optin_kib * kKiB, fmt::format("bytes, {}", from));
    add(out, "regs_per_sm", part.regs_per_sm, fmt::format("32-bit registers, {}", from));
    add(out, "threads_per_sm", part.threads_per_sm, fmt::format("threads, {}", from));
    add(out, "max_blocks_per_sm", part.max_blocks_per_sm, fmt::format("blocks, {}", from));
    add(out, "l2_bytes", part.l2_mib * kMiB, fmt::format("bytes, {}", from));
    add(out, "peak_bf16_tflops", part.peak_bf16_tflops, fmt::format("TFLOP/s dense, {}", from));
    add(out, "peak_fp8_tflops", part.peak_fp8_tflops, fmt::format("TFLOP/s dense, {}", from));
    add(out, "peak_fp32_tflops", part.peak_fp32_tflops, fmt::format("TFLOP/s, {}", from));
    add(out, "peak_hbm_gbs", part.peak_hbm_gbs, fmt::format("GB/s, {}", from));
    return out;
}

std::vector<FormulaVariable> device_variables(const nlohmann::json& device)
{
    std::vector<FormulaVariable> out;
    if (!device.is_object())
        return out;
    const std::string name = device.value("name", "");
    if (device.value("kind", "") == "cpu") {
        add(out, "cpu_cores", number_of(device, "logical_cores"),
            fmt::format("logical cores, {} (device sheet)", name));
        return out;
    }
    // The catalogue first, then what the device itself reported, which is the better figure where
    // both exist (a 60 MiB L2 reported beats a datasheet's 50 MB).
    if (const GpuPart* part = find_gpu_part(name))
        out = gpu_part_variables(*part);
    else if (const auto it = device.find("catalogue"); it != device.end() && it->is_object())
        for (const char* key : {"peak_bf16_tflops", "peak_fp8_tflops", "peak_fp32_tflops", "peak_hbm_gbs"})
            add(out, key, number_of(*it, key), fmt::format("{}, {} (catalogue as recorded)", key, name));
    const std::string from = fmt::format("{} (device sheet)", name);
    add(out, "sm_count", number_of(device, "sm_count"), fmt::format("SMs, {}", from));
    add(out, "smem_per_sm", number_of(device, "smem_per_sm_bytes"), fmt::format("bytes, {}", from));
    add(out, "smem_per_block_optin", number_of(device, "smem_per_block_optin_bytes"), fmt::format("bytes, {}", from));
    add(out, "regs_per_sm", number_of(device, "regs_per_sm"), fmt::format("32-bit registers, {}", from));
    add(out, "threads_per_sm", number_of(device, "max_threads_per_sm"), fmt::format("threads, {}", from));
    add(out, "max_blocks_per_sm", number_of(device, "max_blocks_per_sm"), fmt::format("blocks, {}", from));
    add(out, "l2_bytes", number_of(device, "l2_bytes"), fmt::format("bytes, {}", from));
    add(out, "sm_clock_mhz", number_of(device, "sm_clock_mhz"), fmt::format("MHz, {}", from));
    // One entry per name, the device's own figure replacing the catalogue's.
    std::vector<FormulaVariable> unique;
    for (auto it = out.rbegin(); it != out.rend(); ++it)
        if (std::none_of(unique.begin(), unique.end(), [&](const FormulaVariable& v) { return v.name == it->name; }))
            unique.push_back(*it);
    std::reverse(unique.begin(), unique.end());
    return unique;
}

std::vector<FormulaVariable> hardware_variables(const Study& study)
{
    std::vector<FormulaVariable> out;
    if (const auto* cpu = recorded_cpu(study))
        out = device_variables(*cpu);
    std::vector<FormulaVariable> gpu;
    if (!study.prediction.gpu.empty()) {
        if (const GpuPart* part = find_gpu_part(study.prediction.gpu))
            gpu = gpu_part_variables(*part);
    } else if (const auto* device = recorded_gpu(study)) {
        gpu = device_variables(*device);
    }
    out.insert(out.end(), gpu.begin(), gpu.end());
    return out;
}

std::vector<FormulaVariable> arm_variables(const Experiment& experiment)
{
    std::vector<FormulaVariable> out;
    const char* prefixes[] = {"baseline", "treatment"};
    for (size_t i = 0; i < std::min<size_t>(2, experiment.arms.size()); ++i) {
        const Arm& arm = experiment.arms[i];
        for (const auto& [key, value] : arm.params.items()) {
            if (!value.is_number() && !value.is_boolean())
                continue;
            const double v = value.is_boolean() ? (value.get<bool>() ? 1.0 : 0.0) : value.get<double>();
            out.push_back(
                {fmt::format("{}_{}", prefixes[i], to_formula_name(key)), v, fmt::format("{} arm", prefixes[i]),
                    fmt::format("parameter '{}' of arm '{}' ({})", key, arm.name, experiment.id)});
        }
    }
    return out;
}

std::vector<FormulaVariable> formula_variables(const Study& study)
{
    std::vector<FormulaVariable> out = hardware_variables(study);
    if (const Experiment* e = formula_experiment(study)) {
        const auto arms = arm_variables(*e);
        out.insert(out.end(), arms.begin(), arms.end());
    }
    for (const auto& [name, value] : study.prediction.variables)
        out.push_back({name, value, "study", "typed in the study"});
    // One entry per name, where it first appeared, holding the value that wins (the last).
    std::vector<FormulaVariable> unique;
    for (const auto& v : out) {
        auto same
            = std::find_if(unique.begin(), unique.end(), [&](const FormulaVariable& u) { return u.name == v.name; });
        if (same == unique.end()) {
            unique.push_back(v);
        } else {
            const std::string replaced = fmt::format("replaces the {} value {:g}", same->source, same->value);
            *same = v;
            same->note += same->note.empty() ? replaced : "; " + replaced;
        }
    }
    return unique;
}

} // namespace kwb
