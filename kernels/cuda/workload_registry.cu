// SPDX-License-Identifier: GPL-3.0-or-later
#include "attention_decode_workload.h"
#include "attention_prefill_workload.h"
#include "bandwidth_workload.h"
#include "cuda_check.h"
#include "gemm_workload.h"
#include "gpu_workload.h"
#include "rmsnorm_workload.h"
#include "tiny_llm_workload.h"

namespace kwb::cuda {

const std::vector<WorkloadKind>& workload_kinds()
{
    static const std::vector<WorkloadKind> kinds = {bandwidth_kind(), gemm_kind(), rmsnorm_kind(),
        attention_decode_kind(), attention_prefill_kind(), tiny_llm_kind()};
    return kinds;
}

const WorkloadKind* find_workload(const std::string& name)
{
    for (const auto& kind : workload_kinds())
        if (kind.name == name)
            return &kind;
    return nullptr;
}

long long int_param(const nlohmann::json& params, const std::string& workload, const std::string& name,
    long long fallback, long long lo, long long hi)
{
    if (!params.contains(name))
        return fallback;
    const auto& v = params.at(name);
    long long value = 0;
    if (v.is_number_integer())
        value = v.get<long long>();
    else if (v.is_number_float() && v.get<double>() == static_cast<double>(static_cast<long long>(v.get<double>())))
        value = static_cast<long long>(v.get<double>());
    else if (v.is_string()) {
        try {
            std::size_t used = 0;
            value = std::stoll(v.get<std::string>(), &used);
            if (used != v.get<std::string>().size())
                throw std::invalid_argument("trailing");
        } catch (const std::exception&) {
            throw ConfigError(workload + ": parameter '" + name + "' must be an integer, got " + v.dump());
        }
    } else
        throw ConfigError(workload + ": parameter '" + name + "' must be an integer, got " + v.dump());
    if (value < lo || value > hi)
        throw ConfigError(workload + ": parameter '" + name + "' must be in " + std::to_string(lo) + ".."
            + std::to_string(hi) + ", got " + std::to_string(value));
    return value;
}

std::string string_param(const nlohmann::json& params, const std::string& workload, const std::string& name,
    const std::string& fallback, const std::vector<std::string>& allowed)
{
    if (!params.contains(name))
        return fallback;
    const auto& v = params.at(name);
    if (v.is_string())
        for (const auto& a : allowed)
            if (a == v.get<std::string>())
                return a;
    std::string list;
    for (const auto& a : allowed)
        list += (list.empty() ? "" : ", ") + a;
    throw ConfigError(workload + ": parameter '" + name + "' must be one of " + list + ", got " + v.dump());
}

bool wants_fault(const nlohmann::json& params, const std::string& fault)
{
    const auto it = params.find("inject_fault");
    return it != params.end() && it->is_string() && it->get<std::string>() == fault;
}

bool wants_wrong_result(const nlohmann::json& params)
{
    return wants_fault(params, "wrong-result");
}

} // namespace kwb::cuda
