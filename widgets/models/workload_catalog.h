// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"
#include "workloads/workload_description.h"

#include <QStringList>
#include <nlohmann/json.hpp>

// The built-in workloads as the editors see them: names to choose from, each workload's metrics
// (the target's metric list) and parameters (the arm editor's rows), and the defaults the
// engine's arm diff fills in. One place, so every page lists the same names; the descriptions are
// the analysis library's (workloads/descriptions/builtin_descriptions.h), the kernels' own.
namespace kwb::gui {

QStringList workloadNames();
const WorkloadDescription* findWorkload(const std::string& name);
// The parameters one backend of the workload has ("auto": every parameter of any backend).
std::vector<ParamSpec> workloadParams(const WorkloadDescription& workload, const std::string& backend);
// Name -> default for the experiment's workload and backend; empty when the workload is unknown.
nlohmann::json experimentDefaults(const Experiment& experiment);

} // namespace kwb::gui
