// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/stream_parser.h"

#include <QTest>

using namespace Qt::StringLiterals;
using kwb::gui::StreamEvent;
using kwb::gui::StreamParser;

class TestStreamParser : public QObject {
    Q_OBJECT
private slots:
    void types_data();
    void types();
    void splitAnywhere_data();
    void splitAnywhere();
    void partialLastLineWaitsForFinish();
    void malformedLineIsReportedAndParsingGoesOn();
    void newerVersionIsReported();
};

void TestStreamParser::types_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<int>("expectedCount");
    QTest::addColumn<int>("expectedType");
    const auto row = [](const char* name, const char* line, int count, StreamEvent::Type type) {
        QTest::addRow("%s", name) << QByteArray(line) << count << static_cast<int>(type);
    };
    row("start", R"({"type":"start","v":1,"plan":{"arms":["a","b"]}})", 1, StreamEvent::Type::Start);
    row("sample", R"({"type":"sample","v":1,"arm":"baseline","value":1.5})", 1, StreamEvent::Type::Sample);
    row("metric", R"({"type":"metric","v":1,"name":"cpu_util","value":99})", 1, StreamEvent::Type::Metric);
    row("progress", R"({"type":"progress","v":1,"done":1,"planned":2})", 1, StreamEvent::Type::Progress);
    row("verdict", R"({"type":"verdict","v":1,"verdict":{}})", 1, StreamEvent::Type::Verdict);
    row("error", R"({"type":"error","v":1,"message":"x","continues":true})", 1, StreamEvent::Type::Error);
    row("end", R"({"type":"end","v":1,"status":"done"})", 1, StreamEvent::Type::End);
    row("unknown type ignored", R"({"type":"thermals","v":1,"c":80})", 0, StreamEvent::Type::Malformed);
    row("blank line ignored", "   ", 0, StreamEvent::Type::Malformed);
    row("crlf tolerated", "{\"type\":\"end\",\"v\":1}\r", 1, StreamEvent::Type::End);
}

void TestStreamParser::types()
{
    QFETCH(QByteArray, line);
    QFETCH(int, expectedCount);
    QFETCH(int, expectedType);
    StreamParser parser;
    const auto events = parser.feed(line + '\n');
    QCOMPARE(static_cast<int>(events.size()), expectedCount);
    if (expectedCount == 1)
        QCOMPARE(static_cast<int>(events.front().type), expectedType);
}

void TestStreamParser::splitAnywhere_data()
{
    QTest::addColumn<int>("chunk");
    for (int chunk : {1, 2, 3, 7, 64, 4096})
        QTest::addRow("chunks of %d bytes", chunk) << chunk;
}

void TestStreamParser::splitAnywhere()
{
    // Pipes deliver arbitrary pieces: a line split across reads must come out whole, once.
    QFETCH(int, chunk);
    const QByteArray stream = R"({"type":"start","v":1,"experiment":"ab-1"}
{"type":"sample","v":1,"arm":"baseline","rep":0,"value":41.25}
{"type":"sample","v":1,"arm":"treatment","rep":0,"value":35.5}
{"type":"end","v":1,"status":"done","exit_code":0}
)";
    StreamParser parser;
    std::vector<StreamEvent> events;
    for (qsizetype i = 0; i < stream.size(); i += chunk)
        for (auto& e : parser.feed(stream.mid(i, chunk)))
            events.push_back(std::move(e));
    QCOMPARE(events.size(), size_t {4});
    QCOMPARE(events[1].type, StreamEvent::Type::Sample);
    QCOMPARE(events[1].object.value("value"_L1).toDouble(), 41.25);
    QCOMPARE(events[2].object.value("arm"_L1).toString(), u"treatment"_s);
    QCOMPARE(events[3].type, StreamEvent::Type::End);
    QVERIFY(parser.finish().empty());
}

void TestStreamParser::partialLastLineWaitsForFinish()
{
    StreamParser parser;
    QVERIFY(parser.feed("{\"type\":\"end\",\"v\":1,\"status\":\"fail").empty());
    QVERIFY(parser.feed("ed\"}").empty());
    const auto events = parser.finish();
    QCOMPARE(events.size(), size_t {1});
    QCOMPARE(events.front().object.value("status"_L1).toString(), u"failed"_s);
}

void TestStreamParser::malformedLineIsReportedAndParsingGoesOn()
{
    StreamParser parser;
    const auto events
        = parser.feed("{\"type\":\"start\",\"v\":1}\nnot json at all\n[1,2]\n{\"type\":\"end\",\"v\":1}\n");
    QCOMPARE(events.size(), size_t {4});
    QCOMPARE(events[1].type, StreamEvent::Type::Malformed);
    QVERIFY2(events[1].message.contains(u"line 2"_s), qPrintable(events[1].message));
    QCOMPARE(events[2].type, StreamEvent::Type::Malformed);
    QVERIFY(events[2].message.contains(u"line 3"_s));
    QCOMPARE(events[3].type, StreamEvent::Type::End);
}

void TestStreamParser::newerVersionIsReported()
{
    StreamParser parser;
    const auto events = parser.feed("{\"type\":\"start\",\"v\":2}\n");
    QCOMPARE(events.size(), size_t {1});
    QCOMPARE(events.front().type, StreamEvent::Type::Malformed);
    QVERIFY(events.front().message.contains(u"version 2"_s));
}

QTEST_GUILESS_MAIN(TestStreamParser)
#include "tst_stream_parser.moc"
