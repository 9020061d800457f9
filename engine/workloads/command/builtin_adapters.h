// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "workloads/command/adapter.h"

// Factories of the built-in adapters (adapter.cpp keeps the registry and detection order).
namespace kwb::command {

std::unique_ptr<Adapter> make_nvbench_adapter(const nlohmann::json& options);
std::unique_ptr<Adapter> make_gbench_adapter(const nlohmann::json& options);
std::unique_ptr<Adapter> make_ncu_adapter(const nlohmann::json& options);
std::unique_ptr<Adapter> make_vllm_adapter();
std::unique_ptr<Adapter> make_sglang_adapter();
std::unique_ptr<Adapter> make_genai_perf_json_adapter();
std::unique_ptr<Adapter> make_genai_perf_csv_adapter();
std::unique_ptr<Adapter> make_llama_bench_adapter(const nlohmann::json& options);
std::unique_ptr<Adapter> make_keymap_adapter(const nlohmann::json& options);
std::unique_ptr<Adapter> make_regex_adapter(const nlohmann::json& options);
std::unique_ptr<Adapter> make_console_adapter();

// The "select" option: a substring the benchmark, state or kernel name must contain (empty: any).
std::string select_option(const nlohmann::json& options);

} // namespace kwb::command
