// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/stream_parser.h"

#include <QJsonDocument>
#include <QJsonParseError>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {
constexpr std::pair<QLatin1StringView, StreamEvent::Type> kTypes[] = {
    {"start"_L1, StreamEvent::Type::Start},
    {"sample"_L1, StreamEvent::Type::Sample},
    {"metric"_L1, StreamEvent::Type::Metric},
    {"progress"_L1, StreamEvent::Type::Progress},
    {"verdict"_L1, StreamEvent::Type::Verdict},
    {"error"_L1, StreamEvent::Type::Error},
    {"end"_L1, StreamEvent::Type::End},
};
} // namespace

std::vector<StreamEvent> StreamParser::feed(const QByteArray& bytes)
{
    std::vector<StreamEvent> out;
    m_pending.append(bytes);
    qsizetype start = 0;
    for (qsizetype nl = m_pending.indexOf('\n', start); nl >= 0; nl = m_pending.indexOf('\n', start)) {
        parseLine(m_pending.mid(start, nl - start), out);
        start = nl + 1;
    }
    m_pending.remove(0, start);
    return out;
}

std::vector<StreamEvent> StreamParser::finish()
{
    std::vector<StreamEvent> out;
    if (!m_pending.trimmed().isEmpty())
        parseLine(m_pending, out);
    m_pending.clear();
    return out;
}

void StreamParser::reset()
{
    m_pending.clear();
    m_lines = 0;
}

void StreamParser::parseLine(const QByteArray& raw, std::vector<StreamEvent>& out)
{
    ++m_lines;
    const QByteArray line = raw.trimmed();
    if (line.isEmpty())
        return;
    QJsonParseError error {};
    const QJsonDocument doc = QJsonDocument::fromJson(line, &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject()) {
        const QString why = error.error != QJsonParseError::NoError ? error.errorString() : u"not a JSON object"_s;
        out.push_back(
            {StreamEvent::Type::Malformed, {}, QStringLiteral("progress stream line %1: %2").arg(m_lines).arg(why)});
        return;
    }
    const QJsonObject object = doc.object();
    const int version = object.value("v"_L1).toInt(kSupportedVersion);
    if (version > kSupportedVersion) {
        out.push_back({StreamEvent::Type::Malformed, object,
            QStringLiteral("progress stream line %1: version %2 is newer than this workbench reads (%3)")
                .arg(m_lines)
                .arg(version)
                .arg(kSupportedVersion)});
        return;
    }
    const QString type = object.value("type"_L1).toString();
    for (const auto& [name, value] : kTypes) {
        if (type == name) {
            out.push_back({value, object, {}});
            return;
        }
    }
    // Unknown type: a newer kwb may add line types without changing the version.
}

} // namespace kwb::gui
