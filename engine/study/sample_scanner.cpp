// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/sample_scanner.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace kwb {
namespace {

// The sample fields, as sample_from_json reads them (study_json.cpp). Every rule here mirrors one
// there; anything this reader is not sure of gives up, and the ordinary path decides.
enum class Field {
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
    Unknown,
};

template<size_t N> bool is(std::string_view key, const char (&name)[N])
{
    return std::memcmp(key.data(), name, N - 1) == 0; // a fixed size: a load or two, not a call
}

Field field_named(std::string_view key)
{
    switch (key.size()) {
    case 3:
        return is(key, "arm") ? Field::Arm : is(key, "rep") ? Field::Rep : is(key, "t_s") ? Field::TS : Field::Unknown;
    case 4:
        return is(key, "note") ? Field::Note : Field::Unknown;
    case 6:
        return is(key, "warmup") ? Field::Warmup : is(key, "failed") ? Field::Failed : Field::Unknown;
    case 7:
        return is(key, "metrics") ? Field::Metrics
            : is(key, "adapter")  ? Field::Adapter
            : is(key, "power_w")  ? Field::PowerW
                                  : Field::Unknown;
    case 8:
        return is(key, "position") ? Field::Position : is(key, "launches") ? Field::Launches : Field::Unknown;
    case 9:
        return is(key, "discarded") ? Field::Discarded
            : is(key, "throttled")  ? Field::Throttled
            : is(key, "clock_mhz")  ? Field::ClockMhz
                                    : Field::Unknown;
    case 10:
        return is(key, "duration_s") ? Field::DurationS
            : is(key, "started_at")  ? Field::StartedAt
            : is(key, "iterations")  ? Field::Iterations
                                     : Field::Unknown;
    case 11:
        return is(key, "exit_status") ? Field::ExitStatus
            : is(key, "stdout_tail")  ? Field::StdoutTail
            : is(key, "stderr_tail")  ? Field::StderrTail
            : is(key, "fingerprint")  ? Field::Fingerprint
                                      : Field::Unknown;
    case 13:
        return is(key, "temperature_c") ? Field::TemperatureC
            : is(key, "mem_clock_mhz")  ? Field::MemClockMhz
                                        : Field::Unknown;
    case 16:
        return is(key, "throttle_reasons") ? Field::ThrottleReasons
            : is(key, "peak_gpu_mem_mib")  ? Field::PeakGpuMemMib
                                           : Field::Unknown;
    default:
        return Field::Unknown;
    }
}

constexpr unsigned bit(Field f)
{
    return 1u << static_cast<unsigned>(f);
}

class SampleReader {
public:
    explicit SampleReader(JsonScanner& in)
        : in_(in)
    {
    }

    bool sample(Sample& s)
    {
        if (!in_.eat('{'))
            return false; // a sample that is not an object: sample_from_json words the error
        unsigned seen = 0;
        present_ = 0;
        if (!in_.eat('}')) {
            do {
                std::string_view key;
                if (in_.peek() != '"' || !in_.string(key, scratch_))
                    return false;
                const Field field = field_named(key);
                // A key this reader does not know goes to the ordinary path, which keeps what it
                // knows: slower, never a field silently dropped.
                if (field == Field::Unknown || (seen & bit(field)))
                    return false; // or a duplicate key: the DOM keeps the last one, leave it to it
                seen |= bit(field);
                if (!in_.eat(':') || !value(s, field))
                    return false;
            } while (in_.eat(','));
            if (!in_.eat('}'))
                return false;
        }
        constexpr unsigned required = bit(Field::Arm) | bit(Field::Rep) | bit(Field::Position);
        return (present_ & required) == required; // else "missing": sample_from_json words it
    }

private:
    bool value(Sample& s, Field field)
    {
        if (in_.peek() == 'n')
            return in_.literal("null"); // null is "not set" everywhere; a required field stays missing
        switch (field) {
        case Field::Arm:
            present_ |= bit(field);
            return string(s.arm);
        case Field::Rep:
            present_ |= bit(field);
            return integer(s.rep);
        case Field::Position:
            present_ |= bit(field);
            return integer(s.position);
        case Field::StartedAt:
            return string(s.started_at);
        case Field::DurationS:
            return number(s.duration_s);
        case Field::Metrics:
            return metrics(s.metrics);
        case Field::Iterations:
            return iterations(s.iterations);
        case Field::ClockMhz:
            return number(s.clock_mhz);
        case Field::TemperatureC:
            return number(s.temperature_c);
        case Field::Warmup:
            return boolean(s.warmup);
        case Field::Discarded:
            return boolean(s.discarded);
        case Field::Throttled:
            return boolean(s.throttled);
        case Field::Note:
            return string(s.note);
        case Field::MemClockMhz:
            return number(s.mem_clock_mhz);
        case Field::PowerW:
            return number(s.power_w);
        case Field::ThrottleReasons:
            return strings(s.throttle_reasons);
        case Field::Launches:
            return integer(s.launches);
        case Field::Failed:
            return boolean(s.failed);
        case Field::ExitStatus:
            return integer(s.exit_status);
        case Field::StdoutTail:
            return string(s.stdout_tail);
        case Field::StderrTail:
            return string(s.stderr_tail);
        case Field::Adapter:
            return string(s.adapter);
        case Field::Fingerprint:
            return fingerprint(s.fingerprint);
        case Field::PeakGpuMemMib:
            return number(s.peak_gpu_mem_mib);
        case Field::TS:
            return number(s.t_s);
        case Field::Unknown:
            break;
        }
        return false;
    }

    bool string(std::string& out)
    {
        std::string_view v;
        if (in_.peek() != '"' || !in_.string(v, scratch_))
            return false;
        out.assign(v);
        return true;
    }

    bool number(double& out)
    {
        const char c = in_.peek();
        JsonScanner::Number n;
        if (!(c == '-' || (c >= '0' && c <= '9')) || !in_.number(n) || !std::isfinite(n.value))
            return false;
        out = n.value;
        return true;
    }

    bool number(std::optional<double>& out)
    {
        double v = 0;
        if (!number(v))
            return false;
        out = v;
        return true;
    }

    // An int field: an integer token within the range of an int (1.5, 1e2 and 2147483648 are
    // errors sample_from_json words).
    bool integer(int& out)
    {
        const char c = in_.peek();
        JsonScanner::Number n;
        if (!(c == '-' || (c >= '0' && c <= '9')) || !in_.number(n) || !n.integer || !n.fits_int)
            return false;
        out = n.as_int;
        return true;
    }

    bool integer(std::optional<int>& out)
    {
        int v = 0;
        if (!integer(v))
            return false;
        out = v;
        return true;
    }

    bool boolean(bool& out)
    {
        const char c = in_.peek();
        out = c == 't';
        return c == 't' ? in_.literal("true") : c == 'f' && in_.literal("false");
    }

    // A metric written as null (a non-finite value) is left out, as measured_map leaves it out.
    bool metrics(std::map<std::string, double>& out)
    {
        if (!in_.eat('{'))
            return false;
        if (in_.eat('}'))
            return true;
        do {
            std::string_view name;
            if (in_.peek() != '"' || !in_.string(name, scratch_) || !in_.eat(':'))
                return false;
            if (in_.peek() == 'n') {
                // A duplicate name: the DOM keeps the last, null, and drops the metric.
                if (!in_.literal("null") || out.find(std::string(name)) != out.end())
                    return false;
                continue;
            }
            double v = 0;
            if (!number(v))
                return false;
            // Saved maps come sorted: each name goes at the end, without a search.
            if (out.empty() || std::string_view(out.rbegin()->first) < name)
                out.emplace_hint(out.end(), name, v);
            else if (!out.emplace(name, v).second)
                return false; // a duplicate name: the DOM keeps the last, leave it to it
        } while (in_.eat(','));
        return in_.eat('}');
    }

    // A null iteration (a non-finite value) reads back as NaN, as measured_list reads it.
    bool iterations(std::vector<double>& out)
    {
        if (!in_.eat('['))
            return false;
        if (in_.eat(']'))
            return true;
        do {
            if (in_.peek() == 'n') {
                if (!in_.literal("null"))
                    return false;
                out.push_back(std::numeric_limits<double>::quiet_NaN());
                continue;
            }
            double v = 0;
            if (!number(v))
                return false;
            out.push_back(v);
        } while (in_.eat(','));
        return in_.eat(']');
    }

    bool strings(std::vector<std::string>& out)
    {
        if (!in_.eat('['))
            return false;
        if (in_.eat(']'))
            return true;
        do {
            if (!string(out.emplace_back()))
                return false;
        } while (in_.eat(','));
        return in_.eat(']');
    }

    // Only strings: sample_from_json keeps another value as its JSON text, which this reader does
    // not reproduce.
    bool fingerprint(std::map<std::string, std::string>& out)
    {
        if (!in_.eat('{'))
            return false;
        if (in_.eat('}'))
            return true;
        do {
            std::string_view key;
            if (in_.peek() != '"' || !in_.string(key, scratch_) || !in_.eat(':'))
                return false;
            std::string k(key); // the value's string may reuse scratch_
            std::string v;
            if (!string(v) || !out.emplace(std::move(k), std::move(v)).second)
                return false; // a duplicate key: the DOM keeps the last, leave it to it
        } while (in_.eat(','));
        return in_.eat('}');
    }

    JsonScanner& in_;
    std::string scratch_; // a string with escapes, decoded
    unsigned present_ = 0; // required fields present with a value
};

} // namespace

bool scan_samples(JsonScanner& in, std::vector<Sample>& out)
{
    if (!in.eat('['))
        return false;
    if (in.eat(']'))
        return true;
    SampleReader reader(in);
    const size_t first = in.offset();
    do {
        if (!reader.sample(out.emplace_back()))
            return false;
        if (out.size() == 1) {
            // Room for as many samples as the rest of the text holds at the first one's length
            // (at least 128 bytes, about the shortest a saved sample is): a vector grown by
            // doubling moves every sample about twice. Too few is only the doubling again.
            const size_t length = std::max<size_t>(in.offset() - first, 128);
            out.reserve(1 + in.remaining() / length);
        }
    } while (in.eat(','));
    return in.eat(']');
}

} // namespace kwb
