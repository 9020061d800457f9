// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

// FLOPs per declared byte where a built-in workload's parameters alone fix it: both of its
// declared counts grow with the same work (decode attention's cached tokens), so their ratio is
// a function of the shape. The roofline (verdict/roofline.h) places with it a run recorded before
// the workload declared its FLOPs (no TFLOP/s metric in its samples). Each workload's ratio lives
// beside its description, whose metric texts define the counts.
namespace kwb {

// From the arm's parameters with the backend's defaults filled in; null for a workload whose
// parameters do not fix the ratio (or that declares no FLOPs), or for parameters that make no sense.
std::optional<double> builtin_flops_per_byte(std::string_view workload, const nlohmann::json& params);

// Decode attention: 4 x tokens x heads x head_dim FLOPs over 2 x tokens x kv_heads x head_dim x
// element bytes (attention_decode.cpp).
std::optional<double> attention_decode_flops_per_byte(const nlohmann::json& params);

} // namespace kwb
