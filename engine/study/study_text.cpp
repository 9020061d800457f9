// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/study_text.h"

#include "study/study_json.h"

namespace kwb {
namespace {

using nlohmann::json;

// Writes as nlohmann's dump(2) does (objects and arrays one member per line, two spaces a level,
// "key": value, {} and [] when empty; scalars through dump itself, so strings are escaped and
// numbers printed exactly as always), except root.experiments[i].samples, taken from the study.
class Writer {
public:
    Writer(const Study& study, std::string& out)
        : study_(study)
        , out_(out)
    {
    }

    void value(const json& v, int depth, const std::vector<Sample>* samples = nullptr)
    {
        if (samples) {
            write_samples(*samples, depth);
            return;
        }
        if (v.is_object() && !v.empty()) {
            out_ += "{\n";
            size_t i = 0;
            for (auto it = v.begin(); it != v.end(); ++it, ++i) {
                indent(depth + 1);
                out_ += json(it.key()).dump();
                out_ += ": ";
                value(*it, depth + 1, samples_at(depth, it.key()));
                out_ += i + 1 < v.size() ? ",\n" : "\n";
            }
            indent(depth);
            out_ += '}';
            return;
        }
        if (v.is_array() && !v.empty()) {
            out_ += "[\n";
            for (size_t i = 0; i < v.size(); ++i) {
                indent(depth + 1);
                if (depth == 1 && in_experiments_key_)
                    experiment_ = i;
                value(v[i], depth + 1);
                out_ += i + 1 < v.size() ? ",\n" : "\n";
            }
            indent(depth);
            out_ += ']';
            return;
        }
        out_ += v.dump();
    }

private:
    // The samples to write for the member `key` of an object at `depth`: only root.experiments[i]
    // (depth 2 inside root.experiments) has them.
    const std::vector<Sample>* samples_at(int depth, const std::string& key)
    {
        if (depth == 0)
            in_experiments_key_ = key == "experiments";
        if (depth == 2 && in_experiments_key_ && key == "samples" && experiment_ < study_.experiments.size())
            return &study_.experiments[experiment_].samples;
        return nullptr;
    }

    void write_samples(const std::vector<Sample>& samples, int depth)
    {
        if (samples.empty()) {
            out_ += "[]";
            return;
        }
        out_ += "[\n";
        for (size_t i = 0; i < samples.size(); ++i) {
            indent(depth + 1);
            out_ += sample_to_json(samples[i]).dump(); // one line per sample
            out_ += i + 1 < samples.size() ? ",\n" : "\n";
        }
        indent(depth);
        out_ += ']';
    }

    void indent(int depth) { out_.append(static_cast<size_t>(2 * depth), ' '); }

    const Study& study_;
    std::string& out_;
    bool in_experiments_key_ = false;
    size_t experiment_ = 0;
};

} // namespace

std::string study_text(const Study& study)
{
    size_t samples = 0;
    for (const auto& e : study.experiments)
        samples += e.samples.size();
    std::string out;
    out.reserve(4096 + samples * 224); // about what a sample takes on its line
    Writer(study, out).value(study_to_json(study, false), 0);
    out += '\n';
    return out;
}

} // namespace kwb
