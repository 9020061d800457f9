// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "json.h"

namespace kwb::worker {

// Parameters, outputs, metrics: what a kernel declares.

// A parameter value: a number (integer or not) or a string, as the protocol's `default` is.
class Value {
public:
    Value(int v)
        : Value(static_cast<long long>(v))
    {
    }
    Value(long v)
        : Value(static_cast<long long>(v))
    {
    }
    Value(long long v)
        : integer_(true)
        , number_(static_cast<double>(v))
        , int_(v)
    {
    }
    Value(double v)
        : number_(v)
    {
    }
    Value(const char* s)
        : string_(true)
        , text_(s)
    {
    }
    Value(std::string s)
        : string_(true)
        , text_(std::move(s))
    {
    }

    bool is_string() const { return string_; }
    bool is_integer() const { return integer_; }
    double number() const { return number_; }
    std::int64_t integer() const { return int_; }
    const std::string& text() const { return text_; }
    Json to_json() const
    {
        return string_ ? Json(text_) : integer_ ? Json(static_cast<long long>(int_)) : Json(number_);
    }
    std::string describe() const { return to_json().dump(); }

    bool operator==(const Value& o) const
    {
        if (string_ != o.string_)
            return false;
        return string_ ? text_ == o.text_ : number_ == o.number_;
    }

private:
    bool string_ = false;
    bool integer_ = false;
    double number_ = 0;
    std::int64_t int_ = 0;
    std::string text_;
};

// One parameter: the default fixes its type (int, floating, string); `values`, when not empty,
// lists the only ones allowed.
struct Param {
    std::string name;
    Value default_value;
    std::vector<Value> values = {};
    std::string description = {};
};

// The arm's values for every declared parameter (prepare's, with defaults for the rest).
class Params {
public:
    const Value& at(std::string_view name) const
    {
        for (const auto& [k, v] : values_)
            if (k == name)
                return v;
        throw std::out_of_range("no parameter '" + std::string(name) + "'");
    }
    std::int64_t integer(std::string_view name) const
    {
        const Value& v = at(name);
        if (!v.is_integer())
            throw std::invalid_argument("parameter '" + std::string(name) + "' is not an integer");
        return v.integer();
    }
    double number(std::string_view name) const
    {
        const Value& v = at(name);
        if (v.is_string())
            throw std::invalid_argument("parameter '" + std::string(name) + "' is not a number");
        return v.number();
    }
    const std::string& string(std::string_view name) const
    {
        const Value& v = at(name);
        if (!v.is_string())
            throw std::invalid_argument("parameter '" + std::string(name) + "' is not a string");
        return v.text();
    }
    void set(std::string name, Value value) { values_.emplace_back(std::move(name), std::move(value)); }
    const std::vector<std::pair<std::string, Value>>& all() const { return values_; }

private:
    std::vector<std::pair<std::string, Value>> values_;
};

enum class DType { f32, f64, f16, bf16 };
enum class Memory { host, device };

// The buffer `run` writes: the helper poisons it with NaN (all bits set, a NaN in every float
// type) before the verify launch and writes it out as float32.
struct Output {
    void* data = nullptr;
    std::size_t elements = 0;
    DType dtype = DType::f32;
    Memory memory = Memory::host;
};

inline Output host_output(float* p, std::size_t n)
{
    return {p, n, DType::f32, Memory::host};
}
inline Output host_output(double* p, std::size_t n)
{
    return {p, n, DType::f64, Memory::host};
}
inline Output device_output(float* p, std::size_t n)
{
    return {p, n, DType::f32, Memory::device};
}
inline Output device_output(double* p, std::size_t n)
{
    return {p, n, DType::f64, Memory::device};
}
// f16 / bf16 (e.g. __half*, __nv_bfloat16*), on the device or the host.
inline Output output(void* p, std::size_t n, DType dtype, Memory memory)
{
    return {p, n, dtype, memory};
}

struct Metric {
    std::string name;
    std::string unit = {};
    std::string direction = "lower"; // "lower" or "higher" is better
};

template<class State> struct Kernel {
    std::string name;
    std::string version = {};
    std::vector<Param> params = {};
    // setup(state, params, seed): allocate, draw inputs from seed. Called on a fresh State by
    // prepare, and again (on another fresh State) with kwb's seed by every verify.
    std::function<void(State&, const Params&, std::uint64_t)> setup;
    std::function<void(State&)> run; // one launch (asynchronous is fine: the helper synchronises)
    std::function<Output(State&)> output;
    std::function<std::vector<float>(State&)> reference = {}; // optional: host values, C order
    std::function<double(const Params&)> flop_per_launch = {}; // optional
    std::function<double(const Params&)> bytes_per_launch = {}; // optional
    double tolerance = 1e-5; // an element passes when |out - ref| <= tolerance * (1 + |ref|)
    std::vector<Metric> metrics = {};
    std::function<std::vector<std::pair<std::string, double>>(State&, double time_ms)> metric_values = {};
};

} // namespace kwb::worker
