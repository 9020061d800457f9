// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/command/command_spec.h"

#include "workloads/command/adapter.h"
#include "workloads/descriptions/builtin_descriptions.h"

#include <filesystem>
#include <fmt/format.h>

namespace kwb {
namespace command {

void validate(const CommandSpec& s, const std::string& arm)
{
    if (s.cmd.empty())
        throw WorkloadError(fmt::format("arm {}: command.cmd is empty", arm));
    if (!(s.timeout_s > 0))
        throw WorkloadError(fmt::format("arm {}: command.timeout_s must be above 0 seconds", arm));
    if (!(s.max_output_mib >= kMinOutputMib && s.max_output_mib <= kMaxOutputMib))
        throw WorkloadError(fmt::format("arm {}: command.max_output_mib {} must be between {} and {} (MiB)", arm,
            s.max_output_mib, kMinOutputMib, kMaxOutputMib));
    if (!s.cwd.empty() && !std::filesystem::is_directory(s.cwd))
        throw WorkloadError(fmt::format("arm {}: command.cwd '{}' is not a directory", arm, s.cwd));
    if (s.adapter != "auto") {
        try {
            (void)make_adapter(s.adapter, s.adapter_options);
        } catch (const AdapterError& e) {
            throw WorkloadError(fmt::format("arm {}: command.adapter: {}", arm, e.what()));
        }
    }
}

} // namespace command

const WorkloadDescription& command_description()
{
    // Every metric an adapter can name: the canonical ones first, then each adapter's own keys
    // (regex and keymap take theirs from the arm's options, so they have none to list).
    static const WorkloadDescription d = [] {
        WorkloadDescription w {command::kCommandWorkload,
            "an external benchmark command per arm, its output read through a metric adapter (docs/adapters.md)",
            {Backend::Cpu}, {}, {}};
        const auto add = [&](const command::KeySpec& k) {
            for (const auto& m : w.metrics)
                if (m.name == k.metric)
                    return;
            w.metrics.push_back({k.metric, k.unit, k.direction, k.description});
        };
        for (const auto& c : command::canonical_metrics())
            add(c);
        for (const auto& n : command::adapter_names())
            if (n != "keymap" && n != "regex")
                for (const auto& k : command::make_adapter(n)->keys())
                    if (k.metric.find_first_of("([ ") == std::string::npos)
                        add(k);
        return w;
    }();
    return d;
}

} // namespace kwb
