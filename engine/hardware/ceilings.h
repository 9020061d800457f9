// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

// A device's measured ceilings (`kwb calibrate`): the copy bandwidth and bf16 GEMM rate it
// actually reaches, each with n and spread, kept per device (by UUID) in
// $XDG_DATA_HOME/kernel-workbench/ceilings.json (~/.local/share/... when XDG_DATA_HOME is unset)
// so `kwb devices`, the hardware page and % of ceiling read them beside the datasheet peaks.
namespace kwb {

std::filesystem::path ceilings_path();

// The stored measurement of the device with this UUID, or null (measured_ceilings.h reads it).
nlohmann::json load_ceilings(const std::string& uuid);

// The key of a CPU's entry: a CPU has no UUID, so "cpu:" and its model name. No calibration
// writes it; a person (or a test's fixture) does, for the speed-of-light guard's CPU roofs.
std::string cpu_ceilings_key(const std::string& model);

// Replaces the device's entry (atomically: other devices' entries are kept). `measured` is the
// plugin's calibrate reply; model and time are added. Throws std::runtime_error naming the file.
void store_ceilings(const std::string& uuid, const std::string& model, const nlohmann::json& measured);

} // namespace kwb
