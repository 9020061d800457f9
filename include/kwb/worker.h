// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// kwb/worker.h: a C++ benchmark program as a Kernel Workbench worker arm (docs/worker-protocol.md,
// protocol 1). One header, C++17, no dependency beyond the CUDA runtime, and not even that when
// compiled without CUDA: with nvcc (__CUDACC__) or KWB_WORKER_CUDA defined, launches are timed with
// CUDA events on the legacy default stream and the L2 is flushed for cold timing; otherwise
// std::chrono::steady_clock times them and there is no cache to flush.
//
//     struct State { std::vector<float> a, b, c; int n = 0; };
//     int main(int argc, char** argv)
//     {
//         kwb::worker::Kernel<State> k;
//         k.name = "my-kernel";
//         k.params = {{"n", 1024, {}, "problem size"}, {"variant", "fast", {"fast", "slow"}}};
//         k.setup = [](State& s, const kwb::worker::Params& p, std::uint64_t seed) { /* inputs from seed */ };
//         k.run = [](State& s) { /* one launch */ };
//         k.output = [](State& s) { return kwb::worker::host_output(s.c.data(), s.c.size()); };
//         k.reference = [](State& s) { return std::vector<float>(/* the right answer */); }; // optional
//         k.flop_per_launch = [](const kwb::worker::Params& p) { return 2.0 * p.integer("n"); }; // optional
//         return kwb::worker::serve(k, argc, argv);
//     }
//
// serve() first moves the protocol onto private duplicates of fds 0 and 1, points fd 1 at stderr
// and fd 0 at /dev/null: whatever the program or its libraries print after that lands in kwb's
// stderr tail and cannot corrupt the protocol. Print nothing to stdout before calling it.
// Exceptions thrown by the kernel's callables are answered `ok: false` with what(); the worker
// keeps serving. Launches on the legacy default stream or on blocking streams are timed correctly;
// work on a cudaStreamNonBlocking stream is not ordered with the timing events.

#if defined(__CUDACC__) || defined(KWB_WORKER_CUDA)
#define KWB_WORKER_HAS_CUDA 1
#include <cuda_runtime.h>
#else
#define KWB_WORKER_HAS_CUDA 0
#endif

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <locale>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unistd.h>
#include <utility>
#include <vector>

namespace kwb::worker {

inline constexpr int kProtocol = 1;
inline constexpr std::size_t kMaxMessageBytes = std::size_t {1} << 20;

// ---------------------------------------------------------------------------------------------
// JSON: what the protocol's small, flat messages need (RFC 8259, strict: no NaN, no trailing
// commas, no comments, no lone surrogates, nothing after the value). Numbers keep their text, so
// a 64-bit seed is read exactly.

class JsonError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Json {
public:
    enum class Type { null, boolean, number, string, array, object };

    Json() = default;
    Json(std::nullptr_t) { }
    Json(bool b)
        : type_(Type::boolean)
        , bool_(b)
    {
    }
    Json(int v)
        : Json(static_cast<long long>(v))
    {
    }
    Json(long v)
        : Json(static_cast<long long>(v))
    {
    }
    Json(long long v)
        : type_(Type::number)
        , number_(static_cast<double>(v))
        , text_(std::to_string(v))
    {
    }
    Json(unsigned v)
        : Json(static_cast<unsigned long long>(v))
    {
    }
    Json(unsigned long v)
        : Json(static_cast<unsigned long long>(v))
    {
    }
    Json(unsigned long long v)
        : type_(Type::number)
        , number_(static_cast<double>(v))
        , text_(std::to_string(v))
    {
    }
    Json(double v)
    {
        if (std::isfinite(v)) { // JSON has no NaN or infinity: those stay null
            type_ = Type::number;
            number_ = v;
            text_ = format_double(v);
        }
    }
    Json(const char* s)
        : type_(Type::string)
        , text_(s)
    {
    }
    Json(std::string s)
        : type_(Type::string)
        , text_(std::move(s))
    {
    }

    static Json array(std::vector<Json> items = {})
    {
        Json j;
        j.type_ = Type::array;
        j.items_ = std::move(items);
        return j;
    }
    static Json object()
    {
        Json j;
        j.type_ = Type::object;
        return j;
    }
    // A number from its JSON text (already checked against the grammar).
    static Json number_from_text(std::string text)
    {
        Json j;
        j.type_ = Type::number;
        std::istringstream in(text);
        in.imbue(std::locale::classic());
        in >> j.number_;
        j.text_ = std::move(text);
        return j;
    }

    Type type() const { return type_; }
    bool is_null() const { return type_ == Type::null; }
    bool is_bool() const { return type_ == Type::boolean; }
    bool is_number() const { return type_ == Type::number; }
    bool is_string() const { return type_ == Type::string; }
    bool is_array() const { return type_ == Type::array; }
    bool is_object() const { return type_ == Type::object; }

    bool boolean() const { return bool_; }
    double number() const { return number_; }
    // The string's value, or a number's JSON text.
    const std::string& text() const { return text_; }
    const std::vector<Json>& items() const { return items_; }
    const std::vector<std::string>& keys() const { return keys_; }

    // An integral number as int64 / uint64 (4096 and 4096.0 both are); false when it is not one.
    bool to_int64(std::int64_t& out) const
    {
        if (!is_number())
            return false;
        if (text_.find_first_of(".eE") == std::string::npos) {
            const auto r = std::from_chars(text_.data(), text_.data() + text_.size(), out);
            return r.ec == std::errc() && r.ptr == text_.data() + text_.size();
        }
        if (number_ != std::floor(number_) || std::fabs(number_) > 9.007199254740992e15)
            return false;
        out = static_cast<std::int64_t>(number_);
        return true;
    }
    bool to_uint64(std::uint64_t& out) const
    {
        if (!is_number() || text_.empty() || text_[0] == '-')
            return false;
        if (text_.find_first_of(".eE") == std::string::npos) {
            const auto r = std::from_chars(text_.data(), text_.data() + text_.size(), out);
            return r.ec == std::errc() && r.ptr == text_.data() + text_.size();
        }
        if (number_ != std::floor(number_) || number_ > 9.007199254740992e15)
            return false;
        out = static_cast<std::uint64_t>(number_);
        return true;
    }

    // Object member or null.
    const Json* find(std::string_view key) const
    {
        for (std::size_t i = 0; i < keys_.size(); ++i)
            if (keys_[i] == key)
                return &items_[i];
        return nullptr;
    }
    // Object: sets (or replaces) a member; array: appends. Returns *this to chain.
    Json& set(std::string key, Json value)
    {
        for (std::size_t i = 0; i < keys_.size(); ++i)
            if (keys_[i] == key) {
                items_[i] = std::move(value);
                return *this;
            }
        keys_.push_back(std::move(key));
        items_.push_back(std::move(value));
        return *this;
    }
    Json& push(Json value)
    {
        items_.push_back(std::move(value));
        return *this;
    }

    std::string dump() const
    {
        std::string out;
        dump_to(out);
        return out;
    }

    static Json parse(std::string_view text);

    static std::string format_double(double v)
    {
        // The shortest of %.15g and %.17g that reads back as the same double.
        for (int precision : {15, 17}) {
            std::ostringstream s;
            s.imbue(std::locale::classic());
            s.precision(precision);
            s << v;
            std::istringstream back(s.str());
            back.imbue(std::locale::classic());
            double r = 0;
            back >> r;
            if (r == v || precision == 17)
                return s.str();
        }
        return "0";
    }

private:
    void dump_to(std::string& out) const
    {
        switch (type_) {
        case Type::null:
            out += "null";
            break;
        case Type::boolean:
            out += bool_ ? "true" : "false";
            break;
        case Type::number:
            out += text_;
            break;
        case Type::string:
            dump_string(text_, out);
            break;
        case Type::array:
            out += '[';
            for (std::size_t i = 0; i < items_.size(); ++i) {
                if (i)
                    out += ',';
                items_[i].dump_to(out);
            }
            out += ']';
            break;
        case Type::object:
            out += '{';
            for (std::size_t i = 0; i < keys_.size(); ++i) {
                if (i)
                    out += ',';
                dump_string(keys_[i], out);
                out += ':';
                items_[i].dump_to(out);
            }
            out += '}';
            break;
        }
    }
    static void dump_string(const std::string& s, std::string& out)
    {
        static constexpr char kHex[] = "0123456789abcdef";
        out += '"';
        for (const char c : s) {
            const auto u = static_cast<unsigned char>(c);
            switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (u < 0x20) {
                    out += "\\u00";
                    out += kHex[u >> 4];
                    out += kHex[u & 0xf];
                } else {
                    out += c;
                }
            }
        }
        out += '"';
    }

    friend class JsonParser;
    Type type_ = Type::null;
    bool bool_ = false;
    double number_ = 0;
    std::string text_;
    std::vector<Json> items_; // array elements, or object values
    std::vector<std::string> keys_; // object keys, beside items_
};

class JsonParser {
public:
    explicit JsonParser(std::string_view text)
        : s_(text)
    {
    }

    Json document()
    {
        Json value = parse_value(0);
        skip_space();
        if (pos_ != s_.size())
            fail("unexpected text after the value");
        return value;
    }

private:
    static constexpr int kMaxDepth = 64;

    [[noreturn]] void fail(const std::string& why) const
    {
        throw JsonError("malformed JSON at byte " + std::to_string(pos_) + ": " + why);
    }
    void skip_space()
    {
        while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
            ++pos_;
    }
    bool eat(char c)
    {
        if (pos_ < s_.size() && s_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    void expect_word(std::string_view word)
    {
        if (s_.substr(pos_, word.size()) != word)
            fail("unexpected character");
        pos_ += word.size();
    }

    Json parse_value(int depth)
    {
        if (depth > kMaxDepth)
            fail("nested too deeply");
        skip_space();
        if (pos_ >= s_.size())
            fail("unexpected end");
        const char c = s_[pos_];
        if (c == '{')
            return parse_object(depth);
        if (c == '[')
            return parse_array(depth);
        if (c == '"')
            return Json(parse_string());
        if (c == 't') {
            expect_word("true");
            return Json(true);
        }
        if (c == 'f') {
            expect_word("false");
            return Json(false);
        }
        if (c == 'n') {
            expect_word("null");
            return Json();
        }
        if (c == '-' || (c >= '0' && c <= '9'))
            return parse_number();
        fail("unexpected character");
    }

    Json parse_object(int depth)
    {
        ++pos_; // '{'
        Json obj = Json::object();
        skip_space();
        if (eat('}'))
            return obj;
        for (;;) {
            skip_space();
            if (pos_ >= s_.size() || s_[pos_] != '"')
                fail("expected a string key");
            std::string key = parse_string();
            skip_space();
            if (!eat(':'))
                fail("expected ':'");
            obj.set(std::move(key), parse_value(depth + 1));
            skip_space();
            if (eat('}'))
                return obj;
            if (!eat(','))
                fail("expected ',' or '}'");
        }
    }

    Json parse_array(int depth)
    {
        ++pos_; // '['
        Json arr = Json::array();
        skip_space();
        if (eat(']'))
            return arr;
        for (;;) {
            arr.push(parse_value(depth + 1));
            skip_space();
            if (eat(']'))
                return arr;
            if (!eat(','))
                fail("expected ',' or ']'");
        }
    }

    unsigned hex4()
    {
        if (pos_ + 4 > s_.size())
            fail("short \\u escape");
        unsigned v = 0;
        for (int i = 0; i < 4; ++i) {
            const char h = s_[pos_++];
            v <<= 4;
            if (h >= '0' && h <= '9')
                v |= static_cast<unsigned>(h - '0');
            else if (h >= 'a' && h <= 'f')
                v |= static_cast<unsigned>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F')
                v |= static_cast<unsigned>(h - 'A' + 10);
            else
                fail("bad \\u escape");
        }
        return v;
    }

    static void append_utf8(std::string& out, unsigned cp)
    {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xc0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xe0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        } else {
            out += static_cast<char>(0xf0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        }
    }

    std::string parse_string()
    {
        ++pos_; // '"'
        std::string out;
        for (;;) {
            if (pos_ >= s_.size())
                fail("unterminated string");
            const char c = s_[pos_++];
            if (c == '"')
                return out;
            if (static_cast<unsigned char>(c) < 0x20)
                fail("control character in a string");
            if (c != '\\') {
                out += c;
                continue;
            }
            if (pos_ >= s_.size())
                fail("unterminated escape");
            const char e = s_[pos_++];
            switch (e) {
            case '"':
            case '\\':
            case '/':
                out += e;
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'n':
                out += '\n';
                break;
            case 'r':
                out += '\r';
                break;
            case 't':
                out += '\t';
                break;
            case 'u': {
                unsigned cp = hex4();
                if (cp >= 0xd800 && cp <= 0xdbff) {
                    if (!(eat('\\') && eat('u')))
                        fail("lone high surrogate");
                    const unsigned low = hex4();
                    if (low < 0xdc00 || low > 0xdfff)
                        fail("bad low surrogate");
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
                } else if (cp >= 0xdc00 && cp <= 0xdfff) {
                    fail("lone low surrogate");
                }
                append_utf8(out, cp);
                break;
            }
            default:
                fail("bad escape");
            }
        }
    }

    bool digit() const { return pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9'; }

    Json parse_number()
    {
        const std::size_t start = pos_;
        eat('-');
        if (eat('0')) {
            if (digit())
                fail("leading zero");
        } else if (digit()) {
            while (digit())
                ++pos_;
        } else {
            fail("expected a digit");
        }
        if (eat('.')) {
            if (!digit())
                fail("expected a digit after '.'");
            while (digit())
                ++pos_;
        }
        if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
            ++pos_;
            if (!eat('+'))
                eat('-');
            if (!digit())
                fail("expected a digit in the exponent");
            while (digit())
                ++pos_;
        }
        Json j = Json::number_from_text(std::string(s_.substr(start, pos_ - start)));
        if (!std::isfinite(j.number()))
            fail("number out of range");
        return j;
    }

    std::string_view s_;
    std::size_t pos_ = 0;
};

inline Json Json::parse(std::string_view text)
{
    return JsonParser(text).document();
}

// ---------------------------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------------------------
// CUDA errors as exceptions: KWB_CUDA_CHECK(cudaMalloc(&p, n)) throws "CUDA error: out of memory
// (cudaMalloc(&p, n) at file.cu:12)", which the helper answers as ok:false.
#if KWB_WORKER_HAS_CUDA
inline void cuda_check(cudaError_t e, const char* what, const char* file, int line)
{
    if (e != cudaSuccess)
        throw std::runtime_error(std::string("CUDA error: ") + cudaGetErrorString(e) + " (" + what + " at " + file + ":"
            + std::to_string(line) + ")");
}
#define KWB_CUDA_CHECK(expr) ::kwb::worker::cuda_check((expr), #expr, __FILE__, __LINE__)
#endif

namespace detail {

inline std::string one_line(std::string s)
{
    for (char& c : s)
        if (c == '\n' || c == '\r' || c == '\t')
            c = ' ';
    if (s.size() > 400)
        s = s.substr(0, 397) + "...";
    return s.empty() ? std::string("(no message)") : s;
}

// Well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF): a request that
// is not would otherwise be echoed into an answer kwb cannot parse.
inline bool valid_utf8(std::string_view s)
{
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t n = 0;
        std::uint32_t cp = 0;
        if (c < 0x80) {
            ++i;
            continue;
        }
        if ((c & 0xe0) == 0xc0) {
            n = 1;
            cp = c & 0x1fu;
        } else if ((c & 0xf0) == 0xe0) {
            n = 2;
            cp = c & 0x0fu;
        } else if ((c & 0xf8) == 0xf0) {
            n = 3;
            cp = c & 0x07u;
        } else {
            return false;
        }
        for (std::size_t k = 1; k <= n; ++k) {
            if (i + k >= s.size())
                return false;
            const auto cc = static_cast<unsigned char>(s[i + k]);
            if ((cc & 0xc0) != 0x80)
                return false;
            cp = (cp << 6) | (cc & 0x3fu);
        }
        static constexpr std::uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
        if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += n + 1;
    }
    return true;
}

// A request that cannot be served (as opposed to an exception of the user's code).
class RequestError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

inline float half_to_float(std::uint16_t h)
{
    const std::uint32_t sign = (h >> 15) & 1u, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    float v;
    if (exp == 0)
        v = std::ldexp(static_cast<float>(mant), -24);
    else if (exp == 31)
        v = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    else
        v = std::ldexp(static_cast<float>(mant | 0x400u), static_cast<int>(exp) - 25);
    return sign ? -v : v;
}

inline float bf16_to_float(std::uint16_t b)
{
    const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
    float v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}

inline std::size_t dtype_bytes(DType t)
{
    return t == DType::f64 ? 8 : t == DType::f32 ? 4 : 2;
}

inline std::string cpu_model()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) {
                auto name = line.substr(colon + 1);
                name.erase(0, name.find_first_not_of(' '));
                return name;
            }
        }
    return {};
}

inline int device_index()
{
    const char* env = std::getenv("KWB_DEVICE");
    if (!env || !*env)
        return 0;
    int index = -1;
    const std::string_view text(env);
    const auto r = std::from_chars(text.data(), text.data() + text.size(), index);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size() || index < 0)
        throw std::runtime_error("KWB_DEVICE=" + std::string(text) + " is not a device index");
    return index;
}

#if KWB_WORKER_HAS_CUDA
// CUDA events on the legacy default stream (ordered with every blocking stream, and with the
// per-thread default stream); cold: a cudaMemsetAsync over twice the L2 before each launch,
// outside its event pair, as the embedded harness does.
class Clock {
public:
    static constexpr const char* kTimer = "cuda_events";

    Clock()
        : index_(device_index())
    {
        KWB_CUDA_CHECK(cudaSetDevice(index_));
    }
    ~Clock()
    {
        for (auto e : events_)
            cudaEventDestroy(e);
        if (flush_)
            cudaFree(flush_);
    }
    Clock(const Clock&) = delete;
    Clock& operator=(const Clock&) = delete;

    Json describe() const
    {
        cudaDeviceProp p {};
        KWB_CUDA_CHECK(cudaGetDeviceProperties(&p, index_));
        static constexpr char kHex[] = "0123456789abcdef";
        std::string uuid = "GPU-"; // as NVML and nvidia-smi print it, so kwb can match the two
        for (int i = 0; i < 16; ++i) {
            if (i == 4 || i == 6 || i == 8 || i == 10)
                uuid += '-';
            const auto byte = static_cast<unsigned char>(p.uuid.bytes[i]);
            uuid += kHex[byte >> 4];
            uuid += kHex[byte & 0xf];
        }
        return Json::object()
            .set("kind", "cuda")
            .set("name", std::string(p.name))
            .set("uuid", uuid)
            .set("index", index_);
    }
    void synchronize() const { KWB_CUDA_CHECK(cudaDeviceSynchronize()); }

    template<class Launch> double time_hot(Launch&& launch, int launches)
    {
        events(1);
        synchronize();
        KWB_CUDA_CHECK(cudaEventRecord(events_[0], cudaStreamLegacy));
        for (int i = 0; i < launches; ++i)
            launch();
        KWB_CUDA_CHECK(cudaGetLastError());
        KWB_CUDA_CHECK(cudaEventRecord(events_[1], cudaStreamLegacy));
        KWB_CUDA_CHECK(cudaEventSynchronize(events_[1]));
        float ms = 0;
        KWB_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[0], events_[1]));
        return ms;
    }

    template<class Launch> std::vector<double> time_cold(Launch&& launch, int launches)
    {
        events(static_cast<std::size_t>(launches));
        synchronize();
        for (int i = 0; i < launches; ++i) {
            flush_l2();
            KWB_CUDA_CHECK(cudaEventRecord(events_[2 * i], cudaStreamLegacy));
            launch();
            KWB_CUDA_CHECK(cudaEventRecord(events_[2 * i + 1], cudaStreamLegacy));
        }
        KWB_CUDA_CHECK(cudaGetLastError());
        KWB_CUDA_CHECK(cudaEventSynchronize(events_[2 * launches - 1]));
        std::vector<double> times(static_cast<std::size_t>(launches));
        for (int i = 0; i < launches; ++i) {
            float ms = 0;
            KWB_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[2 * i], events_[2 * i + 1]));
            times[static_cast<std::size_t>(i)] = ms;
        }
        return times;
    }

private:
    void events(std::size_t pairs)
    {
        while (events_.size() < 2 * pairs) {
            cudaEvent_t e;
            KWB_CUDA_CHECK(cudaEventCreate(&e));
            events_.push_back(e);
        }
    }
    void flush_l2()
    {
        if (!flush_) {
            int l2 = 0;
            KWB_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, index_));
            flush_bytes_ = 2 * static_cast<std::size_t>(l2 > 0 ? l2 : 256 << 20);
            KWB_CUDA_CHECK(cudaMalloc(&flush_, flush_bytes_));
        }
        KWB_CUDA_CHECK(cudaMemsetAsync(flush_, 0, flush_bytes_, cudaStreamLegacy));
    }

    int index_ = 0;
    std::vector<cudaEvent_t> events_;
    void* flush_ = nullptr;
    std::size_t flush_bytes_ = 0;
};
#else
// steady_clock around the launches; a CPU has no L2 for this helper to flush.
class Clock {
public:
    static constexpr const char* kTimer = "steady_clock";

    Json describe() const
    {
        Json d = Json::object().set("kind", "cpu");
        const auto name = cpu_model();
        if (!name.empty())
            d.set("name", name);
        return d;
    }
    void synchronize() const { }

    template<class Launch> double time_hot(Launch&& launch, int launches)
    {
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < launches; ++i)
            launch();
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }

    template<class Launch> std::vector<double> time_cold(Launch&& launch, int launches)
    {
        std::vector<double> times(static_cast<std::size_t>(launches));
        for (auto& t : times) {
            const auto start = std::chrono::steady_clock::now();
            launch();
            t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        }
        return times;
    }
};
#endif

// The output's values on the host as float32 (C order).
inline std::vector<float> read_output(const Output& out)
{
    if (!out.data && out.elements)
        throw RequestError("output(state) returned a null buffer");
    std::vector<unsigned char> raw(out.elements * dtype_bytes(out.dtype));
    if (out.memory == Memory::device) {
#if KWB_WORKER_HAS_CUDA
        KWB_CUDA_CHECK(cudaMemcpy(raw.data(), out.data, raw.size(), cudaMemcpyDeviceToHost));
#else
        throw RequestError("output(state) is device memory, but this worker was built without CUDA");
#endif
    } else if (!raw.empty()) {
        std::memcpy(raw.data(), out.data, raw.size());
    }
    std::vector<float> values(out.elements);
    for (std::size_t i = 0; i < out.elements; ++i) {
        const unsigned char* p = raw.data() + i * dtype_bytes(out.dtype);
        switch (out.dtype) {
        case DType::f32:
            std::memcpy(&values[i], p, 4);
            break;
        case DType::f64: {
            double d;
            std::memcpy(&d, p, 8);
            values[i] = static_cast<float>(d);
            break;
        }
        case DType::f16:
        case DType::bf16: {
            std::uint16_t h;
            std::memcpy(&h, p, 2);
            values[i] = out.dtype == DType::f16 ? half_to_float(h) : bf16_to_float(h);
            break;
        }
        }
    }
    return values;
}

// NaN over every element: all bits set is a NaN in f32, f64, f16 and bf16 alike.
inline void poison(const Output& out)
{
    const std::size_t bytes = out.elements * dtype_bytes(out.dtype);
    if (out.memory == Memory::device) {
#if KWB_WORKER_HAS_CUDA
        KWB_CUDA_CHECK(cudaMemset(out.data, 0xff, bytes));
#else
        throw RequestError("output(state) is device memory, but this worker was built without CUDA");
#endif
    } else if (bytes) {
        std::memset(out.data, 0xff, bytes);
    }
}

inline void write_float32(const std::string& path, const std::vector<float>& values)
{
    std::vector<unsigned char> bytes(values.size() * 4);
    for (std::size_t i = 0; i < values.size(); ++i) {
        std::uint32_t bits;
        std::memcpy(&bits, &values[i], 4);
        for (int b = 0; b < 4; ++b) // little-endian, whatever the host's order
            bytes[4 * i + static_cast<std::size_t>(b)] = static_cast<unsigned char>(bits >> (8 * b));
    }
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        throw RequestError("cannot write " + path + ": " + std::strerror(errno));
    const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    if (std::fclose(f) != 0 || !ok)
        throw RequestError("cannot write " + path + ": " + std::strerror(errno));
}

// The verify rule's reference check, per element: |out - ref| <= tolerance * (1 + |ref|).
inline Json compare(const std::vector<float>& out, const std::vector<float>& ref, double tolerance)
{
    Json r = Json::object();
    if (out.size() != ref.size()) {
        return r.set("passed", false)
            .set("max_abs_error", nullptr)
            .set("max_rel_error", nullptr)
            .set("tolerance", tolerance)
            .set("detail",
                "the reference has " + std::to_string(ref.size()) + " elements, the output "
                    + std::to_string(out.size()));
    }
    std::size_t failing = 0, non_finite = 0, first = 0;
    double max_abs = 0, max_rel = 0;
    bool finite = true;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const double o = out[i], e = ref[i], d = std::fabs(o - e);
        if (!std::isfinite(o))
            ++non_finite;
        if (!std::isfinite(d)) {
            finite = false;
        } else {
            max_abs = std::max(max_abs, d);
            if (e != 0)
                max_rel = std::max(max_rel, d / std::fabs(e));
        }
        if (!(d <= tolerance * (1.0 + std::fabs(e)))) { // NaN never passes
            if (failing++ == 0)
                first = i;
        }
    }
    r.set("passed", failing == 0)
        .set("max_abs_error", finite ? Json(max_abs) : Json())
        .set("max_rel_error", finite ? Json(max_rel) : Json())
        .set("tolerance", tolerance);
    if (failing) {
        std::string detail = std::to_string(failing) + " of " + std::to_string(out.size())
            + " elements outside the tolerance; first at index " + std::to_string(first) + ": "
            + Json::format_double(out[first]) + ", expected " + Json::format_double(ref[first]);
        if (non_finite)
            detail += "; " + std::to_string(non_finite) + " output elements are NaN or infinite (not written?)";
        r.set("detail", detail);
    }
    return r;
}

// The protocol's two streams on private fds (see the header's comment).
class Channel {
public:
    Channel()
    {
        in_ = ::dup(0);
        out_ = ::dup(1);
        if (in_ < 0 || out_ < 0)
            throw std::runtime_error(std::string("kwb worker: dup failed: ") + std::strerror(errno));
        ::fcntl(in_, F_SETFD, FD_CLOEXEC);
        ::fcntl(out_, F_SETFD, FD_CLOEXEC);
        ::dup2(2, 1);
        const int devnull = ::open("/dev/null", O_RDONLY);
        if (devnull >= 0) {
            ::dup2(devnull, 0);
            ::close(devnull);
        }
    }
    ~Channel()
    {
        ::close(in_);
        ::close(out_);
    }
    Channel(const Channel&) = delete;
    Channel& operator=(const Channel&) = delete;

    // The next line (without '\n'); false at end of input. `oversized`: the line was longer than
    // kMaxMessageBytes and was skipped to its end.
    bool read(std::string& line, bool& oversized)
    {
        line.clear();
        oversized = false;
        for (;;) {
            const auto nl = buffer_.find('\n', scanned_);
            if (nl != std::string::npos) {
                oversized = oversized || nl > kMaxMessageBytes;
                if (!oversized)
                    line.assign(buffer_, 0, nl);
                buffer_.erase(0, nl + 1);
                scanned_ = 0;
                if (!line.empty() && line.back() == '\r')
                    line.pop_back();
                return true;
            }
            if (buffer_.size() > kMaxMessageBytes) {
                oversized = true; // keep reading to the newline, dropping what is read
                buffer_.clear();
            }
            scanned_ = buffer_.size();
            char chunk[65536];
            const ssize_t n = ::read(in_, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                if (buffer_.empty() && !oversized)
                    return false;
                // A last line without its newline is still a request.
                if (!oversized)
                    line = buffer_;
                buffer_.clear();
                scanned_ = 0;
                return true;
            }
            buffer_.append(chunk, static_cast<std::size_t>(n));
        }
    }

    bool write(const Json& message)
    {
        const std::string text = message.dump() + "\n";
        std::size_t done = 0;
        while (done < text.size()) {
            const ssize_t n = ::write(out_, text.data() + done, text.size() - done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return false;
            done += static_cast<std::size_t>(n);
        }
        return true;
    }

private:
    int in_ = -1;
    int out_ = -1;
    std::string buffer_;
    std::size_t scanned_ = 0;
};

inline std::int64_t integer_field(const Json& request, const char* key)
{
    const Json* v = request.find(key);
    std::int64_t out = 0;
    if (!v || !v->to_int64(out))
        throw RequestError(std::string("'") + key + "' must be an integer");
    return out;
}

// A parameter value from the request, as the declared parameter's type.
inline Value coerce(const Param& p, const Json& given)
{
    const std::string bad = "parameter " + p.name + ": " + given.dump();
    if (p.default_value.is_string()) {
        if (given.is_string() || given.is_number())
            return Value(given.text());
        throw RequestError(bad + " is not a string");
    }
    Json number = given;
    if (given.is_string()) {
        try {
            number = Json::parse(given.text());
        } catch (const JsonError&) {
            throw RequestError(bad + " is not a number");
        }
    }
    if (!number.is_number())
        throw RequestError(bad + " is not a number");
    if (p.default_value.is_integer()) {
        std::int64_t v = 0;
        if (!number.to_int64(v))
            throw RequestError(bad + " is not an integer");
        return Value(static_cast<long long>(v));
    }
    return Value(number.number());
}

} // namespace detail

// Answers kwb's requests for `kernel` until `release` or the end of input; returns the exit
// status (0). argc / argv are reserved for the helper's own options (there are none yet).
template<class State> class Server {
public:
    explicit Server(const Kernel<State>& kernel)
        : k_(kernel)
    {
        try {
            check_kernel();
            clock_ = std::make_unique<detail::Clock>();
        } catch (const std::exception& e) {
            broken_ = detail::one_line(e.what());
            std::fprintf(stderr, "kwb worker: %s\n", broken_.c_str());
        }
    }

    // One request line in, one answer out.
    Json answer(const std::string& line, bool oversized)
    {
        Json id;
        try {
            if (oversized)
                throw detail::RequestError("request line over " + std::to_string(kMaxMessageBytes) + " bytes");
            if (!detail::valid_utf8(line))
                throw detail::RequestError("the request is not UTF-8");
            Json request;
            try {
                request = Json::parse(line);
            } catch (const JsonError& e) {
                throw detail::RequestError(e.what());
            }
            if (!request.is_object())
                throw detail::RequestError("the request is not a JSON object");
            std::int64_t n = 0;
            const Json* rid = request.find("id");
            if (!rid || !rid->to_int64(n))
                throw detail::RequestError("the request has no integer 'id'");
            id = *rid;
            const Json* op = request.find("op");
            if (!op || !op->is_string())
                throw detail::RequestError("the request has no string 'op'");
            Json reply = Json::object().set("id", id).set("ok", true);
            const std::string& name = op->text();
            const bool known = name == "hello" || name == "describe" || name == "prepare" || name == "verify"
                || name == "time" || name == "release";
            if (!known)
                throw detail::RequestError(
                    "unknown op '" + name + "' (protocol 1: hello, describe, prepare, verify, time, release)");
            if (!broken_.empty() && name != "release")
                throw detail::RequestError(broken_);
            if (name == "hello")
                hello(request, reply);
            else if (name == "describe")
                describe(reply);
            else if (name == "prepare")
                prepare(request, reply);
            else if (name == "verify")
                verify(request, reply);
            else if (name == "time")
                time(request, reply);
            else
                release();
            flush_prints();
            return reply;
        } catch (const std::exception& e) {
            flush_prints();
            return Json::object().set("id", id).set("ok", false).set("error", detail::one_line(e.what()));
        } catch (...) {
            flush_prints();
            return Json::object().set("id", id).set("ok", false).set("error", "unknown exception");
        }
    }

    bool released() const { return released_; }

private:
    void check_kernel() const
    {
        if (k_.name.empty())
            throw std::invalid_argument("the kernel has no name");
        if (!k_.setup || !k_.run || !k_.output)
            throw std::invalid_argument("the kernel needs setup, run and output");
        for (std::size_t i = 0; i < k_.params.size(); ++i) {
            const Param& p = k_.params[i];
            for (std::size_t j = 0; j < i; ++j)
                if (k_.params[j].name == p.name)
                    throw std::invalid_argument("parameter " + p.name + " is declared twice");
            if (!p.values.empty() && std::find(p.values.begin(), p.values.end(), p.default_value) == p.values.end())
                throw std::invalid_argument("parameter " + p.name + ": the default is not one of its values");
        }
        for (const Metric& m : k_.metrics)
            if (m.direction != "lower" && m.direction != "higher")
                throw std::invalid_argument("metric " + m.name + ": direction must be lower or higher");
    }

    static void flush_prints()
    {
        std::cout.flush();
        std::fflush(stdout);
        std::fflush(stderr);
    }

    void hello(const Json& request, Json& reply) const
    {
        const auto protocol = detail::integer_field(request, "protocol");
        if (protocol != kProtocol)
            throw detail::RequestError(
                "protocol " + std::to_string(protocol) + " is not spoken here (this worker speaks 1)");
        reply.set("protocol", kProtocol)
            .set("worker", k_.name)
            .set("version", k_.version.empty() ? "1.0.0" : k_.version);
    }

    void describe(Json& reply) const
    {
        Json params = Json::array();
        for (const Param& p : k_.params) {
            Json d = Json::object().set("name", p.name).set("default", p.default_value.to_json());
            if (!p.values.empty()) {
                Json values = Json::array();
                for (const Value& v : p.values)
                    values.push(v.to_json());
                d.set("values", values);
            }
            if (!p.description.empty())
                d.set("description", p.description);
            params.push(d);
        }
        reply.set("params", params);
        if (!k_.metrics.empty()) {
            Json metrics = Json::array();
            for (const Metric& m : k_.metrics)
                metrics.push(Json::object().set("name", m.name).set("unit", m.unit).set("direction", m.direction));
            reply.set("metrics", metrics);
        }
        reply.set("device", clock_->describe())
            .set("timer", detail::Clock::kTimer)
            .set("has_reference", bool(k_.reference));
    }

    Params resolve(const Json& given) const
    {
        for (const auto& key : given.keys()) {
            const bool declared
                = std::any_of(k_.params.begin(), k_.params.end(), [&](const Param& p) { return p.name == key; });
            if (!declared) {
                std::string have;
                for (const Param& p : k_.params)
                    have += (have.empty() ? "" : ", ") + p.name;
                throw detail::RequestError(
                    "unknown parameter " + key + " (this worker has: " + (have.empty() ? "none" : have) + ")");
            }
        }
        Params params;
        for (const Param& p : k_.params) {
            const Json* v = given.find(p.name);
            Value value = v ? detail::coerce(p, *v) : p.default_value;
            if (!p.values.empty() && std::find(p.values.begin(), p.values.end(), value) == p.values.end()) {
                std::string allowed;
                for (const Value& a : p.values)
                    allowed += (allowed.empty() ? "" : ", ") + a.describe();
                throw detail::RequestError(
                    "parameter " + p.name + ": " + value.describe() + " is not one of [" + allowed + "]");
            }
            params.set(p.name, value);
        }
        return params;
    }

    static Json per_launch(const std::function<double(const Params&)>& f, const Params& params, const char* what)
    {
        if (!f)
            return Json();
        const double v = f(params);
        if (!std::isfinite(v) || v < 0)
            throw std::invalid_argument(std::string(what) + " must be a finite number >= 0");
        return Json(v);
    }

    void prepare(const Json& request, Json& reply)
    {
        const Json* given = request.find("params");
        const Json empty = Json::object();
        if (given && !given->is_object())
            throw detail::RequestError("'params' must be an object");
        const std::uint64_t seed = seed_field(request);
        Params params = resolve(given ? *given : empty);
        state_.reset(); // the previous arm's buffers go before the new ones are allocated
        auto state = std::make_unique<State>();
        k_.setup(*state, params, seed);
        // One launch here, synchronised: lazy initialisation (module load, first-touch) happens in
        // prepare, not inside a timed call that calibration would read as one slow launch.
        k_.run(*state);
        clock_->synchronize();
        reply.set("flop_per_launch", per_launch(k_.flop_per_launch, params, "flop_per_launch"))
            .set("bytes_per_launch", per_launch(k_.bytes_per_launch, params, "bytes_per_launch"));
        params_ = std::move(params);
        state_ = std::move(state);
    }

    static std::uint64_t seed_field(const Json& request)
    {
        const Json* v = request.find("seed");
        std::uint64_t seed = 0;
        if (!v || !v->to_uint64(seed))
            throw detail::RequestError("'seed' must be an integer >= 0");
        return seed;
    }

    void require_prepared(const char* op) const
    {
        if (!state_)
            throw detail::RequestError(std::string("'") + op + "' before a successful 'prepare'");
    }

    void verify(const Json& request, Json& reply)
    {
        require_prepared("verify");
        const std::uint64_t seed = seed_field(request);
        const Json* path = request.find("output");
        if (!path || !path->is_string() || path->text().empty())
            throw detail::RequestError("'output' must be a file path");
        auto state = std::make_unique<State>();
        k_.setup(*state, params_, seed); // fresh inputs from kwb's seed, not prepare's
        detail::poison(k_.output(*state));
        for (const float v : detail::read_output(k_.output(*state)))
            if (!std::isnan(v))
                throw detail::RequestError(
                    "output(state) must return the buffer run writes: the NaN written into it did not show");
        k_.run(*state);
        clock_->synchronize();
        const std::vector<float> values = detail::read_output(k_.output(*state));
        detail::write_float32(path->text(), values);
        reply.set("elements", static_cast<unsigned long long>(values.size())).set("dtype", "float32");
        if (k_.reference) {
            const std::vector<float> expected = k_.reference(*state);
            reply.set("reference", detail::compare(values, expected, k_.tolerance));
        }
    }

    void time(const Json& request, Json& reply)
    {
        require_prepared("time");
        const auto launches = detail::integer_field(request, "launches");
        if (launches < 1 || launches > std::numeric_limits<int>::max() / 2)
            throw detail::RequestError("'launches' must be at least 1, got " + std::to_string(launches));
        bool cold = false;
        if (const Json* c = request.find("cold")) {
            if (!c->is_bool())
                throw detail::RequestError("'cold' must be true or false");
            cold = c->boolean();
        }
        State& state = *state_;
        auto launch = [&] { k_.run(state); };
        double total = 0;
        if (cold) {
            const auto times = clock_->time_cold(launch, static_cast<int>(launches));
            Json per = Json::array();
            for (const double t : times) {
                total += t;
                per.push(Json(t));
            }
            reply.set("total_ms", total).set("per_launch_ms", per);
        } else {
            total = clock_->time_hot(launch, static_cast<int>(launches));
            reply.set("total_ms", total);
        }
        if (k_.metric_values) {
            Json metrics = Json::object();
            for (const auto& [name, value] : k_.metric_values(state, total / static_cast<double>(launches)))
                metrics.set(name, Json(value));
            reply.set("metrics", metrics);
        }
    }

    void release()
    {
        state_.reset();
        released_ = true;
    }

    const Kernel<State>& k_;
    std::string broken_;
    std::unique_ptr<detail::Clock> clock_;
    std::unique_ptr<State> state_;
    Params params_;
    bool released_ = false;
};

template<class State> int serve(const Kernel<State>& kernel, int argc = 0, char** argv = nullptr)
{
    (void)argc;
    (void)argv;
    detail::Channel channel; // first: nothing the kernel prints from here on reaches the protocol
    Server<State> server(kernel);
    std::string line;
    bool oversized = false;
    while (channel.read(line, oversized)) {
        if (!channel.write(server.answer(line, oversized)))
            return 0; // kwb has gone: nobody is left to answer
        if (server.released())
            return 0;
    }
    return 0;
}

} // namespace kwb::worker
