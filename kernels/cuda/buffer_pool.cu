// SPDX-License-Identifier: GPL-3.0-or-later
#include "buffer_pool.h"
#include "cuda_check.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace kwb::cuda {
namespace {

struct Entry {
    std::type_index type;
    std::weak_ptr<void> set;
};

std::mutex& pool_mutex()
{
    static std::mutex m;
    return m;
}

std::map<std::string, Entry>& pool()
{
    static std::map<std::string, Entry> entries;
    return entries;
}

} // namespace

std::string buffer_key(
    const std::string& workload, const nlohmann::json& params, const std::vector<std::string>& kernel_only)
{
    int device = 0;
    KWB_CUDA(cudaGetDevice(&device));
    nlohmann::json data = params.is_object() ? params : nlohmann::json::object();
    for (const char* engine_only : {"cache", "iterations", "inject_fault"})
        data.erase(engine_only);
    for (const auto& name : kernel_only)
        data.erase(name);
    // nlohmann's objects are sorted by key, so equal parameters give equal text.
    return workload + "@" + std::to_string(device) + " " + data.dump();
}

bool buffers_pooled()
{
    const char* separate = std::getenv("KWB_GPU_SEPARATE_BUFFERS");
    return !(separate && std::strcmp(separate, "1") == 0);
}

namespace detail {

std::shared_ptr<void> pooled_set(const std::string& key, std::type_index type)
{
    std::lock_guard lock(pool_mutex());
    auto& entries = pool();
    for (auto it = entries.begin(); it != entries.end();) // sets no arm holds any more
        it = it->second.set.expired() ? entries.erase(it) : std::next(it);
    const auto it = entries.find(key);
    return it != entries.end() && it->second.type == type ? it->second.set.lock() : nullptr;
}

void pool_set(const std::string& key, std::type_index type, std::shared_ptr<void> set)
{
    std::lock_guard lock(pool_mutex());
    pool().insert_or_assign(key, Entry {type, set});
}

std::uint64_t next_set_id()
{
    static std::atomic<std::uint64_t> last {0};
    return ++last;
}

} // namespace detail
} // namespace kwb::cuda
