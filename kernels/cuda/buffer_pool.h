// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Device buffers shared by the arms of an experiment. Arms whose buffer-defining parameters are
// equal (sizes, dtype, seeds: every parameter but the kernel's own tunables) time their kernels on
// one set of buffers. With a set per arm, a 2 GiB copy A/A timed the second arm's buffers 0.10%
// slower in 19 of 20 studies at a steady clock (bench/results/2026-12-01-h200-aa-bias): where an
// arm's memory sits is an effect of its own, and an A/B of two kernels must not measure it.
//
// Why sharing is safe: the runner prepares every arm before it runs any and runs one arm at a
// time, and a set is filled and synchronised before any arm gets it. Outputs are shared too, so
// every verify() poisons its outputs before its own launch: one arm's output can never pass as
// another's check.
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <typeindex>
#include <vector>

namespace kwb::cuda {

// One set of a workload's buffers; `Data` allocates, fills and synchronises in its constructor.
template<typename Data> struct BufferSet {
    std::uint64_t id; // unique in the process, never reused: what verify replies call "buffer_set"
    Data data;
};

// The pool's key: the workload, the current device and every parameter except `kernel_only`
// (and the engine's own `cache`, `iterations` and `inject_fault`). A parameter a workload does not
// name stays in the key, so an unknown one can only keep arms apart, never share wrongly.
std::string buffer_key(
    const std::string& workload, const nlohmann::json& params, const std::vector<std::string>& kernel_only);

// False when KWB_GPU_SEPARATE_BUFFERS=1: every arm gets its own set, as before the pool (to
// measure what sharing removes; the study records it either way).
bool buffers_pooled();

namespace detail {
std::shared_ptr<void> pooled_set(const std::string& key, std::type_index type);
void pool_set(const std::string& key, std::type_index type, std::shared_ptr<void> set);
std::uint64_t next_set_id();
} // namespace detail

// The live set under `key`, or a new one from `make()` (a Data, built on the caller's stream).
// The set lives while an arm holds it.
template<typename Data, typename Make>
std::shared_ptr<BufferSet<Data>> acquire_buffers(const std::string& key, Make&& make)
{
    const std::type_index type(typeid(Data));
    if (buffers_pooled())
        if (auto live = detail::pooled_set(key, type))
            return std::static_pointer_cast<BufferSet<Data>>(live);
    std::shared_ptr<BufferSet<Data>> set(new BufferSet<Data> {detail::next_set_id(), make()});
    if (buffers_pooled())
        detail::pool_set(key, type, set);
    return set;
}

} // namespace kwb::cuda
