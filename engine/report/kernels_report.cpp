// SPDX-License-Identifier: GPL-3.0-or-later
#include "report/kernels_report.h"

#include "hardware/kernel_occupancy.h"
#include "study/arm_roles.h"
#include "verdict/wording.h"

#include <fmt/format.h>

namespace kwb::report {
namespace {

KernelArmFigures figures(const KernelResource* k, const GpuPart* part)
{
    KernelArmFigures f;
    if (!k)
        return f;
    f.present = true;
    f.sass_sha256 = k->sass_sha256;
    f.registers = k->registers;
    f.static_smem_bytes = k->static_smem_bytes;
    f.local_bytes = k->local_bytes;
    if (part)
        if (const auto o = kernel_occupancy(*k, *part)) {
            f.occupancy_pct = o->occupancy_pct;
            f.occupancy_limiter = o->limiter;
        }
    return f;
}

std::string sass_word(const KernelDiffRow& row)
{
    if (!row.baseline)
        return "only in treatment";
    if (!row.treatment)
        return "only in baseline";
    if (row.baseline->sass_sha256.empty() || row.treatment->sass_sha256.empty())
        return "unknown";
    return row.code_differs ? "differs" : "same";
}

nlohmann::json maybe(const std::optional<int>& v)
{
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json arm_json(const KernelArmFigures& f)
{
    if (!f.present)
        return nullptr;
    return {{"sass_sha256", f.sass_sha256.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.sass_sha256)},
        {"registers", maybe(f.registers)}, {"static_smem_bytes", maybe(f.static_smem_bytes)},
        {"local_bytes", maybe(f.local_bytes)},
        {"occupancy_pct", f.occupancy_pct ? nlohmann::json(*f.occupancy_pct) : nlohmann::json(nullptr)},
        {"occupancy_limiter",
            f.occupancy_limiter.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.occupancy_limiter)}};
}

std::string figure(const KernelArmFigures& f, const std::optional<int>& v)
{
    return !f.present ? "absent" : v ? std::to_string(*v) : "?";
}

// "32 -> 64", or "32" when both arms say the same.
std::string pair(const std::string& b, const std::string& t)
{
    return b == t ? b : b + " -> " + t;
}

std::string occupancy(const KernelArmFigures& f)
{
    if (!f.present)
        return "absent";
    if (!f.occupancy_pct)
        return "?";
    return fmt::format("{}% ({})", wording::num(*f.occupancy_pct), f.occupancy_limiter);
}

} // namespace

std::optional<KernelsReport> kernels_report(const KernelInventories& all, const Study& study, const Experiment& e)
{
    const AbArms ab = ab_arms(e);
    const auto it = all.find(e.id);
    if (!ab || it == all.end())
        return std::nullopt;
    const auto b = it->second.find(ab.baseline->name), t = it->second.find(ab.treatment->name);
    if (b == it->second.end() || t == it->second.end())
        return std::nullopt;
    const KernelDiff diff = diff_kernels(b->second, t->second);
    const GpuPart* part = study_gpu_part(study.hardware.device_in_use, study.hardware.devices);
    KernelsReport r;
    r.baseline_source = b->second.source;
    r.treatment_source = t->second.source;
    r.device = part ? part->name : std::string();
    r.block_threads = kAssumedBlockThreads;
    for (const auto& row : diff.rows)
        r.rows.push_back({row.name, row.binary, row.arch, figures(row.baseline, part), figures(row.treatment, part),
            sass_word(row), row.differs()});
    r.identical_sass_reason = identical_sass_reason(diff);
    r.notes = diff.notes;
    return r;
}

nlohmann::json kernels_json(const KernelsReport& k)
{
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : k.rows)
        rows.push_back({{"name", r.name}, {"binary", r.binary}, {"arch", r.arch}, {"sass", r.sass},
            {"differs", r.differs}, {"baseline", arm_json(r.baseline)}, {"treatment", arm_json(r.treatment)}});
    return {{"baseline_source", k.baseline_source}, {"treatment_source", k.treatment_source},
        {"device", k.device.empty() ? nlohmann::json(nullptr) : nlohmann::json(k.device)},
        {"block_threads", k.block_threads}, {"rows", rows},
        {"identical_sass_reason", k.identical_sass_reason ? nlohmann::json(*k.identical_sass_reason) : nullptr},
        {"notes", k.notes}};
}

std::vector<std::string> kernels_table_header()
{
    return {
        "kernel", "binary", "registers / thread", "static smem (bytes)", "local (bytes / thread)", "occupancy", "SASS"};
}

std::vector<std::vector<std::string>> kernels_table_rows(const KernelsReport& k)
{
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : k.rows) {
        const auto& b = r.baseline;
        const auto& t = r.treatment;
        rows.push_back({r.name, r.binary.empty() ? "-" : r.binary, pair(figure(b, b.registers), figure(t, t.registers)),
            pair(figure(b, b.static_smem_bytes), figure(t, t.static_smem_bytes)),
            pair(figure(b, b.local_bytes), figure(t, t.local_bytes)), pair(occupancy(b), occupancy(t)), r.sass});
    }
    return rows;
}

std::string kernels_source_line(const KernelsReport& k)
{
    const auto source = [](const std::string& s) { return s.empty() ? std::string("nothing read") : s; };
    std::string line = k.baseline_source == k.treatment_source
        ? fmt::format("Kernels read by {} in both arms", source(k.baseline_source))
        : fmt::format(
            "Kernels read by {} (baseline) and {} (treatment)", source(k.baseline_source), source(k.treatment_source));
    line += k.device.empty() ? "; occupancy not computed (the study's device is not in the GPU catalogue)"
                             : fmt::format("; occupancy on {}, {} threads per block assumed (the binary does not say)",
                                 k.device, k.block_threads);
    return line + ". Baseline -> treatment where they differ; kernels that differ first.";
}

} // namespace kwb::report
