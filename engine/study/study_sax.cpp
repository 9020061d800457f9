// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/study_sax.h"

#include <cmath>
#include <limits>

namespace kwb {
namespace {

using nlohmann::json;

// The sample fields, as sample_from_json reads them (study_json.cpp). Every rule here mirrors one
// there; anything the fast reader is not sure of gives up, and the ordinary path decides.
enum class Field {
    Unknown,
    Arm,
    Rep,
    Position,
    StartedAt,
    DurationS,
    Metrics,
    Iterations,
    ClockMhz,
    TemperatureC,
    Warmup,
    Discarded,
    Throttled,
    Note,
    MemClockMhz,
    PowerW,
    ThrottleReasons,
    Launches,
    Failed,
    ExitStatus,
    StdoutTail,
    StderrTail,
    Adapter,
    Fingerprint,
    PeakGpuMemMib,
    TS,
};

constexpr std::pair<std::string_view, Field> kFields[]
    = {{"arm", Field::Arm}, {"rep", Field::Rep}, {"position", Field::Position}, {"started_at", Field::StartedAt},
        {"duration_s", Field::DurationS}, {"metrics", Field::Metrics}, {"warmup", Field::Warmup},
        {"discarded", Field::Discarded}, {"throttled", Field::Throttled}, {"iterations", Field::Iterations},
        {"clock_mhz", Field::ClockMhz}, {"temperature_c", Field::TemperatureC}, {"note", Field::Note},
        {"mem_clock_mhz", Field::MemClockMhz}, {"power_w", Field::PowerW}, {"throttle_reasons", Field::ThrottleReasons},
        {"launches", Field::Launches}, {"failed", Field::Failed}, {"exit_status", Field::ExitStatus},
        {"stdout_tail", Field::StdoutTail}, {"stderr_tail", Field::StderrTail}, {"adapter", Field::Adapter},
        {"fingerprint", Field::Fingerprint}, {"peak_gpu_mem_mib", Field::PeakGpuMemMib}, {"t_s", Field::TS}};

Field field_named(std::string_view key)
{
    for (const auto& [name, field] : kFields)
        if (name == key)
            return field;
    return Field::Unknown;
}

// The SAX handler: a DOM builder (as nlohmann's own) that diverts root.experiments[i].samples.
class Reader {
public:
    SaxStudy result;

    // --- scalars ---------------------------------------------------------------------------
    bool null() { return in_samples() ? sample_null() : put(nullptr); }
    bool boolean(bool v) { return in_samples() ? sample_bool(v) : put(v); }
    bool number_integer(json::number_integer_t v)
    {
        return in_samples() ? sample_integer(static_cast<double>(v), static_cast<int>(v),
                   v >= std::numeric_limits<int>::min() && v <= std::numeric_limits<int>::max())
                            : put(v);
    }
    bool number_unsigned(json::number_unsigned_t v)
    {
        return in_samples() ? sample_integer(static_cast<double>(v), static_cast<int>(v),
                   v <= static_cast<json::number_unsigned_t>(std::numeric_limits<int>::max()))
                            : put(v);
    }
    bool number_float(json::number_float_t v, const std::string&) { return in_samples() ? sample_float(v) : put(v); }
    bool string(std::string& v) { return in_samples() ? sample_string(v) : put(v); }
    bool binary(json::binary_t&) { return false; } // never in JSON text

    // --- structure -------------------------------------------------------------------------
    bool start_object(std::size_t)
    {
        if (in_samples())
            return sample_start(true);
        stack_.push_back(put_value(json::value_t::object));
        return true;
    }
    bool end_object()
    {
        if (in_samples())
            return sample_end(true);
        stack_.pop_back();
        return true;
    }
    bool start_array(std::size_t)
    {
        if (samples_key_pending_) {
            samples_key_pending_ = false;
            auto& slot = result.samples[experiment_index()];
            if (slot)
                return false; // a duplicate "samples" key: the DOM keeps the last, leave it to it
            slot.emplace();
            samples_ = &*slot;
            mode_ = Mode::Array;
            return true;
        }
        if (in_samples())
            return sample_start(false);
        json* array = put_value(json::value_t::array);
        if (stack_.size() == 1 && pending_root_key_ == "experiments") {
            experiments_ = array;
        }
        stack_.push_back(array);
        return true;
    }
    bool end_array()
    {
        if (in_samples())
            return sample_end(false);
        stack_.pop_back();
        return true;
    }
    bool key(std::string& k)
    {
        if (in_samples())
            return sample_key(k);
        if (stack_.size() == 1) {
            if (k == "experiments" && pending_root_key_seen_experiments_)
                return false; // a duplicate "experiments" key: the DOM keeps the last
            pending_root_key_seen_experiments_ |= k == "experiments";
            pending_root_key_ = k;
        }
        // An experiment's "samples": an array is read directly (start_array), anything else
        // (null, a wrong type) goes to the DOM for study_from_json to judge.
        if (stack_.size() == 3 && stack_[1] == experiments_ && k == "samples") {
            if (result.samples.size() <= experiment_index())
                result.samples.resize(experiment_index() + 1);
            samples_key_pending_ = true;
            return true;
        }
        slot_ = &(*stack_.back())[k];
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

private:
    // Where the reader is inside a samples array.
    enum class Mode {
        Dom, // not in a samples array
        Array, // between samples
        Sample, // in a sample's fields
        Metrics, // in a sample's "metrics" object
        Iterations, // in a sample's "iterations" array
        Reasons, // in a sample's "throttle_reasons" array
        Fingerprint, // in a sample's "fingerprint" object
        Skip, // in the value of a field sample_from_json does not read
    };

    bool in_samples() const { return mode_ != Mode::Dom; }
    size_t experiment_index() const { return experiments_->size() - 1; }

    // --- the DOM side ----------------------------------------------------------------------
    template<typename V> json* put_value(V&& v)
    {
        if (samples_key_pending_) {
            // "samples" was not an array: it goes into the DOM, as it always did.
            samples_key_pending_ = false;
            slot_ = &(*stack_.back())["samples"];
        }
        if (stack_.empty()) {
            result.document = json(std::forward<V>(v));
            return &result.document;
        }
        if (stack_.back()->is_array()) {
            stack_.back()->emplace_back(std::forward<V>(v));
            return &stack_.back()->back();
        }
        *slot_ = json(std::forward<V>(v));
        return slot_;
    }
    template<typename V> bool put(V&& v)
    {
        put_value(std::forward<V>(v));
        return true;
    }

    // --- the samples side ------------------------------------------------------------------
    bool sample_start(bool object)
    {
        switch (mode_) {
        case Mode::Array:
            if (!object)
                return false; // a sample that is not an object: sample_from_json words the error
            current_ = Sample {};
            seen_ = 0;
            present_ = 0;
            mode_ = Mode::Sample;
            return true;
        case Mode::Sample:
            if (field_ == Field::Metrics && object)
                mode_ = Mode::Metrics;
            else if (field_ == Field::Fingerprint && object)
                mode_ = Mode::Fingerprint;
            else if (field_ == Field::Iterations && !object)
                mode_ = Mode::Iterations;
            else if (field_ == Field::ThrottleReasons && !object)
                mode_ = Mode::Reasons;
            else if (field_ == Field::Unknown) {
                mode_ = Mode::Skip;
                skip_depth_ = 1;
            } else
                return false;
            return true;
        case Mode::Skip:
            ++skip_depth_;
            return true;
        default:
            return false; // nested values inside metrics, iterations...: not a shape it reads
        }
    }
    bool sample_end(bool object)
    {
        switch (mode_) {
        case Mode::Array:
            mode_ = Mode::Dom; // the samples array ends
            samples_ = nullptr;
            return true;
        case Mode::Sample: {
            constexpr unsigned required
                = (1u << unsigned(Field::Arm)) | (1u << unsigned(Field::Rep)) | (1u << unsigned(Field::Position));
            if ((present_ & required) != required)
                return false; // "missing": sample_from_json words it
            samples_->push_back(std::move(current_));
            present_ = 0;
            mode_ = Mode::Array;
            return true;
        }
        case Mode::Metrics:
        case Mode::Fingerprint:
            if (!object)
                return false;
            mode_ = Mode::Sample;
            return true;
        case Mode::Iterations:
        case Mode::Reasons:
            if (object)
                return false;
            mode_ = Mode::Sample;
            return true;
        case Mode::Skip:
            if (--skip_depth_ == 0)
                mode_ = Mode::Sample;
            return true;
        default:
            return false;
        }
    }
    bool sample_key(const std::string& k)
    {
        switch (mode_) {
        case Mode::Sample: {
            field_ = field_named(k);
            // A key this reader does not know (a newer file's, or a field added to sample_from_json
            // and not yet here) goes to the ordinary path, which keeps what it knows: slower, never
            // a field silently dropped.
            if (field_ == Field::Unknown)
                return false;
            const unsigned bit = 1u << unsigned(field_);
            if (seen_ & bit)
                return false; // a duplicate key: the DOM keeps the last one, leave it to it
            seen_ |= bit;
            return true;
        }
        case Mode::Metrics:
        case Mode::Fingerprint:
            inner_key_ = k;
            return true;
        case Mode::Skip:
            return true;
        default:
            return false;
        }
    }
    bool sample_null()
    {
        switch (mode_) {
        case Mode::Sample:
            // null is "not set" everywhere: defaults stay; a required field stays missing.
            return true;
        case Mode::Metrics:
            // A metric written as null (a non-finite value) is left out; a duplicate name is
            // not judged here.
            return current_.metrics.find(inner_key_) == current_.metrics.end();
        case Mode::Iterations:
            current_.iterations.push_back(std::numeric_limits<double>::quiet_NaN());
            return true;
        case Mode::Skip:
            return true;
        default:
            return false;
        }
    }
    bool sample_bool(bool v)
    {
        if (mode_ == Mode::Skip)
            return true;
        if (mode_ != Mode::Sample)
            return false;
        switch (field_) {
        case Field::Warmup:
            current_.warmup = v;
            return true;
        case Field::Discarded:
            current_.discarded = v;
            return true;
        case Field::Throttled:
            current_.throttled = v;
            return true;
        case Field::Failed:
            current_.failed = v;
            return true;
        case Field::Unknown:
            return true;
        default:
            return false;
        }
    }
    // as_double is the value as json::get<double> gives it; as_int is only meaningful when fits_int.
    bool sample_integer(double as_double, int as_int, bool fits_int)
    {
        if (mode_ == Mode::Sample) {
            int* target = nullptr;
            std::optional<int>* optional_target = nullptr;
            switch (field_) {
            case Field::Rep:
                target = &current_.rep;
                break;
            case Field::Position:
                target = &current_.position;
                break;
            case Field::Launches:
                optional_target = &current_.launches;
                break;
            case Field::ExitStatus:
                optional_target = &current_.exit_status;
                break;
            default:
                return sample_float(as_double);
            }
            if (!fits_int)
                return false; // out of the range of an int: sample_from_json words it
            if (target) {
                *target = as_int;
                present_ |= 1u << unsigned(field_);
            } else
                *optional_target = as_int;
            return true;
        }
        return sample_float(as_double);
    }
    bool sample_float(double v)
    {
        switch (mode_) {
        case Mode::Skip:
            return true;
        case Mode::Metrics:
            if (!std::isfinite(v))
                return false;
            return current_.metrics.emplace(inner_key_, v).second; // a duplicate name: give up
        case Mode::Iterations:
            current_.iterations.push_back(v);
            return true;
        case Mode::Sample:
            break;
        default:
            return false;
        }
        if (!std::isfinite(v))
            return false;
        switch (field_) {
        case Field::DurationS:
            current_.duration_s = v;
            return true;
        case Field::ClockMhz:
            current_.clock_mhz = v;
            return true;
        case Field::TemperatureC:
            current_.temperature_c = v;
            return true;
        case Field::MemClockMhz:
            current_.mem_clock_mhz = v;
            return true;
        case Field::PowerW:
            current_.power_w = v;
            return true;
        case Field::PeakGpuMemMib:
            current_.peak_gpu_mem_mib = v;
            return true;
        case Field::TS:
            current_.t_s = v;
            return true;
        case Field::Unknown:
            return true;
        default:
            return false; // e.g. rep written as 1.5: sample_from_json words it
        }
    }
    bool sample_string(std::string& v)
    {
        switch (mode_) {
        case Mode::Skip:
            return true;
        case Mode::Reasons:
            current_.throttle_reasons.push_back(v);
            return true;
        case Mode::Fingerprint:
            return current_.fingerprint.emplace(inner_key_, v).second;
        case Mode::Sample:
            break;
        default:
            return false;
        }
        switch (field_) {
        case Field::Arm:
            current_.arm = v;
            present_ |= 1u << unsigned(Field::Arm);
            return true;
        case Field::StartedAt:
            current_.started_at = v;
            return true;
        case Field::Note:
            current_.note = v;
            return true;
        case Field::StdoutTail:
            current_.stdout_tail = v;
            return true;
        case Field::StderrTail:
            current_.stderr_tail = v;
            return true;
        case Field::Adapter:
            current_.adapter = v;
            return true;
        case Field::Unknown:
            return true;
        default:
            return false;
        }
    }

    std::vector<json*> stack_;
    json* slot_ = nullptr; // the object member the next value goes into
    json* experiments_ = nullptr; // root.experiments, once it is an array
    std::string pending_root_key_;
    bool pending_root_key_seen_experiments_ = false;
    bool samples_key_pending_ = false;

    Mode mode_ = Mode::Dom;
    std::vector<Sample>* samples_ = nullptr;
    Sample current_;
    Field field_ = Field::Unknown;
    unsigned seen_ = 0; // fields seen in the current sample (duplicates give up)
    unsigned present_ = 0; // required fields present with a value
    std::string inner_key_;
    int skip_depth_ = 0;
};

} // namespace

std::optional<SaxStudy> read_study_sax(std::string_view text)
{
    Reader reader;
    if (!json::sax_parse(text.data(), text.data() + text.size(), &reader))
        return std::nullopt;
    return std::move(reader.result);
}

} // namespace kwb
