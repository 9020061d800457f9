// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config.h"

namespace kwb::worker {

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

} // namespace kwb::worker
