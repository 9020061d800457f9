// SPDX-License-Identifier: GPL-3.0-or-later
// The samples' fast paths (study_sax.cpp on load, the streamed samples on save) against the
// format: every sample field survives save + load unchanged, and the SAX reader reads exactly
// what sample_from_json reads, or steps aside so the ordinary path decides.
#include "study/study_file.h"
#include "study/study_json.h"
#include "study/study_sax.h"
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

bool same_double(double a, double b)
{
    return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

// Field by field, so a field that is lost or altered is named.
void compare_samples(const Sample& a, const Sample& b)
{
    QCOMPARE(a.arm, b.arm);
    QCOMPARE(a.rep, b.rep);
    QCOMPARE(a.position, b.position);
    QCOMPARE(a.started_at, b.started_at);
    QCOMPARE(a.duration_s, b.duration_s);
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
        QVERIFY2(read_study_sax(first), "the fast reader stepped aside on a saved sample: teach it the new field");
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

    void saxReadsWhatTheOrdinaryPathReads_data()
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
    }

    void saxReadsWhatTheOrdinaryPathReads()
    {
        QFETCH(QString, samples);
        const std::string text = kHead + samples.toStdString() + kTail;
        const auto sax = read_study_sax(text);
        QVERIFY2(sax, "the fast path stepped aside on a sample it reads");
        QVERIFY(sax->document.at("experiments").at(0).count("samples") == 0);
        const Study fast = parse_study(text, "fast.json");
        const Study ordinary = ordinary_parse(text);
        QCOMPARE(fast.experiments.at(0).samples.size(), ordinary.experiments.at(0).samples.size());
        for (size_t i = 0; i < fast.experiments[0].samples.size(); ++i)
            compare_samples(fast.experiments[0].samples[i], ordinary.experiments[0].samples[i]);
        QCOMPARE(study_to_json(fast).dump(), study_to_json(ordinary).dump());
    }

    // Shapes the SAX reader is not sure of: it steps aside, and the ordinary path gives the
    // result (or the error) it always gave.
    void saxStepsAsideOnOddShapes_data()
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
    }

    void saxStepsAsideOnOddShapes()
    {
        QFETCH(QString, samples);
        QFETCH(QString, error);
        const std::string text = kHead + samples.toStdString() + kTail;
        QVERIFY(!read_study_sax(text));
        if (error.isEmpty()) {
            const Study loaded = parse_study(text, "odd.json");
            QCOMPARE(study_to_json(loaded).dump(), study_to_json(ordinary_parse(text)).dump());
            return;
        }
        try {
            parse_study(text, "odd.json");
            QFAIL("a broken study loaded");
        } catch (const StudyLoadError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(error), e.what());
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
