// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>

namespace kwb {

// A strict JSON lexer over one text, for readers that must be faster than nlohmann's lexer on a
// few hot arrays (the study's samples: study_fast_read.cpp). For each token it reads it accepts
// exactly what nlohmann accepts (RFC 8259: strings with their escapes and well-formed UTF-8,
// numbers in JSON's grammar, true / false / null, the four whitespace bytes) and gives the value
// nlohmann gives (an integer token is an integer: "-0" is 0, not -0.0). It words no error: on
// anything it does not accept it says no, and the caller hands the text to nlohmann, which words
// it with its offset. Header-only so the per-byte loops inline into the reader.
class JsonScanner {
public:
    struct Number {
        double value = 0; // as nlohmann::json::get<double> gives it
        bool integer = false; // an integer token (no fraction, no exponent)
        bool fits_int = false; // an integer token within the range of an int
        int as_int = 0; // its value when fits_int
    };

    explicit JsonScanner(std::string_view text)
        : begin_(text.data())
        , p_(text.data())
        , end_(text.data() + text.size())
    {
    }

    size_t offset() const { return static_cast<size_t>(p_ - begin_); }
    size_t remaining() const { return static_cast<size_t>(end_ - p_); }

    // The next byte after whitespace; '\0' at the end of the text (a NUL is never valid there).
    char peek()
    {
        // A local cursor in every per-byte loop: a char read may alias the member, so the loop
        // would store and reload it per byte.
        const char* p = p_;
        while (p < end_ && kWhitespace[static_cast<unsigned char>(*p)])
            ++p;
        p_ = p;
        return p < end_ ? *p : '\0';
    }

    bool eat(char c)
    {
        if (peek() != c || p_ == end_)
            return false;
        ++p_;
        return true;
    }

    // true, false or null at the cursor (after peek()).
    bool literal(std::string_view word)
    {
        if (static_cast<size_t>(end_ - p_) < word.size() || std::memcmp(p_, word.data(), word.size()) != 0)
            return false;
        p_ += word.size();
        return true;
    }

    // A string at the cursor (after peek() saw '"'), decoded: `out` views the text itself when the
    // string has no escape, else `scratch`, which holds the decoded bytes.
    bool string(std::string_view& out, std::string& scratch)
    {
        const char* start = ++p_;
        for (;;) {
            p_ = plain_run(p_);
            if (p_ == end_)
                return false;
            const auto c = static_cast<unsigned char>(*p_);
            if (c == '"') {
                out = std::string_view(start, static_cast<size_t>(p_ - start));
                ++p_;
                return true;
            }
            if (c == '\\')
                break;
            if (c < 0x20 || !utf8_sequence())
                return false;
        }
        scratch.assign(start, p_);
        for (;;) {
            const char* run = p_;
            p_ = plain_run(p_);
            scratch.append(run, p_);
            if (p_ == end_)
                return false;
            const auto c = static_cast<unsigned char>(*p_);
            if (c == '"') {
                out = scratch;
                ++p_;
                return true;
            }
            if (c == '\\') {
                if (!escape(scratch))
                    return false;
                continue;
            }
            run = p_;
            if (c < 0x20 || !utf8_sequence())
                return false;
            scratch.append(run, p_);
        }
    }

    // A string at the cursor with no escape in it, undecoded and unjudged (nlohmann judges it
    // later): false on a backslash, so a key read this way is exactly the key it spells.
    bool plain_string(std::string_view& out)
    {
        const char* start = ++p_;
        const char* p = start;
        while (p < end_ && *p != '"' && *p != '\\')
            ++p;
        p_ = p;
        if (p == end_ || *p == '\\')
            return false;
        out = std::string_view(start, static_cast<size_t>(p - start));
        ++p_;
        return true;
    }

    // A number at the cursor, in JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
    // False beyond the range of a double, and where a result would underflow to 0: nlohmann
    // refuses the first and reads the second as 0, and the ordinary path says which.
    bool number(Number& out)
    {
        const char* start = p_;
        const bool negative = p_ < end_ && *p_ == '-';
        if (negative)
            ++p_;
        const char* digits = p_;
        if (p_ < end_ && *p_ == '0')
            ++p_;
        else if (!skip_digits())
            return false;
        const size_t integer_digits = static_cast<size_t>(p_ - digits);
        out.integer = true;
        if (p_ < end_ && *p_ == '.') {
            ++p_;
            out.integer = false;
            if (!skip_digits())
                return false;
        }
        if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
            ++p_;
            out.integer = false;
            if (p_ < end_ && (*p_ == '+' || *p_ == '-'))
                ++p_;
            if (!skip_digits())
                return false;
        }
        out.fits_int = false;
        if (out.integer && integer_digits <= 18) {
            // Exact in 64 bits; converted as nlohmann converts its integer (so -0 is 0).
            std::int64_t v = 0;
            for (const char *d = digits, *e = digits + integer_digits; d < e; ++d)
                v = v * 10 + (*d - '0');
            if (negative)
                v = -v;
            out.value = static_cast<double>(v);
            out.fits_int = v >= std::numeric_limits<int>::min() && v <= std::numeric_limits<int>::max();
            out.as_int = static_cast<int>(v);
            return true;
        }
        // Correctly rounded, as strtod (nlohmann's floats) and the conversion of a 64-bit integer
        // (nlohmann's long integers) both are.
        const auto [end, error] = std::from_chars(start, p_, out.value, std::chars_format::general);
        return error == std::errc() && end == p_;
    }

    // One value of any kind, skipped without being judged (the caller has nlohmann judge the text
    // it is in): a string, a nested object or array, or a scalar up to the next delimiter.
    bool skip_value()
    {
        int depth = 0;
        do {
            const char c = peek();
            if (p_ == end_)
                return false;
            switch (c) {
            case '"':
                ++p_;
                while (p_ < end_ && *p_ != '"') {
                    if (*p_ == '\\' && end_ - p_ < 2)
                        return false;
                    p_ += *p_ == '\\' ? 2 : 1;
                }
                if (p_ == end_)
                    return false;
                ++p_;
                break;
            case '{':
            case '[':
                ++depth;
                ++p_;
                break;
            case '}':
            case ']':
            case ',':
            case ':':
                if (depth == 0)
                    return false;
                depth -= c == '}' || c == ']';
                ++p_;
                break;
            default:
                while (p_ < end_ && !kDelimiter[static_cast<unsigned char>(*p_)])
                    ++p_;
            }
        } while (depth > 0);
        return true;
    }

private:
    // Bytes that stand for themselves in a string: printable ASCII but the quote and backslash.
    static constexpr std::array<bool, 256> kPlain = [] {
        std::array<bool, 256> t {};
        for (int c = 0x20; c < 0x80; ++c)
            t[static_cast<size_t>(c)] = c != '"' && c != '\\';
        return t;
    }();
    static constexpr std::array<bool, 256> kWhitespace = [] {
        std::array<bool, 256> t {};
        for (const char c : std::string_view(" \n\r\t"))
            t[static_cast<unsigned char>(c)] = true;
        return t;
    }();
    // Bytes that end a scalar being skipped.
    static constexpr std::array<bool, 256> kDelimiter = [] {
        std::array<bool, 256> t {};
        for (const char c : std::string_view(" \n\r\t,:]}[{\""))
            t[static_cast<unsigned char>(c)] = true;
        return t;
    }();

    // The end of the run of plain string bytes from p. (Eight at a time was no faster: the
    // strings of a sample are mostly keys of under eight bytes.)
    const char* plain_run(const char* p) const
    {
        while (p < end_ && kPlain[static_cast<unsigned char>(*p)])
            ++p;
        return p;
    }

    bool skip_digits()
    {
        const char* p = p_;
        while (p < end_ && *p >= '0' && *p <= '9')
            ++p;
        const bool any = p > p_;
        p_ = p;
        return any;
    }

    // One well-formed UTF-8 sequence of two to four bytes at the cursor (nlohmann's ranges:
    // no overlong forms, no surrogates, nothing beyond U+10FFFF).
    bool utf8_sequence()
    {
        const auto b = static_cast<unsigned char>(*p_);
        unsigned char lo = 0x80, hi = 0xBF;
        int continuation = 0;
        if (b >= 0xC2 && b <= 0xDF)
            continuation = 1;
        else if (b >= 0xE0 && b <= 0xEF) {
            continuation = 2;
            lo = b == 0xE0 ? 0xA0 : 0x80;
            hi = b == 0xED ? 0x9F : 0xBF;
        } else if (b >= 0xF0 && b <= 0xF4) {
            continuation = 3;
            lo = b == 0xF0 ? 0x90 : 0x80;
            hi = b == 0xF4 ? 0x8F : 0xBF;
        } else
            return false;
        if (end_ - p_ <= continuation)
            return false;
        for (int i = 1; i <= continuation; ++i) {
            const auto c = static_cast<unsigned char>(p_[i]);
            if (c < (i == 1 ? lo : 0x80) || c > (i == 1 ? hi : 0xBF))
                return false;
        }
        p_ += continuation + 1;
        return true;
    }

    bool hex4(unsigned& out)
    {
        if (end_ - p_ < 4)
            return false;
        out = 0;
        for (int i = 0; i < 4; ++i, ++p_) {
            const char c = *p_;
            const int digit = c >= '0' && c <= '9' ? c - '0'
                : c >= 'a' && c <= 'f'             ? c - 'a' + 10
                : c >= 'A' && c <= 'F'             ? c - 'A' + 10
                                                   : -1;
            if (digit < 0)
                return false;
            out = out * 16 + static_cast<unsigned>(digit);
        }
        return true;
    }

    // The escape at the cursor (a backslash), appended decoded; a \u escape of a surrogate must be
    // a high one followed by a low one, as nlohmann requires.
    bool escape(std::string& out)
    {
        if (end_ - p_ < 2)
            return false;
        const char kind = p_[1];
        p_ += 2;
        switch (kind) {
        case '"':
        case '\\':
        case '/':
            out += kind;
            return true;
        case 'b':
            out += '\b';
            return true;
        case 'f':
            out += '\f';
            return true;
        case 'n':
            out += '\n';
            return true;
        case 'r':
            out += '\r';
            return true;
        case 't':
            out += '\t';
            return true;
        case 'u':
            break;
        default:
            return false;
        }
        unsigned cp = 0;
        if (!hex4(cp) || (cp >= 0xDC00 && cp <= 0xDFFF))
            return false;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            unsigned low = 0;
            if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u')
                return false;
            p_ += 2;
            if (!hex4(low) || low < 0xDC00 || low > 0xDFFF)
                return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        if (cp < 0x80)
            out += static_cast<char>(cp);
        else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
        return true;
    }

    const char* begin_;
    const char* p_;
    const char* end_;
};

} // namespace kwb
