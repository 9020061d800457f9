// SPDX-License-Identifier: GPL-3.0-or-later
#include "hardware/gpu_catalogue.h"

#include "util/json_reader.h"

#include <cctype>
#include <fmt/format.h>
#include <set>

namespace kwb {
namespace {

const char* const kCatalogueText =
#include "gpus_json.inc"
    ;

std::optional<double> optional_positive(const JsonReader& r, std::string_view key)
{
    const auto v = r.optional_number(key);
    if (v && !(*v > 0))
        r.fail(key, "must be a positive number or null");
    return v;
}

double positive_or_zero(const JsonReader& r, std::string_view key)
{
    return optional_positive(r, key).value_or(0);
}

int positive_int_or_zero(const JsonReader& r, std::string_view key)
{
    if (!r.has(key) || r.json()[std::string(key)].is_null())
        return 0;
    const long long v = r.integer(key);
    if (v < 1 || v > 1 << 30)
        r.fail(key, "must be a positive integer or null");
    return static_cast<int>(v);
}

std::string nonempty(const JsonReader& r, std::string_view key)
{
    std::string s = r.string(key);
    if (s.empty())
        r.fail(key, "must not be empty");
    return s;
}

GpuPart part_from(const JsonReader& r)
{
    GpuPart p;
    p.match = nonempty(r, "match");
    p.name = nonempty(r, "name");
    p.sm = nonempty(r, "sm");
    const auto dot = p.sm.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == p.sm.size()
        || p.sm.find_first_not_of("0123456789.") != std::string::npos)
        r.fail("sm", fmt::format("\"{}\" is not a compute capability like \"9.0\"", p.sm));
    p.arch = r.string_or("arch", "sm_" + p.sm.substr(0, dot) + p.sm.substr(dot + 1));
    p.sm_count = positive_int_or_zero(r, "sm_count");
    p.smem_per_sm_kib = positive_or_zero(r, "smem_per_sm_kib");
    p.smem_per_block_optin_kib = positive_or_zero(r, "smem_per_block_optin_kib");
    p.regs_per_sm = positive_int_or_zero(r, "regs_per_sm");
    p.threads_per_sm = positive_int_or_zero(r, "threads_per_sm");
    p.max_blocks_per_sm = positive_int_or_zero(r, "max_blocks_per_sm");
    p.l2_mib = positive_or_zero(r, "l2_mib");
    p.memory_gb = positive_or_zero(r, "memory_gb");
    p.peak_bf16_tflops = optional_positive(r, "peak_bf16_tflops");
    p.peak_fp8_tflops = optional_positive(r, "peak_fp8_tflops");
    p.peak_fp32_tflops = optional_positive(r, "peak_fp32_tflops");
    p.peak_hbm_gbs = r.number("peak_hbm_gbs");
    if (!(p.peak_hbm_gbs > 0))
        r.fail("peak_hbm_gbs", "must be a positive number");
    // A figure without its source is a number nobody can check.
    p.source = nonempty(r, "source");
    p.limits_source = r.string_or("limits_source", "");
    return p;
}

// `match` must end at a word boundary of the name: "A10" names "NVIDIA A10", never "NVIDIA A100".
bool matches(const std::string& device_name, const std::string& match)
{
    for (auto at = device_name.find(match); at != std::string::npos; at = device_name.find(match, at + 1)) {
        const size_t end = at + match.size();
        if (end == device_name.size() || !std::isalnum(static_cast<unsigned char>(device_name[end])))
            return true;
    }
    return false;
}

nlohmann::json optional_json(double v)
{
    return v > 0 ? nlohmann::json(v) : nlohmann::json(nullptr);
}

nlohmann::json optional_json(const std::optional<double>& v)
{
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

} // namespace

nlohmann::json GpuPart::to_json() const
{
    return {{"match", match}, {"name", name}, {"sm", sm}, {"arch", arch},
        {"sm_count", sm_count > 0 ? nlohmann::json(sm_count) : nlohmann::json(nullptr)},
        {"smem_per_sm_kib", optional_json(smem_per_sm_kib)},
        {"smem_per_block_optin_kib", optional_json(smem_per_block_optin_kib)},
        {"regs_per_sm", regs_per_sm > 0 ? nlohmann::json(regs_per_sm) : nlohmann::json(nullptr)},
        {"threads_per_sm", threads_per_sm > 0 ? nlohmann::json(threads_per_sm) : nlohmann::json(nullptr)},
        {"max_blocks_per_sm", max_blocks_per_sm > 0 ? nlohmann::json(max_blocks_per_sm) : nlohmann::json(nullptr)},
        {"l2_mib", optional_json(l2_mib)}, {"memory_gb", optional_json(memory_gb)},
        {"peak_bf16_tflops", optional_json(peak_bf16_tflops)}, {"peak_fp8_tflops", optional_json(peak_fp8_tflops)},
        {"peak_fp32_tflops", optional_json(peak_fp32_tflops)}, {"peak_hbm_gbs", peak_hbm_gbs}, {"source", source},
        {"limits_source", limits_source}};
}

std::vector<GpuPart> parse_gpu_catalogue(const nlohmann::json& document)
{
    if (!document.is_object())
        throw FormatError("the GPU catalogue must be a JSON object with a \"gpus\" array");
    const JsonReader r(document, "");
    const auto& gpus = r.array("gpus");
    std::vector<GpuPart> parts;
    std::set<std::string> seen;
    for (size_t i = 0; i < gpus.size(); ++i) {
        const auto entry = r.element(gpus, i, "gpus");
        parts.push_back(part_from(entry));
        if (!seen.insert(parts.back().match).second)
            entry.fail("match", fmt::format("\"{}\" is listed twice", parts.back().match));
    }
    return parts;
}

const nlohmann::json& gpu_catalogue_document()
{
    static const nlohmann::json document = nlohmann::json::parse(kCatalogueText);
    return document;
}

const std::vector<GpuPart>& gpu_parts()
{
    static const std::vector<GpuPart> parts = parse_gpu_catalogue(gpu_catalogue_document());
    return parts;
}

const GpuPart* find_gpu_part(const std::string& device_name)
{
    const GpuPart* best = nullptr;
    for (const auto& p : gpu_parts())
        if (matches(device_name, p.match) && (!best || p.match.size() > best->match.size()))
            best = &p;
    return best;
}

} // namespace kwb
