// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "run/progress_line.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <vector>

namespace kwb::gui {

// One line of the `kwb run --json-progress` stream (docs/progress-stream.md, version 1).
struct StreamEvent {
    enum class Type { Start, Sample, Metric, Progress, Verdict, Error, End, Malformed };
    Type type = Type::Malformed;
    QJsonObject object; // the whole line as parsed
    QString message; // for Malformed: what was wrong, naming the line number
};

// Splits the child's stdout into lines and parses each. Reads arrive in arbitrary pieces, so a
// partial line is kept until its newline arrives. Unknown types and keys are ignored (the format
// grows by adding); a line that is not a JSON object is reported, never thrown, so a garbled
// child cannot take the window down.
class StreamParser {
public:
    // The version the engine writes (run/progress_line.h): one constant for writer and reader.
    static constexpr int kSupportedVersion = progress::kStreamVersion;

    std::vector<StreamEvent> feed(const QByteArray& bytes);
    // A last line without its newline (the child died mid-write) is parsed here.
    std::vector<StreamEvent> finish();
    void reset();

    int lineCount() const { return m_lines; }

private:
    void parseLine(const QByteArray& line, std::vector<StreamEvent>& out);

    QByteArray m_pending;
    int m_lines = 0;
};

} // namespace kwb::gui
