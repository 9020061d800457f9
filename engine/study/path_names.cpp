// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/path_names.h"

#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>

namespace kwb {
namespace {

bool allowed(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
        || c == '.' || c == '=' || c == '+' || c == ',' || c == '@';
}

// How a refused character is shown: printable ones as themselves, the rest by code (a control
// character in a message would garble the terminal it warns).
std::string shown(unsigned char c)
{
    if (c >= 0x21 && c < 0x7f)
        return fmt::format("'{}'", static_cast<char>(c));
    if (c == ' ')
        return "a space";
    return fmt::format("the byte 0x{:02x}", c);
}

} // namespace

std::string path_name_problem(std::string_view name)
{
    if (name.empty())
        return "is empty";
    if (name.size() > kMaxPathNameLength)
        return fmt::format("is {} characters long (at most {})", name.size(), kMaxPathNameLength);
    for (const char c : name)
        if (!allowed(c))
            return fmt::format(
                "contains {} (allowed: letters, digits and -_.=+,@)", shown(static_cast<unsigned char>(c)));
    if (name.front() == '.')
        return "starts with '.' (a hidden file, or a step out of the folder)";
    if (name.front() == '-')
        return "starts with '-' (it would read as an option)";
    return {};
}

std::string shown_name(std::string_view name)
{
    constexpr std::size_t kShown = 40;
    const std::string cut(name.substr(0, kShown));
    return nlohmann::json(cut).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
        + (name.size() > kShown ? "..." : "");
}

std::string unique_experiment_id(const Study& study, std::string_view stem, int first_number)
{
    for (int n = first_number;; ++n) {
        const std::string suffix = fmt::format("-{}", n);
        const std::size_t room = kMaxPathNameLength - suffix.size();
        std::string id = std::string(stem.substr(0, room)) + suffix;
        if (!study.find_experiment(id))
            return id;
    }
}

namespace {

template<typename Item>
std::string first_duplicate_id(const std::vector<Item>& items, std::string_view array, std::string_view what)
{
    std::map<std::string_view, size_t> first; // a map, not a pairwise scan: a hostile study may hold many
    for (size_t i = 0; i < items.size(); ++i)
        if (const auto [it, fresh] = first.emplace(items[i].id, i); !fresh)
            return fmt::format("field '{}[{}].id': two {} have the id '{}' ({}[{}] and [{}]); ids must be unique in a "
                               "study",
                array, i, what, items[i].id, array, it->second, i);
    return {};
}

} // namespace

std::string duplicate_id_problem(const Study& study)
{
    if (auto problem = first_duplicate_id(study.experiments, "experiments", "experiments"); !problem.empty())
        return problem;
    return first_duplicate_id(study.grids, "grids", "grids");
}

} // namespace kwb
