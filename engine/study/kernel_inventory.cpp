// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/kernel_inventory.h"

#include "util/atomic_file.h"
#include "util/json_reader.h"

#include <algorithm>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <tuple>

namespace kwb {
namespace {

using nlohmann::json;

json optional_int(const std::optional<int>& v)
{
    return v ? json(*v) : json(nullptr);
}

std::optional<int> int_or_null(const JsonReader& r, const char* key)
{
    const auto v = r.optional_number(key);
    if (!v)
        return std::nullopt;
    if (*v < 0 || *v > 1e9 || *v != static_cast<double>(static_cast<long long>(*v)))
        r.fail(key, "expected a whole number, 0 or more");
    return static_cast<int>(*v);
}

KernelInventory inventory_from(const JsonReader& r)
{
    KernelInventory k;
    k.source = r.string_or("source", "");
    if (!k.source.empty() && k.source != "cuobjdump" && k.source != "driver")
        r.fail("source", fmt::format("unknown source \"{}\" (expected cuobjdump, driver or empty)", k.source));
    if (const auto* kernels = r.optional_array("kernels"))
        for (size_t i = 0; i < kernels->size(); ++i) {
            const auto e = r.element(*kernels, i, "kernels");
            KernelResource x;
            x.name = e.string("name");
            x.binary = e.string_or("binary", "");
            x.arch = e.string_or("arch", "");
            x.sass_sha256 = e.string_or("sass_sha256", "");
            x.registers = int_or_null(e, "registers");
            x.static_smem_bytes = int_or_null(e, "static_smem_bytes");
            x.local_bytes = int_or_null(e, "local_bytes");
            k.kernels.push_back(std::move(x));
        }
    if (const auto* notes = r.optional_array("notes"))
        for (const auto& n : *notes) {
            if (!n.is_string())
                r.fail("notes", "expected an array of strings");
            k.notes.push_back(n.get<std::string>());
        }
    k.taken_at = r.string_or("taken_at", "");
    return k;
}

} // namespace

json kernel_inventory_json(const KernelInventory& k)
{
    json kernels = json::array();
    for (const auto& x : k.kernels)
        kernels.push_back({{"name", x.name}, {"binary", x.binary}, {"arch", x.arch}, {"sass_sha256", x.sass_sha256},
            {"registers", optional_int(x.registers)}, {"static_smem_bytes", optional_int(x.static_smem_bytes)},
            {"local_bytes", optional_int(x.local_bytes)}});
    return {{"source", k.source}, {"kernels", kernels}, {"notes", k.notes}, {"taken_at", k.taken_at}};
}

KernelInventory kernel_inventory_from(const json& j)
{
    return inventory_from(JsonReader(j, ""));
}

std::filesystem::path kernels_path(const std::filesystem::path& study)
{
    std::filesystem::path p = study;
    p.replace_extension(".kernels.json");
    return p;
}

KernelInventories load_kernel_inventories(const std::filesystem::path& study)
{
    KernelInventories all;
    const auto path = kernels_path(study);
    std::ifstream in(path);
    if (!in)
        return all;
    std::stringstream text;
    text << in.rdbuf();
    const json doc = json::parse(text.str(), nullptr, false);
    if (!doc.is_object())
        throw FormatError(fmt::format("{}: not a JSON object", path.string()));
    const JsonReader r(doc, "");
    if (const auto experiments = r.optional_object("experiments"))
        for (const auto& [id, arms] : experiments->json().items()) {
            const auto e = experiments->object(id);
            for (const auto& [arm, inventory] : arms.items())
                all[id][arm] = inventory_from(e.object(arm));
        }
    return all;
}

void save_kernel_inventories(const std::filesystem::path& study, const KernelInventories& all)
{
    json experiments = json::object();
    for (const auto& [id, arms] : all)
        for (const auto& [arm, inventory] : arms)
            experiments[id][arm] = kernel_inventory_json(inventory);
    write_file_atomically(kernels_path(study), json {{"experiments", experiments}}.dump(2) + "\n");
}

KernelDiff diff_kernels(const KernelInventory& b, const KernelInventory& t)
{
    KernelDiff d;
    for (const auto& n : b.notes)
        d.notes.push_back("baseline: " + n);
    for (const auto& n : t.notes)
        d.notes.push_back("treatment: " + n);
    using Key = std::tuple<std::string, std::string, std::string>;
    std::map<Key, KernelDiffRow> rows;
    for (const auto& k : b.kernels) {
        auto& row = rows[{k.binary, k.name, k.arch}];
        row.name = k.name, row.binary = k.binary, row.arch = k.arch, row.baseline = &k;
    }
    for (const auto& k : t.kernels) {
        auto& row = rows[{k.binary, k.name, k.arch}];
        row.name = k.name, row.binary = k.binary, row.arch = k.arch, row.treatment = &k;
    }
    // The driver's inventory lists only the kernel a configuration names (tiny_llm launches a dozen
    // more), so "every kernel identical" cannot be claimed from it: the H200 W8 decode A/B said so.
    bool identical = !rows.empty() && b.source != "driver" && t.source != "driver";
    for (auto& [key, row] : rows) {
        if (!row.baseline || !row.treatment) {
            row.code_differs = true;
        } else {
            row.code_differs = row.baseline->sass_sha256 != row.treatment->sass_sha256;
            row.resources_differ = row.baseline->registers != row.treatment->registers
                || row.baseline->static_smem_bytes != row.treatment->static_smem_bytes
                || row.baseline->local_bytes != row.treatment->local_bytes;
        }
        if (row.code_differs || !row.baseline || row.baseline->sass_sha256.empty())
            identical = false;
        d.rows.push_back(row);
    }
    std::stable_sort(d.rows.begin(), d.rows.end(),
        [](const KernelDiffRow& x, const KernelDiffRow& y) { return x.differs() && !y.differs(); });
    d.any_kernels = !d.rows.empty();
    d.all_sass_identical = identical;
    return d;
}

std::optional<std::string> identical_sass_reason(const KernelDiff& diff)
{
    if (!diff.all_sass_identical)
        return std::nullopt;
    return fmt::format("every CUDA kernel's SASS is identical in both arms ({} kernel{}): a measured difference "
                       "does not come from kernel code",
        diff.rows.size(), diff.rows.size() == 1 ? "" : "s");
}

} // namespace kwb
