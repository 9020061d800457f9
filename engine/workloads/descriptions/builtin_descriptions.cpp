// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/descriptions/builtin_descriptions.h"

#include <algorithm>

namespace kwb {

const std::vector<const WorkloadDescription*>& builtin_descriptions()
{
    static const std::vector<const WorkloadDescription*> all {&gemm_description(), &attention_prefill_description(),
        &rmsnorm_description(), &bandwidth_description(), &tiny_llm_description(), &synthetic_description(),
        &attention_decode_description(), &command_description()};
    return all;
}

const WorkloadDescription* find_builtin_description(std::string_view name)
{
    for (const WorkloadDescription* d : builtin_descriptions())
        if (d->name == name)
            return d;
    for (const WorkloadDescription* d : builtin_descriptions())
        if (std::find(d->aliases.begin(), d->aliases.end(), name) != d->aliases.end())
            return d;
    return nullptr;
}

} // namespace kwb
