// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The report laid out once as a sequence of blocks (headings, paragraphs, tables, lists, charts,
// the verdict banner). Markdown, HTML and PDF each walk the same blocks, so the three human formats
// carry the same facts in the same order with the same numbers; only their typography differs.

#include "report/report_model.h"
#include "report/svg_charts.h"

#include <string>
#include <vector>

namespace kwb::report {

struct Block {
    enum class Kind { Heading, Paragraph, Table, List, Chart, Verdict };
    Kind kind = Kind::Paragraph;
    int level = 1; // Heading: 1-3
    std::string text; // Heading, Paragraph, Verdict (the word)
    std::vector<std::string> header; // Table
    std::vector<std::vector<std::string>> rows; // Table
    std::vector<std::string> items; // List; Verdict: its reasons
    Chart chart; // Chart
};

std::vector<Block> document_of(const Report& report);

} // namespace kwb::report
