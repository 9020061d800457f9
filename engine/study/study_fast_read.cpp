// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/study_fast_read.h"

#include "study/sample_scanner.h"
#include "util/json_scanner.h"

namespace kwb {
namespace {

// Walks the document's outline (the root object, root.experiments, each experiment's keys) and
// reads each root.experiments[i].samples array with scan_samples; every other value is skipped
// here and kept in `rest`, the text nlohmann parses afterwards.
//
// Why the outline can be trusted without being judged here: `rest` is the text with some spans
// cut to "[]", and each span is an array scan_samples read as strict JSON. So `rest` is valid
// JSON only if the whole text is, and then skipping strings and brackets (all the outline does)
// finds the same members a full parser finds. Keys of the root and of the experiments are read
// unescaped, and an escape in one gives up: "experiment\u0073" must not pass for another key.
class Outline {
public:
    explicit Outline(std::string_view text)
        : text_(text)
        , in_(text)
    {
    }

    std::optional<FastStudy> read()
    {
        if (!in_.eat('{'))
            return std::nullopt;
        bool experiments_seen = false;
        if (in_.peek() != '}') {
            do {
                std::string_view key;
                if (in_.peek() != '"' || !in_.plain_string(key) || !in_.eat(':'))
                    return std::nullopt;
                if (key == "experiments") {
                    if (experiments_seen)
                        return std::nullopt; // a duplicate: the DOM keeps the last, leave it to it
                    experiments_seen = true;
                    if (in_.peek() == '[') {
                        if (!experiments())
                            return std::nullopt;
                        continue;
                    }
                }
                if (!in_.skip_value())
                    return std::nullopt;
            } while (in_.eat(','));
        }
        // Whatever follows (the root's closing brace, or anything wrong) is nlohmann's to judge.
        rest_.append(text_.substr(copied_));
        result_.document = nlohmann::json::parse(rest_, nullptr, false);
        if (result_.document.is_discarded())
            return std::nullopt;
        return std::move(result_);
    }

private:
    bool experiments()
    {
        in_.eat('[');
        if (in_.eat(']'))
            return true;
        size_t index = 0;
        do {
            if (in_.peek() == '{') {
                if (!experiment(index))
                    return false;
            } else if (!in_.skip_value())
                return false; // not an object: study_from_json words it
            ++index;
        } while (in_.eat(','));
        return in_.eat(']');
    }

    bool experiment(size_t index)
    {
        in_.eat('{');
        if (in_.eat('}'))
            return true;
        bool samples_seen = false;
        do {
            std::string_view key;
            if (in_.peek() != '"' || !in_.plain_string(key) || !in_.eat(':'))
                return false;
            if (key == "samples") {
                if (samples_seen)
                    return false; // a duplicate: the DOM keeps the last, leave it to it
                samples_seen = true;
                // Not an array (null, a wrong type): it stays in the text for study_from_json.
                if (in_.peek() == '[') {
                    if (!samples(index))
                        return false;
                    continue;
                }
            }
            if (!in_.skip_value())
                return false;
        } while (in_.eat(','));
        return in_.eat('}');
    }

    bool samples(size_t index)
    {
        const size_t from = in_.offset();
        std::vector<Sample> read;
        if (!scan_samples(in_, read))
            return false;
        rest_.append(text_.substr(copied_, from - copied_));
        rest_ += "[]";
        copied_ = in_.offset();
        if (result_.samples.size() <= index)
            result_.samples.resize(index + 1);
        result_.samples[index] = std::move(read);
        return true;
    }

    std::string_view text_;
    JsonScanner in_;
    FastStudy result_;
    std::string rest_; // the text with every samples array read here cut to "[]"
    size_t copied_ = 0; // text_ up to here is in rest_
};

} // namespace

std::optional<FastStudy> read_study_fast(std::string_view text)
{
    return Outline(text).read();
}

} // namespace kwb
