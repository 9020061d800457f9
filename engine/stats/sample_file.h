// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Reading one arm's samples from a file (spec/verdict.md, "CLI form" and "Bad input"). Shared by
// `kwb verdict` and the GUI's import so both accept and refuse exactly the same files.
//
// A file is either one number per line, or a CSV whose header names the columns. Blank lines and
// lines starting with '#' are skipped everywhere. Bad input is an error, never a verdict: the
// error names the file, the 1-based line and the problem, so it can be fixed without guessing.

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kwb::stats {

class SampleFileError : public std::runtime_error {
public:
    SampleFileError(std::string file, int line, std::string problem);
    const std::string& file() const { return file_; }
    int line() const { return line_; } // 1-based; 0 when the file could not be read at all
    const std::string& problem() const { return problem_; }

private:
    std::string file_;
    int line_;
    std::string problem_;
};

// The largest sample file read (256 MiB: some 20 million values); past it reading stops.
inline constexpr std::size_t kMaxSampleFileBytes = std::size_t {256} << 20;
// The largest value accepted: sums of squares of a million values stay far inside double range.
inline constexpr double kMaxSampleValue = 1e100;

struct SampleSet {
    std::string file; // as named by the user
    std::vector<double> values;
    std::vector<int> lines; // the line of each value
    int line_count = 0; // lines in the file
};

// Parses `text` as the content of `file` (the name is only used in errors). With `column`, a CSV
// file's column of that name is read; a one-number-per-line file ignores it. Throws
// SampleFileError on bad input: no values, a token that is not a number, a non-finite value, a
// value <= 0 or above kMaxSampleValue, a first line that is neither a number nor a header,
// `column` on a file of bare numbers, an unknown column, a ragged row, zero or several numeric columns without
// `column`.
SampleSet parse_samples(
    std::string_view text, const std::string& file, const std::optional<std::string>& column = std::nullopt);

// Reads and parses a file; an unreadable file is a SampleFileError with line 0.
SampleSet read_sample_file(const std::string& path, const std::optional<std::string>& column = std::nullopt);

// For paired samples: throws SampleFileError naming the treatment file when the counts differ.
void check_paired_counts(const SampleSet& baseline, const SampleSet& treatment);

// One token as a number: nullopt when it is not a number at all (non-finite values do parse: 1e999
// as infinity; 1e-400, too small for a double, as 0, the way strtod and JSON readers read it).
std::optional<double> parse_number(std::string_view token);

} // namespace kwb::stats
