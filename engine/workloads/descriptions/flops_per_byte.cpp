// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/descriptions/flops_per_byte.h"

#include "workloads/descriptions/builtin_descriptions.h"

namespace kwb {

std::optional<double> builtin_flops_per_byte(std::string_view workload, const nlohmann::json& params)
{
    const WorkloadDescription* d = find_builtin_description(workload);
    if (!d || !params.is_object())
        return std::nullopt;
    if (d->name == "attention_decode")
        return attention_decode_flops_per_byte(params);
    return std::nullopt;
}

} // namespace kwb
