// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The layers of docs/architecture.md, checked on the source tree: each #include "..." is resolved
// to the file it names, and a file may include only its own layer and the layers below it.
//   kwb_analysis  engine/, the pure library (study, statistics, verdicts, formulas): only itself
//   kwb_report    engine/report/: the analysis library and itself
//   kwb_engine    engine/, hardware, sampling, workloads, the runner: the analysis library and itself
//   kernels       kernels/: the engine's libraries and itself
//   widgets       widgets/: the analysis library and itself (the window asks kwb for the rest)
//   app           app/: anything
// Which engine library a file belongs to comes from the CMakeLists (target_sources / add_library
// lines), so a file moved between libraries is checked as what it now is. The engine also includes
// no Qt and no CUDA header. Known debts of the widgets are listed by the caller with their reason;
// a debt that no longer exists is reported too, so the list only shrinks.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace kwb::layers {

namespace fs = std::filesystem;

struct Debt {
    std::string file; // relative to the root, e.g. "widgets/pages/hardware_page.cpp"
    std::string includes; // the resolved included file, e.g. "kernels/block_needs.h"
    std::string why;
};

inline std::string slurp(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline std::string stem_of(const std::string& relative)
{
    const fs::path p(relative);
    return (p.parent_path() / p.stem()).generic_string();
}

// "engine/study/study" -> "kwb_analysis", from every CMakeLists.txt under engine/.
inline std::map<std::string, std::string> engine_libraries(const fs::path& root)
{
    std::map<std::string, std::string> out;
    const std::regex call(R"((target_sources|add_library)\s*\(\s*(kwb_\w+)([^)]*)\))");
    const std::regex word(R"([\w./-]+\.cpp)");
    for (const auto& entry : fs::recursive_directory_iterator(root / "engine")) {
        if (entry.path().filename() != "CMakeLists.txt")
            continue;
        const std::string text = slurp(entry.path());
        const fs::path dir = fs::relative(entry.path().parent_path(), root);
        for (std::sregex_iterator m(text.begin(), text.end(), call), end; m != end; ++m) {
            const std::string files = (*m)[3];
            for (std::sregex_iterator f(files.begin(), files.end(), word); f != end; ++f)
                out[stem_of((dir / f->str()).generic_string())] = (*m)[2];
        }
    }
    return out;
}

class Checker {
public:
    explicit Checker(fs::path root)
        : root_(std::move(root))
        , libraries_(engine_libraries(root_))
    {
    }

    // The layer of a file given relative to the root; empty for files outside the layers (tests).
    // A header of the engine without a source of its own links nothing: it takes the lowest library
    // that includes it (so analysis code cannot reach the engine through one), else the highest of
    // its folder.
    std::string layer_of(const std::string& relative) const
    {
        if (relative.starts_with("kernels/"))
            return "kernels";
        if (relative.starts_with("widgets/"))
            return "widgets";
        if (relative.starts_with("app/"))
            return "app";
        if (!relative.starts_with("engine/"))
            return {};
        if (const auto it = libraries_.find(stem_of(relative)); it != libraries_.end())
            return it->second;
        if (const auto it = header_layers_.find(relative); it != header_layers_.end())
            return it->second;
        return folder_highest(relative);
    }

    static bool allowed(const std::string& from, const std::string& to)
    {
        static const std::map<std::string, std::set<std::string>> below {
            {"kwb_analysis", {"kwb_analysis"}},
            {"kwb_report", {"kwb_analysis", "kwb_report"}},
            {"kwb_engine", {"kwb_analysis", "kwb_engine"}},
            {"kernels", {"kwb_analysis", "kwb_engine", "kernels"}},
            {"widgets", {"kwb_analysis", "widgets"}},
        };
        if (from == "app" || to.empty())
            return true;
        const auto it = below.find(from);
        return it == below.end() || it->second.contains(to);
    }

    // Every include that breaks the layers, as "FILE:LINE: LAYER includes "X" (FILE2, LAYER2)",
    // less the debts; then every debt that no longer exists.
    std::vector<std::string> violations(const std::vector<Debt>& debts = {})
    {
        const auto edges = scan();
        settle_headers(edges);
        std::vector<std::string> out;
        std::set<std::pair<std::string, std::string>> seen_debts;
        for (const auto& e : edges) {
            const std::string from = layer_of(e.file);
            const auto where = e.file + ":" + std::to_string(e.line) + ": ";
            if (e.system) {
                if (from.starts_with("kwb_") && engine_forbidden_system(e.name))
                    out.push_back(where + "the engine includes <" + e.name + "> (the engine is Qt-free and CUDA-free)");
                continue;
            }
            const std::string to = e.target.empty() ? std::string() : layer_of(e.target);
            if (allowed(from, to))
                continue;
            if (is_debt(debts, e.file, e.target)) {
                seen_debts.insert({e.file, e.target});
                continue;
            }
            out.push_back(where + from + " includes \"" + e.name + "\" (" + e.target + ", " + to + ")");
        }
        for (const auto& d : debts)
            if (!seen_debts.contains({d.file, d.includes}))
                out.push_back(
                    "listed debt no longer exists (remove it from the list): " + d.file + " includes " + d.includes);
        return out;
    }

private:
    struct Edge {
        std::string file; // the includer, relative to the root
        int line = 0;
        std::string name; // as written
        bool system = false; // <...>
        std::string target; // the resolved file ("" when outside the tree)
    };

    std::vector<Edge> scan() const
    {
        std::vector<Edge> edges;
        const std::regex include(R"(^\s*#\s*include\s*([<"])([^">]+)[">])");
        for (const char* top : {"engine", "kernels", "widgets", "app"}) {
            if (!fs::exists(root_ / top))
                continue;
            for (const auto& entry : fs::recursive_directory_iterator(root_ / top)) {
                const auto ext = entry.path().extension();
                if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp" && ext != ".cuh" && ext != ".cu"))
                    continue;
                const std::string file = fs::relative(entry.path(), root_).generic_string();
                std::istringstream lines(slurp(entry.path()));
                std::string line;
                for (int number = 1; std::getline(lines, line); ++number) {
                    std::smatch m;
                    if (!std::regex_search(line, m, include))
                        continue;
                    const bool system = m[1] == "<";
                    edges.push_back({file, number, m[2], system,
                        system ? std::string() : resolve(entry.path().parent_path(), m[2])});
                }
            }
        }
        return edges;
    }

    // Headers of the engine without a source take the lowest library that includes them, to a fixpoint.
    void settle_headers(const std::vector<Edge>& edges)
    {
        header_layers_.clear();
        static const std::vector<std::string> order {"kwb_analysis", "kwb_report", "kwb_engine"};
        const auto rank = [](const std::string& lib) {
            const auto it = std::find(order.begin(), order.end(), lib);
            return it == order.end() ? order.size() : static_cast<size_t>(it - order.begin());
        };
        for (bool changed = true; changed;) {
            changed = false;
            for (const auto& e : edges) {
                if (e.target.empty() || !e.target.starts_with("engine/") || libraries_.contains(stem_of(e.target)))
                    continue;
                const std::string from = layer_of(e.file);
                if (rank(from) < rank(layer_of(e.target))) {
                    header_layers_[e.target] = from;
                    changed = true;
                }
            }
        }
    }

    std::string folder_highest(const std::string& relative) const
    {
        std::set<std::string> in_folder;
        const std::string folder = fs::path(relative).parent_path().generic_string() + "/";
        for (const auto& [stem, lib] : libraries_)
            if (stem.starts_with(folder) && stem.find('/', folder.size()) == std::string::npos)
                in_folder.insert(lib);
        for (const char* highest : {"kwb_engine", "kwb_report", "kwb_analysis"})
            if (in_folder.contains(highest))
                return highest;
        return "kwb_engine";
    }

    static bool engine_forbidden_system(const std::string& name)
    {
        return name.starts_with("Q") || name.starts_with("qt") || name.starts_with("cuda") || name.starts_with("cupti")
            || name == "nvml.h" || name.starts_with("cublas") || name.starts_with("nvtx");
    }

    static bool is_debt(const std::vector<Debt>& debts, const std::string& file, const std::string& target)
    {
        for (const auto& d : debts)
            if (d.file == file && d.includes == target)
                return true;
        return false;
    }

    // The file an include names: beside the includer, then under each include root of the build.
    std::string resolve(const fs::path& dir, const std::string& name) const
    {
        for (const fs::path& base : {dir, root_ / "engine", root_ / "kernels", root_ / "widgets", root_ / "app/kwb",
                 root_ / "app/workbench", root_ / "app"}) {
            const fs::path candidate = base / name;
            if (fs::is_regular_file(candidate))
                return fs::relative(fs::weakly_canonical(candidate), root_).generic_string();
        }
        return {};
    }

    fs::path root_;
    std::map<std::string, std::string> libraries_;
    std::map<std::string, std::string> header_layers_;
};

} // namespace kwb::layers
