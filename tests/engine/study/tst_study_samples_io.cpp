// SPDX-License-Identifier: GPL-3.0-or-later
// The samples' fast paths (study_fast_read.cpp and sample_scanner.cpp on load, the streamed
// samples on save) against the format: every sample field survives save + load unchanged, and the
// fast reader reads exactly what nlohmann's DOM and sample_from_json read, or steps aside so the
// ordinary path decides (and words the error, naming the file and the field or offset).
#include "fast_read_agreement.h"
#include "study/study_fast_read.h"
#include "study/study_file.h"
#include "study/study_json.h"
#include "study/study_text.h"
#include "util/atomic_file.h"

#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <filesystem>
#include <limits>

using namespace kwb;

namespace {

// Every field of Sample set to something other than its default.
Sample full_sample()
{
    Sample x;
    x.arm = "treatment";
    x.rep = 7;
    x.position = 15;
    x.started_at = "2026-11-30T12:00:00.123Z";
    x.duration_s = 0.012345678901234567;
    x.metrics = {{"time_ms", 9.25}, {"gflops", 1234.5678}, {"tiny", 1e-300}, {"big", 1.7976931348623157e308}};
    x.iterations = {9.2, std::numeric_limits<double>::quiet_NaN(), -0.0, 1e21};
    x.clock_mhz = 1980;
    x.temperature_c = 61.5;
    x.warmup = true;
    x.discarded = true;
    x.throttled = true;
    x.note = "a \"quoted\" note\nwith a tab\t, a backslash \\ and ünïcödé";
    x.mem_clock_mhz = 3201;
    x.power_w = 612.5;
    x.throttle_reasons = {"sw_power_cap", "hw_slowdown"};
    x.launches = 40;
    x.failed = true;
    x.exit_status = -11;
    x.stdout_tail = "line 1\nline 2\r\n\x01 control";
    x.stderr_tail = "Segmentation fault (core dumped)";
    x.adapter = "json-last-line";
    x.fingerprint = {{"shape", "512x512x512"}, {"dtype", "fp32"}};
    x.peak_gpu_mem_mib = 80123.25;
    x.t_s = 3.5;
    return x;
}

Study study_with(std::vector<Sample> samples)
{
    Study s;
    s.name = "samples round trip";
    Experiment e;
    e.id = "ab-1";
    e.workload = "gemm";
    e.metric = "time_ms";
    e.arms = {{"baseline", {{"block", 32}}}, {"treatment", {{"block", 128}}}};
    e.samples = std::move(samples);
    s.experiments.push_back(e);
    e.id = "ab-2"; // a second experiment: samples go back to the experiment they came from
    e.samples.resize(1);
    s.experiments.push_back(e);
    return s;
}

using kwb::testing::fast_read_disagreement;
using kwb::testing::same_double;

// Field by field, so a field that is lost or altered is named.
void compare_samples(const Sample& a, const Sample& b)
{
    QCOMPARE(a.arm, b.arm);
    QCOMPARE(a.rep, b.rep);
    QCOMPARE(a.position, b.position);
    QCOMPARE(a.started_at, b.started_at);
    QVERIFY(same_double(a.duration_s, b.duration_s));
    QVERIFY(a.metrics == b.metrics);
    QCOMPARE(a.iterations.size(), b.iterations.size());
    for (size_t i = 0; i < a.iterations.size(); ++i)
        QVERIFY2(same_double(a.iterations[i], b.iterations[i]), qPrintable(QString::number(i)));
    QCOMPARE(a.clock_mhz, b.clock_mhz);
    QCOMPARE(a.temperature_c, b.temperature_c);
    QCOMPARE(a.warmup, b.warmup);
    QCOMPARE(a.discarded, b.discarded);
    QCOMPARE(a.throttled, b.throttled);
    QCOMPARE(a.note, b.note);
    QCOMPARE(a.mem_clock_mhz, b.mem_clock_mhz);
    QCOMPARE(a.power_w, b.power_w);
    QVERIFY(a.throttle_reasons == b.throttle_reasons);
    QCOMPARE(a.launches, b.launches);
    QCOMPARE(a.failed, b.failed);
    QCOMPARE(a.exit_status, b.exit_status);
    QCOMPARE(a.stdout_tail, b.stdout_tail);
    QCOMPARE(a.stderr_tail, b.stderr_tail);
    QCOMPARE(a.adapter, b.adapter);
    QVERIFY(a.fingerprint == b.fingerprint);
    QCOMPARE(a.peak_gpu_mem_mib, b.peak_gpu_mem_mib);
    QCOMPARE(a.t_s, b.t_s);
}

// The ordinary path: the whole document through nlohmann's DOM and study_from_json.
Study ordinary_parse(const std::string& text)
{
    auto doc = nlohmann::json::parse(text);
    migrate_study_json(doc);
    return study_from_json(doc);
}

const char* const kHead = R"({"schema_version": 3, "name": "x", "experiments": [{"id": "a", "workload": "g",
    "metric": "t", "arms": [], "samples": [)";
const char* const kTail = "]}]}";

} // namespace

class TestStudySamplesIo : public QObject {
    Q_OBJECT

private slots:
    void everySampleFieldSurvivesSaveAndLoad()
    {
        QTemporaryDir dir;
        const auto path = std::filesystem::path(dir.path().toStdString()) / "s.json";
        Sample bare; // every field at its default
        bare.arm = "baseline";
        Study s = study_with({full_sample(), bare, full_sample()});
        s.experiments[0].samples[2].metrics.clear(); // a failed repetition: no metrics
        save_study(s, path);
        const std::string first = read_file(path);
        // Every field a sample is saved with is one the fast reader knows (else a load would take
        // the ordinary path: correct, but the 100,000-sample benchmark would lose its fast path).
        QVERIFY2(read_study_fast(first), "the fast reader stepped aside on a saved sample: teach it the new field");
        const Study back = load_study(path);
        QCOMPARE(back.experiments.size(), s.experiments.size());
        for (size_t e = 0; e < s.experiments.size(); ++e) {
            QCOMPARE(back.experiments[e].samples.size(), s.experiments[e].samples.size());
            for (size_t i = 0; i < s.experiments[e].samples.size(); ++i)
                compare_samples(back.experiments[e].samples[i], s.experiments[e].samples[i]);
        }
        // Saved again, the file is the same byte for byte but for the modification time.
        Study again = back;
        again.modified_at = s.modified_at;
        save_study(again, path);
        const std::string second = read_file(path);
        const auto stamp = [](std::string text) {
            const auto at = text.find("\"modified_at\"");
            return text.replace(at, text.find('\n', at) - at, "");
        };
        QCOMPARE(stamp(second), stamp(first));
        // And the saved text is what the DOM serialiser writes for the same study.
        QCOMPARE(nlohmann::json::parse(first).dump(), study_to_json(s).dump());
    }

    void fastReadsWhatTheOrdinaryPathReads_data()
    {
        QTest::addColumn<QString>("samples");
        QTest::addRow("minimal") << R"({"arm": "b", "rep": 0, "position": 0})";
        QTest::addRow("nulls are defaults")
            << R"({"arm": "b", "rep": 0, "position": 0, "started_at": null, "duration_s": null, "metrics": null,
            "iterations": null, "clock_mhz": null, "warmup": null, "note": null, "throttle_reasons": null,
            "launches": null, "exit_status": null, "fingerprint": null, "t_s": null})";
        QTest::addRow("null measurements") << R"({"arm": "b", "rep": 0, "position": 0, "metrics": {"t": null,
            "g": 2.5}, "iterations": [1.0, null, 3]})";
        QTest::addRow("integers where numbers") << R"({"arm": "b", "rep": 1, "position": 2, "duration_s": 3,
            "metrics": {"t": 10, "u": -4}, "clock_mhz": 1980, "iterations": [1, 2]})";
        QTest::addRow("negative ints") << R"({"arm": "b", "rep": -1, "position": -2147483648, "exit_status": -11})";
        QTest::addRow("two samples") << R"({"arm": "b", "rep": 0, "position": 0}, {"arm": "t", "rep": 0,
            "position": 1, "fingerprint": {"k": "v"}, "throttle_reasons": ["x"]})";
        QTest::addRow("empty") << "";
        // What a dedicated tokenizer can get wrong, each checked against nlohmann on the same text.
        // (Ordinary literals: moc misreads a raw string holding \".)
        QTest::addRow("string escapes")
            << "{\"arm\": \"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\", \"rep\": 0, \"position\": 0, \"started_at\": "
               "\"\\u0041\\u00e9\\u20ac\", \"note\": \"\\ud83d\\ude00 nul:\\u0000: \\uD834\\uDD1E\", "
               "\"throttle_reasons\": [\"\\\"\", \"\", \"\\\\\\\\\"], \"fingerprint\": {\"k\\\"ey\": \"v\\nal\"}}";
        QTest::addRow("escaped keys") << R"({"ar\u006d": "b", "re\u0070": 0, "position": 0, "metrics": {"t\u00e9": 1,
            "\u00b5s": 2}})";
        QTest::addRow("raw UTF-8")
            << "{\"arm\": \"b\u00e4\", \"rep\": 0, \"position\": 0, \"note\": \"\u00fc\u20ac\U0001F600\","
               " \"metrics\": {\"\u00b5s\": 1.5}}";
        QTest::addRow("exponents") << R"({"arm": "b", "rep": 0, "position": 0, "duration_s": 1e3, "clock_mhz": 1E-3,
            "metrics": {"a": 2.5e+10, "b": -1.5E-7, "c": 0e0, "d": 1e308, "e": 0.5e-0}, "iterations": [1e1, 1E+1]})";
        QTest::addRow("negative zero") << R"({"arm": "b", "rep": -0, "position": 0, "duration_s": -0, "t_s": -0.0,
            "iterations": [-0, -0.0, 0, -0e5], "metrics": {"z": -0, "y": -0.0}, "exit_status": -0})";
        QTest::addRow("extreme doubles")
            << R"({"arm": "b", "rep": 0, "position": 0, "duration_s": 1.7976931348623157e308,
            "metrics": {"min": 2.2250738585072014e-308, "neg": -1.7976931348623157e308},
            "iterations": [0.1000000000000000055511151231257827021181583404541015625, 3.141592653589793238462643383279,
            9007199254740993.0, 1.00000000000000011102230246251565404236316680908203125]})";
        QTest::addRow("integers beyond 2^53")
            << R"({"arm": "b", "rep": 0, "position": 0, "duration_s": 9007199254740993,
            "metrics": {"u": 18446744073709551615, "v": 18446744073709551616, "w": -9223372036854775808,
            "x": -9223372036854775809, "y": 123456789012345678901234567890, "z": 999999999999999999},
            "iterations": [9007199254740993, 36028797018963967, -36028797018963967]})";
        QTest::addRow("int limits") << R"({"arm": "b", "rep": 2147483647, "position": -2147483648, "launches": 0,
            "exit_status": -2147483648})";
        QTest::addRow("no whitespace") << R"({"arm":"b","rep":0,"position":0,"metrics":{"t":1},"iterations":[1,null]})";
        QTest::addRow("all whitespace") << "\r\n\t{ \"arm\" :\t\"b\" ,\r\n \"rep\"\n:\n0 , \"position\" : 0 ,"
                                           " \"metrics\" : { } , \"iterations\" : [ ] , \"fingerprint\":{ } }\t\r\n";
    }

    void fastReadsWhatTheOrdinaryPathReads()
    {
        QFETCH(QString, samples);
        const std::string text = kHead + samples.toStdString() + kTail;
        const auto read = read_study_fast(text);
        QVERIFY2(read, "the fast path stepped aside on a sample it reads");
        QVERIFY(read->document.at("experiments").at(0).at("samples") == nlohmann::json::array());
        const auto disagreement = fast_read_disagreement(text);
        QVERIFY2(disagreement.empty(), disagreement.c_str());
        const Study fast = parse_study(text, "fast.json");
        const Study ordinary = ordinary_parse(text);
        QCOMPARE(fast.experiments.at(0).samples.size(), ordinary.experiments.at(0).samples.size());
        for (size_t i = 0; i < fast.experiments[0].samples.size(); ++i)
            compare_samples(fast.experiments[0].samples[i], ordinary.experiments[0].samples[i]);
        QCOMPARE(study_to_json(fast).dump(), study_to_json(ordinary).dump());
    }

    // Shapes the fast reader is not sure of: it steps aside, and the ordinary path gives the
    // result (or the error) it always gave.
    void fastStepsAsideOnOddShapes_data()
    {
        QTest::addColumn<QString>("samples");
        QTest::addColumn<QString>("error"); // empty: the ordinary path loads it
        QTest::addRow("unknown fields") // the ordinary path decides what a key it may know means
            << R"({"arm": "b", "rep": 0, "position": 0, "future": {"a": [1, {"b": null}], "c": "d"},
            "later": [[1], {}], "scalar": 5, "metrics": {"t": 1.5}})"
            << "";
        QTest::addRow("fractional rep") << R"({"arm": "b", "rep": 1.5, "position": 0})"
                                        << "samples[0].rep': expected an integer";
        QTest::addRow("missing arm") << R"({"rep": 0, "position": 0})"
                                     << "samples[0].arm': missing";
        QTest::addRow("rep beyond int") << R"({"arm": "b", "rep": 2147483648, "position": 0})"
                                        << "samples[0].rep': 2147483648 is out of range";
        QTest::addRow("string duration") << R"({"arm": "b", "rep": 0, "position": 0, "duration_s": "1"})"
                                         << "samples[0].duration_s': expected a number";
        QTest::addRow("not an object") << R"({"arm": "b", "rep": 0, "position": 0}, 5)"
                                       << "samples[1]': expected an object";
        QTest::addRow("metric string") << R"({"arm": "b", "rep": 0, "position": 0, "metrics": {"t": "x"}})"
                                       << "metrics.t': expected a number";
        QTest::addRow("duplicate key") << R"({"arm": "b", "rep": 0, "position": 0, "rep": 3})"
                                       << "";
        QTest::addRow("fingerprint number") << R"({"arm": "b", "rep": 0, "position": 0, "fingerprint": {"n": 3}})"
                                            << "";
        QTest::addRow("beyond double") << R"({"arm": "b", "rep": 0, "position": 0, "duration_s": 1e400})"
                                       << "beyond the range of a number";
        QTest::addRow("beyond double, negative") << R"({"arm": "b", "rep": 0, "position": 0, "metrics": {"t": -1e400}})"
                                                 << "field 't': number overflow";
        // nlohmann reads an underflow as 0: the fast reader leaves that to it.
        QTest::addRow("underflow") << R"({"arm": "b", "rep": 0, "position": 0, "duration_s": 1e-400})"
                                   << "";
        // The format writes a non-finite value as null; these spellings are not JSON.
        QTest::addRow("NaN")
            << R"({"arm": "b", "rep": 0, "position": 0, "duration_s": NaN})"
            << "not valid JSON: parse error at line 2, column 96: syntax error while parsing value - invalid literal";
        QTest::addRow("Infinity")
            << R"({"arm": "b", "rep": 0, "position": 0, "iterations": [-Infinity]})"
            << "not valid JSON: parse error at line 2, column 98: syntax error while parsing value - invalid number";
        QTest::addRow("leading zero") << R"({"arm": "b", "rep": 01, "position": 0})"
                                      << "not valid JSON";
        QTest::addRow("bare fraction") << R"({"arm": "b", "rep": 0, "position": 0, "duration_s": .5})"
                                       << "not valid JSON";
        QTest::addRow("trailing dot") << R"({"arm": "b", "rep": 0, "position": 0, "duration_s": 1.})"
                                      << "not valid JSON";
        QTest::addRow("plus sign") << R"({"arm": "b", "rep": 0, "position": 0, "duration_s": +1})"
                                   << "not valid JSON";
        QTest::addRow("bare exponent") << R"({"arm": "b", "rep": 0, "position": 0, "duration_s": 1e})"
                                       << "not valid JSON";
        QTest::addRow("hex number") << R"({"arm": "b", "rep": 0, "position": 0, "duration_s": 0x10})"
                                    << "not valid JSON";
        QTest::addRow("bad escape") << R"({"arm": "b\x", "rep": 0, "position": 0})"
                                    << "not valid JSON";
        QTest::addRow("lone high surrogate") << R"({"arm": "\ud800x", "rep": 0, "position": 0})"
                                             << "not valid JSON";
        QTest::addRow("lone low surrogate") << R"({"arm": "\udc00", "rep": 0, "position": 0})"
                                            << "not valid JSON";
        QTest::addRow("short \\u") << R"({"arm": "\u12", "rep": 0, "position": 0})"
                                   << "not valid JSON";
        QTest::addRow("raw tab in string") << "{\"arm\": \"a\tb\", \"rep\": 0, \"position\": 0}"
                                           << "not valid JSON";
        QTest::addRow("string rep") << R"({"arm": "b", "rep": "1", "position": 0})"
                                    << "samples[0].rep': expected an integer";
        QTest::addRow("number arm") << R"({"arm": 5, "rep": 0, "position": 0})"
                                    << "samples[0].arm': expected a string";
        QTest::addRow("number warmup") << R"({"arm": "b", "rep": 0, "position": 0, "warmup": 1})"
                                       << "samples[0].warmup': expected true or false";
        QTest::addRow("array metrics") << R"({"arm": "b", "rep": 0, "position": 0, "metrics": []})"
                                       << "samples[0].metrics': expected an object";
        QTest::addRow("string iteration") << R"({"arm": "b", "rep": 0, "position": 0, "iterations": ["1"]})"
                                          << "samples[0].iterations[0]': expected a number";
        QTest::addRow("number reason") << R"({"arm": "b", "rep": 0, "position": 0, "throttle_reasons": [1]})"
                                       << "samples[0].throttle_reasons[0]': expected a string";
        QTest::addRow("exponent launches") << R"({"arm": "b", "rep": 0, "position": 0, "launches": 1e2})"
                                           << "samples[0].launches': expected an integer";
        QTest::addRow("exit status beyond int")
            << R"({"arm": "b", "rep": 0, "position": 0, "exit_status": -2147483649})"
            << "samples[0].exit_status': -2147483649 is out of range";
        QTest::addRow("nested unknown object") << R"({"arm": "b", "rep": 0, "position": 0, "x": {"y": {"z": [{}]}}})"
                                               << "";
        QTest::addRow("duplicate metric") << R"({"arm": "b", "rep": 0, "position": 0, "metrics": {"t": 1, "t": 2}})"
                                          << "";
        QTest::addRow("escaped experiments key") << ""
                                                 << ""; // built in the test: the key is the root's
    }

    void fastStepsAsideOnOddShapes()
    {
        QFETCH(QString, samples);
        QFETCH(QString, error);
        std::string text = kHead + samples.toStdString() + kTail;
        if (samples.isEmpty()) // an escape in a key of the root: it may spell "experiments"
            text = R"({"schema_version": 3, "name": "x", "experiment\u0073": [{"id": "a", "workload": "g",
                "metric": "t", "arms": [], "samples": [{"arm": "b", "rep": 0, "position": 0}]}]})";
        QVERIFY(!read_study_fast(text));
        if (error.isEmpty()) {
            const Study loaded = parse_study(text, "odd.json");
            QCOMPARE(study_to_json(loaded).dump(), study_to_json(ordinary_parse(text)).dump());
            return;
        }
        try {
            parse_study(text, "odd.json");
            QFAIL("a broken study loaded");
        } catch (const StudyLoadError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find(error.toStdString()) != std::string::npos, e.what());
            QVERIFY2(what.rfind("odd.json: ", 0) == 0 && what.find('\n') == std::string::npos,
                e.what()); // one line naming the file
        }
    }

    // Bytes that are not UTF-8 (QByteArray rows: a QString would have mended them).
    void invalidUtf8IsRefused_data()
    {
        QTest::addColumn<QByteArray>("arm");
        QTest::addRow("not a lead byte") << QByteArray("\xff");
        QTest::addRow("continuation alone") << QByteArray("a\x80");
        QTest::addRow("overlong") << QByteArray("\xc0\x80");
        QTest::addRow("overlong 3 bytes") << QByteArray("\xe0\x80\x80");
        QTest::addRow("surrogate") << QByteArray("\xed\xa0\x80");
        QTest::addRow("beyond U+10FFFF") << QByteArray("\xf4\x90\x80\x80");
        QTest::addRow("cut sequence") << QByteArray("\xe2\x82");
    }

    void invalidUtf8IsRefused()
    {
        QFETCH(QByteArray, arm);
        const std::string text
            = kHead + ("{\"arm\": \"" + arm.toStdString() + "\", \"rep\": 0, \"position\": 0}") + kTail;
        QVERIFY(!read_study_fast(text));
        try {
            parse_study(text, "utf8.json");
            QFAIL("a study with a string that is not UTF-8 loaded");
        } catch (const StudyLoadError& e) {
            QVERIFY2(std::string(e.what()).find("utf8.json: not valid JSON: parse error at line 2, column ")
                    != std::string::npos,
                e.what());
        }
        // Well-formed neighbours of each read the fast way.
        const std::string good = kHead
            + std::string("{\"arm\": \"\xc2\x80\xe0\xa0\x80\xed\x9f\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\", \"rep\": 0, "
                          "\"position\": 0}")
            + kTail;
        QVERIFY(read_study_fast(good));
        QVERIFY(fast_read_disagreement(good).empty());
    }

    // Every cut of a saved study (a file half-written by another program, a truncated copy) is
    // refused with one line naming the file, whichever path reads it; the whole file loads.
    void truncatedStudiesAreRefused()
    {
        Sample bare;
        bare.arm = "baseline";
        const std::string text = study_text(study_with({full_sample(), bare}));
        QVERIFY(read_study_fast(text));
        for (size_t cut = 0; cut + 1 < text.size(); ++cut) { // the last byte is the final newline
            const std::string_view part(text.data(), cut);
            const auto disagreement = fast_read_disagreement(part);
            QVERIFY2(disagreement.empty(), ("cut at " + std::to_string(cut) + ": " + disagreement).c_str());
            try {
                parse_study(part, "cut.json");
                QFAIL(("a study cut at byte " + std::to_string(cut) + " loaded").c_str());
            } catch (const StudyLoadError& e) {
                const std::string what = e.what();
                QVERIFY2(what.rfind("cut.json: not valid JSON: parse error at line ", 0) == 0
                        && what.find('\n') == std::string::npos,
                    e.what());
            }
        }
        QCOMPARE(parse_study(text, "whole.json").experiments.at(0).samples.size(), size_t(2));
    }

    // The same study written compactly, with tabs, or with CRLF line ends reads the same.
    void whitespaceVariationsReadTheSame()
    {
        Sample bare;
        bare.arm = "baseline";
        const Study s = study_with({full_sample(), bare});
        const auto doc = study_to_json(s);
        std::string crlf = doc.dump(2);
        for (size_t at = crlf.find('\n'); at != std::string::npos; at = crlf.find('\n', at + 2))
            crlf.replace(at, 1, "\r\n");
        for (const std::string& text : {doc.dump(), doc.dump(1, '\t'), crlf}) {
            QVERIFY(read_study_fast(text));
            const auto disagreement = fast_read_disagreement(text);
            QVERIFY2(disagreement.empty(), disagreement.c_str());
            const Study back = parse_study(text, "ws.json");
            QCOMPARE(back.experiments.at(0).samples.size(), size_t(2));
            compare_samples(back.experiments[0].samples[0], s.experiments[0].samples[0]);
        }
    }

    void duplicateSamplesKeyKeepsTheLast()
    {
        const std::string text = R"({"schema_version": 3, "name": "x", "experiments": [{"id": "a",
            "workload": "g", "metric": "t", "arms": [], "samples": [{"arm": "b", "rep": 0, "position": 0}],
            "samples": [{"arm": "c", "rep": 1, "position": 1}]}]})";
        const Study s = parse_study(text, "dup.json");
        QCOMPARE(s.experiments.at(0).samples.size(), size_t(1));
        QCOMPARE(s.experiments[0].samples[0].arm, std::string("c"));
    }
};

QTEST_GUILESS_MAIN(TestStudySamplesIo)
#include "tst_study_samples_io.moc"
