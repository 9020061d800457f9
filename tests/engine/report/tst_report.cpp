// SPDX-License-Identifier: GPL-3.0-or-later
// The report model and its formats, from the committed studies: the demo (a LICENSE), a KILL and
// an INCONCLUSIVE with bimodal arms (tests/data/studies, recorded by scripts/make_report_studies.sh).
#include "json_schema_check.h"
#include "report/render.h"
#include "report/report_document.h"
#include "report/roofline_report.h"
#include "report/sha256.h"
#include "report/svg_charts.h"
#include "report/svg_writer.h"
#include "report/trace.h"
#include "stats/effect.h"
#include "study/arm_roles.h"
#include "study/study_file.h"
#include "verdict/aa_verdict.h"
#include "verdict/profile.h"
#include "verdict/verdict_json.h"
#include "verdict/wording.h"

#include <QFile>
#include <QTest>
#include <QXmlStreamReader>
#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

using namespace kwb;
using namespace kwb::report;

namespace {

const std::string kDemo = KWB_SOURCE_DIR "/resources/studies/demo.json";
const std::string kKill = KWB_SOURCE_DIR "/tests/data/studies/kill.json";
const std::string kBimodal = KWB_SOURCE_DIR "/tests/data/studies/bimodal.json";
const std::string kGrid = KWB_SOURCE_DIR "/tests/data/studies/grid.json";

bool has(const std::string& text, const std::string& what)
{
    return text.find(what) != std::string::npos;
}

std::string num(double x)
{
    return wording::num(x);
}

} // namespace

class TestReport : public QObject {
    Q_OBJECT

private slots:
    void sha256_matches_fips_vectors()
    {
        QCOMPARE(sha256_hex(""), std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
        QCOMPARE(sha256_hex("abc"), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
        QCOMPARE(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
        QCOMPARE(sha256_hex(std::string(1000000, 'a')),
            std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
    }

    void model_agrees_with_the_stored_verdict()
    {
        // The per-arm numbers come from the engine's statistics over the judged repetitions; they
        // must be exactly those the verdict engine stored when it judged the experiment.
        for (const auto& path : {kDemo, kKill, kBimodal}) {
            const Report r = report_from_file(path, "test");
            const Study s = load_study(path);
            QCOMPARE(r.experiments.size(), s.experiments.size());
            const auto& e = r.experiments.front();
            const nlohmann::json v = to_json(*s.experiments.front().verdict);
            for (std::size_t i = 0; i < 2; ++i) {
                const auto& stored = v.at("arms").at(e.arms[i].name);
                QVERIFY(e.arms[i].summary);
                QCOMPARE(e.arms[i].summary->n, stored.at("n").get<std::size_t>());
                QCOMPARE(e.arms[i].summary->mean, stored.at("mean").get<double>());
                QCOMPARE(e.arms[i].summary->p90, stored.at("p90").get<double>());
                QCOMPARE(e.arms[i].bimodality.bimodal.value_or(false), stored.at("modes").is_array());
            }
            QVERIFY(e.evidence);
            QCOMPARE(e.evidence->delta_pct, v.at("delta_pct").get<double>());
            QCOMPARE((*e.evidence->ci95_delta_pct)[0], v.at("ci95_delta_pct")[0].get<double>());
            QCOMPARE((*e.evidence->ci95_delta_pct)[1], v.at("ci95_delta_pct")[1].get<double>());
            QCOMPARE(e.evidence->paired.has_value(), v.at("paired").is_object());
            QCOMPARE(r.final_word, std::string(to_string(s.experiments.front().final_verdict->word)));
            std::ifstream in(path, std::ios::binary);
            const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            QCOMPARE(r.provenance.study_sha256, sha256_hex(bytes));
        }
    }

    void committed_studies_have_their_verdicts()
    {
        QCOMPARE(report_from_file(kDemo, "").final_word, std::string("LICENSE"));
        QCOMPARE(report_from_file(kKill, "").final_word, std::string("KILL"));
        const Report b = report_from_file(kBimodal, "");
        QCOMPARE(b.final_word, std::string("INCONCLUSIVE"));
        bool bimodal = false;
        for (const auto& a : b.experiments.front().arms)
            bimodal = bimodal || (a.bimodality.bimodal.value_or(false) && a.bimodality.modes.size() == 2);
        QVERIFY(bimodal);
    }

    void markdown_carries_the_key_facts()
    {
        const Report r = report_from_file(kDemo, "kwb report demo.json --format md");
        std::vector<Attachment> charts;
        const std::string md = render_markdown(r, "demo", charts);
        const auto& e = r.experiments.front();
        for (const std::string& fact : {std::string("**Verdict: LICENSE**"),
                 std::string("time_ms from 30 to 20 ms (lower is better)"), std::string("K (kernel)"),
                 std::string("memory-bandwidth"), std::string("block_new"), std::string("Predicted delta: 45.73 %"),
                 std::string("Differs in block: 32 -> 128"), std::string("plan complete: 15 runs per arm"),
                 num(e.arms[0].summary->mean), num(e.arms[1].summary->p99),
                 "[" + num((*e.evidence->ci95_delta_pct)[0]) + ", " + num((*e.evidence->ci95_delta_pct)[1]) + "] %",
                 std::string("paired delta % (15 pairs)"), std::string("0 of 5 splits"),
                 std::string("Sample verdict: LICENSE (rule 5)"), std::string("| predicted | 45.73 |"),
                 std::string("memory-budget"), std::string("the wins entry"), r.provenance.study_sha256,
                 std::string("kwb report demo.json --format md"), std::string("license_pct")})
            QVERIFY2(has(md, fact), fact.c_str());
        // Charts: distributions, delta, lanes (the demo recorded cpu_util and rss), each referenced.
        QCOMPARE(charts.size(), std::size_t(3));
        for (const auto& c : charts)
            QVERIFY2(has(md, "](" + c.name + ")"), c.name.c_str());
        if (raster_available())
            QVERIFY(charts.front().bytes.rfind("\x89PNG", 0) == 0);
    }

    void kill_report_is_the_errors_entry()
    {
        const Report r = report_from_file(kKill, "");
        std::vector<Attachment> charts;
        const std::string md = render_markdown(r, "kill", charts);
        QVERIFY(has(md, "**Verdict: KILL**"));
        QVERIFY(has(md, "Attempt ledger: the errors entry"));
        QVERIFY(has(md, "Differs in block: 128 -> 16"));
        QVERIFY(r.experiments.front().evidence->delta_pct < 0);
        QVERIFY(has(md, num(r.experiments.front().evidence->delta_pct)));
    }

    void bimodal_report_gives_the_modes()
    {
        const Report r = report_from_file(kBimodal, "");
        std::vector<Attachment> charts;
        const std::string md = render_markdown(r, "b", charts);
        QVERIFY(has(md, "**Verdict: INCONCLUSIVE**"));
        for (const auto& a : r.experiments.front().arms)
            if (a.bimodality.bimodal.value_or(false))
                for (const auto& m : a.bimodality.modes)
                    QVERIFY2(has(md, num(100 * m.share) + " % of runs at " + num(m.mean)), a.name.c_str());
        const auto j = render_json(r);
        bool modes = false;
        for (const auto& a : j.at("experiments")[0].at("arms"))
            modes = modes || (a.at("modes").is_array() && a.at("modes").size() == 2);
        QVERIFY(modes);
    }

    void html_is_well_formed_and_self_contained()
    {
        for (const auto& path : {kDemo, kKill, kBimodal}) {
            const std::string html = render_html(report_from_file(path, ""));
            // Past the doctype, the document is XML: every tag closed, every entity escaped.
            const auto start = html.find("<html");
            QXmlStreamReader xml(QByteArray::fromStdString(html.substr(start)));
            int svgs = 0;
            std::set<QString> tags;
            while (!xml.atEnd()) {
                if (xml.readNext() == QXmlStreamReader::StartElement) {
                    tags.insert(xml.name().toString());
                    svgs += xml.name() == QStringLiteral("svg");
                    for (const auto& a : xml.attributes()) {
                        // Nothing may be fetched: no src or href at all, no url() but fragment ones.
                        QVERIFY2(a.name() != QStringLiteral("src") && a.name() != QStringLiteral("href"),
                            qPrintable(a.value().toString()));
                        QVERIFY(!a.value().contains(QStringLiteral("url(")));
                    }
                }
            }
            QVERIFY2(
                !xml.hasError(), qPrintable(xml.errorString() + QStringLiteral(" at line %1").arg(xml.lineNumber())));
            QVERIFY(svgs >= 2);
            QVERIFY(!tags.count(QStringLiteral("script")) && !tags.count(QStringLiteral("link"))
                && !tags.count(QStringLiteral("img")) && !tags.count(QStringLiteral("iframe")));
            QVERIFY(!has(html, "@import") && !has(html, "url("));
        }
    }

    void json_follows_its_documented_schema()
    {
        std::ifstream in(KWB_SOURCE_DIR "/docs/report-schema.json");
        const auto schema = nlohmann::json::parse(in);
        for (const auto& path : {kDemo, kKill, kBimodal}) {
            const auto j = render_json(report_from_file(path, ""));
            std::vector<std::string> problems;
            kwbtest::check_schema(schema, j, "$", problems);
            QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().c_str());
            QCOMPARE(j.at("report_schema_version").get<int>(), kReportJsonSchemaVersion);
        }
        // The checker itself can fail.
        auto broken = render_json(report_from_file(kDemo, ""));
        broken["experiments"][0]["arms"][0].erase("throttled");
        broken["verdict"] = "MAYBE";
        std::vector<std::string> problems;
        kwbtest::check_schema(schema, broken, "$", problems);
        QCOMPARE(problems.size(), std::size_t(2));
    }

    // Why it is faster: a recorded H200 study with CUPTI lanes (Triton vs torch.mm as worker arms)
    // gets every lane per arm, with its CI and noise call, in the JSON and in every document format.
    void metric_diff_in_json_and_documents()
    {
        const std::string path
            = KWB_SOURCE_DIR "/bench/results/2026-12-02-h200-worker-arms/studies/triton-vs-torch.json";
        const Report r = report_from_file(path, "");
        const auto& e = r.experiments.front();
        QVERIFY(e.metric_diff);
        const auto j = render_json(r);
        std::ifstream in(KWB_SOURCE_DIR "/docs/report-schema.json");
        std::vector<std::string> problems;
        kwbtest::check_schema(nlohmann::json::parse(in), j, "$", problems);
        QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().c_str());
        const auto& m = j.at("experiments")[0].at("metric_diff");
        auto row = [&](const std::string& name) {
            return std::find_if(m.at("rows").begin(), m.at("rows").end(),
                [&](const nlohmann::json& x) { return x.at("metric") == name; });
        };
        const auto occupancy = row("occupancy");
        QVERIFY(occupancy != m.at("rows").end());
        QVERIFY(occupancy->at("beyond_noise").get<bool>());
        QVERIFY(occupancy->at("baseline").at("repetitions").get<int>() >= 3);
        QCOMPARE(occupancy->at("baseline").at("ci95").size(), std::size_t(2));
        QVERIFY(has(m.at("summary").get<std::string>(), "occupancy"));
        // The study recorded l2_pct, since retired for disagreeing with ncu: not evidence.
        QVERIFY(row("l2_pct") == m.at("rows").end());
        QVERIFY(!has(m.at("summary").get<std::string>(), "l2_pct"));
        std::vector<Attachment> charts;
        const std::string md = render_markdown(r, "triton", charts);
        QVERIFY(has(md, "Metrics by arm"));
        QVERIFY(has(md, "| occupancy | % |"));
        QVERIFY(!has(md, "| l2_pct |"));
        QVERIFY(has(md, "beyond"));
        // A study without lanes on the repetitions' clock says nothing rather than a wrong diff.
        QVERIFY(render_json(report_from_file(kDemo, "")).at("experiments")[0].at("metric_diff").is_null());
    }

    // The roofline of the recorded H200 decode A/B (simt -> mma, batch 64, 8k), recorded before
    // the workload declared its FLOPs: in the JSON (schema-checked) with both points at the rule's
    // coordinates, and in Markdown as a table and a chart beside the others.
    void roofline_in_json_and_documents()
    {
        const std::string path = KWB_SOURCE_DIR "/bench/results/2026-12-02-h200-evidence/evidence/decode-impl.json";
        const Report r = report_from_file(path, "");
        const auto& e = r.experiments.front();
        QVERIFY(e.roofline && e.roofline->has_arrow());
        const auto j = render_json(r);
        std::ifstream in(KWB_SOURCE_DIR "/docs/report-schema.json");
        std::vector<std::string> problems;
        kwbtest::check_schema(nlohmann::json::parse(in), j, "$", problems);
        QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().c_str());
        const auto& rl = j.at("experiments")[0].at("roofline");
        QCOMPARE(rl.at("device").get<std::string>(), std::string("NVIDIA H200"));
        QCOMPARE(rl.at("roofs").at("dram_gbs").at("what").get<std::string>(), std::string("read-only ceiling"));
        QVERIFY(rl.at("roofs").at("l2_gbs").at("value").get<double>() > 8000);
        QVERIFY(rl.at("arrow").get<bool>());
        QCOMPARE(rl.at("arms").size(), std::size_t(2));
        for (std::size_t i = 0; i < 2; ++i) {
            const auto& a = rl.at("arms")[i];
            const auto& p = *e.roofline->arms[i].point;
            QCOMPARE(a.at("point").at("intensity").get<double>(), p.intensity); // 4 FLOP/B, derived
            QCOMPARE(a.at("point").at("tflops").get<double>(), p.tflops);
            QCOMPARE(a.at("bound").get<std::string>(), std::string("memory"));
            QVERIFY(a.at("fraction_of_roof").get<double>() > 0.5);
            QVERIFY(a.at("reason").is_null());
            QCOMPARE(a.at("measured_dram").at("intensity").get<double>(),
                *e.roofline->arms[i].measured_dram_intensity); // the CUPTI lanes' DRAM traffic
            QVERIFY(has(a.at("derived").get<std::string>(), "recorded before attention_decode declared them"));
        }
        QCOMPARE(rl.at("arms")[0].at("name").get<std::string>(), std::string("baseline"));
        std::vector<Attachment> charts;
        const std::string md = render_markdown(r, "decode", charts);
        QVERIFY(has(md, "### Roofline"));
        QVERIFY(has(md, "| DRAM roof |"));
        QVERIFY(has(md, fmt::format("| baseline | FLOPs derived from its parameters | {} (", num(4))));
        QVERIFY(has(md, "| memory |"));
        QVERIFY(has(md, "on the measured DRAM traffic"));
        QVERIFY(std::any_of(charts.begin(), charts.end(), [](const Attachment& a) { return has(a.name, "roofline"); }));
        // HTML carries the chart inline, and stays well-formed with it.
        const std::string html = render_html(r);
        QVERIFY(has(html, "Roofline: NVIDIA H200"));
        QXmlStreamReader xml(QByteArray::fromStdString(html.substr(html.find("<html"))));
        while (!xml.atEnd())
            xml.readNext();
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        const std::string svg = roofline_svg(e);
        QVERIFY(has(svg, "DRAM 4.38 TB/s (read-only ceiling)"));
        QVERIFY(has(svg, "L2 8.01 TB/s"));
        QVERIFY(has(svg, "ridge 226 FLOP/B"));
        // A study whose workload declares no FLOPs keeps the section with its reason, and no chart.
        const Report demo = report_from_file(kDemo, "");
        const auto& d = demo.experiments.front();
        QVERIFY(d.roofline && !d.roofline->has_arrow());
        QVERIFY(roofline_svg(d).empty());
        const std::string demo_md = render_markdown(demo, "demo", charts);
        QVERIFY(has(demo_md, "### Roofline"));
        QVERIFY(has(demo_md, "no point: the workload declares no"));
    }

    void formats_agree_on_the_numbers()
    {
        // Every number of the statistics table appears in Markdown, HTML and JSON alike.
        const Report r = report_from_file(kKill, "");
        std::vector<Attachment> charts;
        const std::string md = render_markdown(r, "k", charts);
        const std::string html = render_html(r);
        const auto j = render_json(r);
        for (std::size_t i = 0; i < 2; ++i) {
            const auto& s = *r.experiments.front().arms[i].summary;
            for (double x : {s.mean, s.median, s.p50, s.p90, s.p99, s.min, s.max, *s.stddev, *s.cv_pct}) {
                QVERIFY(has(md, "| " + num(x) + " |"));
                QVERIFY(has(html, ">" + num(x) + "<"));
            }
            QCOMPARE(j.at("experiments")[0].at("arms")[i].at("mean").get<double>(), s.mean);
        }
    }

    void pdf_renders_where_built()
    {
        if (!raster_available())
            QSKIP(raster_unavailable_reason().c_str());
        const std::string pdf = render_pdf(report_from_file(kDemo, ""));
        QVERIFY(pdf.rfind("%PDF-", 0) == 0);
        QVERIFY(pdf.size() > 20000); // text of several pages and three charts
    }

    // The A/A section: a study with an A/A arm (the KILL study's baseline run again, 0.1% off) and a
    // private history of 1 false alarm in 5 A/A runs on its device, in every format alike.
    // 1 in 5: Clopper-Pearson 95% CI 0.505-71.64% (tests/data/stats/clopper_pearson_cases.json, scipy).
    // The measured controls say whether the arms ran on the same device buffers, and only where the
    // run recorded it.
    void shared_buffers_are_a_measured_control()
    {
        Study s = load_study(kKill);
        const auto row = [&](std::optional<bool> shared) -> std::optional<ControlRow> {
            s.experiments.front().shared_buffers = shared;
            const Report r = build_report(s, {});
            for (const auto& c : r.experiments.front().controls)
                if (c.name == "same device buffers")
                    return c;
            return std::nullopt;
        };
        QVERIFY(!row(std::nullopt));
        const auto shared = row(true), separate = row(false);
        QVERIFY(shared && shared->checked && has(shared->measured, "one set of device buffers"));
        QVERIFY(separate && !separate->checked && has(separate->measured, "of its own"));
    }

    void aa_section_in_every_format()
    {
        Study s = load_study(kKill);
        Experiment& e = s.experiments.front();
        e.device = {"cpu", "Test CPU X", "", std::nullopt, ""};
        add_aa_arm(e);
        const std::string base = e.arms[0].name, aa = e.arms[2].name;
        std::vector<Sample> again;
        for (const auto& x : e.samples)
            if (x.arm == base && !x.warmup && !x.discarded && x.metrics.count(e.metric)) {
                Sample y = x;
                y.arm = aa;
                y.position += 100000;
                y.metrics[e.metric] *= 1.001;
                again.push_back(y);
            }
        e.samples.insert(e.samples.end(), again.begin(), again.end());
        e.aa_verdict = judge_aa_arm(e, make_profile(e.profile, s.target.direction));
        QVERIFY(e.aa_verdict);
        const SampleVerdict v = *e.aa_verdict;

        Report r = build_report(s, {});
        QVERIFY(has_aa_arm(r));
        std::vector<AaHistoryEntry> history;
        for (const char* word : {"NOISE", "NOISE", "LICENSE", "NOISE", "NOISE"})
            history.push_back({"2026-12-01T00:00:00Z", e.device, "s.json", "ab-1", 6, word, 0.1});
        history.push_back(
            {"2026-12-01T00:00:00Z", {"cuda", "NVIDIA H200", "GPU-1", 0, ""}, "g.json", "ab-1", 6, "KILL", -9.0});
        attach_aa_history(r, history, "/tmp/state/kernel-workbench/aa-history.jsonl");
        const std::string line = "A/A history on Test CPU X: 1 false alarm in 5 A/A runs (20%, 95% CI 0.505-71.64%)";

        std::vector<Attachment> charts;
        const std::string md = render_markdown(r, "k", charts);
        QVERIFY(has(md, "## A/A: false alarms at the A/B's n"));
        const std::string row = fmt::format("| {} | {} | {} | {} | {} % | [{}, {}] % | {} |", e.id, aa,
            std::min(v.n_baseline(), v.n_treatment()), to_string(v.word), num(*v.delta_pct),
            num((*v.ci95_delta_pct)[0]), num((*v.ci95_delta_pct)[1]), aa_false_alarm(v) ? "yes" : "no");
        QVERIFY2(has(md, row), row.c_str());
        QVERIFY2(has(md, line), md.substr(md.find("## A/A"), 1500).c_str());
        QVERIFY(!has(md, "NVIDIA H200")); // only the devices this study ran on
        QVERIFY(!has(md, "This study has no A/A arm"));

        const std::string html = render_html(r);
        QVERIFY(has(html, line));
        QVERIFY(has(html, ">" + std::string(to_string(v.word)) + "<"));

        const auto j = render_json(r);
        std::ifstream in(KWB_SOURCE_DIR "/docs/report-schema.json");
        std::vector<std::string> problems;
        kwbtest::check_schema(nlohmann::json::parse(in), j, "$", problems);
        QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().c_str());
        const auto& a = j.at("aa");
        QCOMPARE(a.at("has_aa_arm").get<bool>(), true);
        QCOMPARE(a.at("experiments").size(), std::size_t(1));
        const auto& x = a.at("experiments")[0];
        QCOMPARE(x.at("arm").get<std::string>(), aa);
        QVERIFY(x.at("grid").is_null());
        QCOMPARE(x.at("n").get<std::size_t>(), std::min(v.n_baseline(), v.n_treatment()));
        QCOMPARE(x.at("verdict").get<std::string>(), std::string(to_string(v.word)));
        QCOMPARE(x.at("delta_pct").get<double>(), *v.delta_pct);
        QCOMPARE(x.at("ci95_delta_pct")[1].get<double>(), (*v.ci95_delta_pct)[1]);
        QCOMPARE(x.at("summary").get<std::string>(), aa_summary(v));
        const auto& h = a.at("history");
        QCOMPARE(h.at("attached").get<bool>(), true);
        QCOMPARE(h.at("devices").size(), std::size_t(1));
        QCOMPARE(h.at("devices")[0].at("runs").get<int>(), 5);
        QCOMPARE(h.at("devices")[0].at("false_alarms").get<int>(), 1);
        QVERIFY(std::abs(h.at("devices")[0].at("ci95")[0].get<double>() - 0.005050763379468061) < 1e-9);
        QVERIFY(std::abs(h.at("devices")[0].at("ci95")[1].get<double>() - 0.7164179361180895) < 1e-9);
        QCOMPARE(h.at("devices")[0].at("summary").get<std::string>(), line);

        if (raster_available()) // the PDF walks the same blocks
            QVERIFY(render_pdf(r).rfind("%PDF-", 0) == 0);
    }

    void no_aa_arm_is_said_plainly()
    {
        Report r = report_from_file(kDemo, "");
        QVERIFY(!has_aa_arm(r));
        std::vector<Attachment> charts;
        std::string md = render_markdown(r, "d", charts);
        QVERIFY(has(md, "This study has no A/A arm"));
        QVERIFY(has(md, "The per-device A/A history was not attached to this report."));
        auto j = render_json(r);
        QCOMPARE(j.at("aa").at("has_aa_arm").get<bool>(), false);
        QVERIFY(j.at("aa").at("experiments").empty());
        QCOMPARE(j.at("aa").at("history").at("attached").get<bool>(), false);
        // Attached, with no A/A run on the study's device: said so, by device.
        Study s = load_study(kDemo);
        s.experiments.front().device = {"cpu", "Test CPU X", "", std::nullopt, ""};
        r = build_report(s, {});
        attach_aa_history(r, {}, "empty");
        md = render_markdown(r, "d", charts);
        QVERIFY2(has(md, "A/A history on Test CPU X: no A/A run recorded yet"), md.c_str());
        j = render_json(r);
        QCOMPARE(j.at("aa").at("history").at("attached").get<bool>(), true);
        QVERIFY(j.at("aa").at("history").at("devices").empty());
    }

    // External-command arms show their command lines and the engine's diff of their settings, not
    // an empty parameter diff.
    void command_arms_show_their_commands()
    {
        Study s = load_study(kDemo);
        Experiment& e = s.experiments.front();
        e.arms[0].command = CommandSpec {};
        e.arms[0].command->cmd = "./bench --tile=64";
        e.arms[1].command = CommandSpec {};
        e.arms[1].command->cmd = "./bench --tile=128";
        const Report r = build_report(s, {});
        QVERIFY(r.experiments.front().command_arms);
        std::vector<Attachment> charts;
        const std::string md = render_markdown(r, "c", charts);
        QVERIFY2(has(md, "`./bench --tile=64`"), md.c_str());
        QVERIFY(has(md, "Differs in command: "));
        QVERIFY(has(md, "cannot count the variables inside a command line"));
        QVERIFY(!has(md, "do not differ in any parameter"));
    }

    void delta_labels_stay_clear()
    {
        // The delta chart's labels (each on its white box) stay inside the chart and off each
        // other, and, where the chart has room, off the kill and license lines: the noise label
        // used to run over them (demo, kill).
        struct Box {
            double x, y, w, h;
        };
        const auto attr = [](const std::string& tag, const char* name) {
            const auto at = tag.find(std::string(" ") + name + "=\"");
            return std::stod(tag.substr(at + std::strlen(name) + 3));
        };
        for (const std::string& path : {kDemo, kKill, kBimodal, kGrid}) {
            for (const auto& e : report_from_file(path, "").experiments) {
                const std::string svg = delta_svg(e);
                if (svg.empty())
                    continue;
                const auto [W, H] = svg_size(svg);
                std::vector<Box> boxes;
                std::vector<double> lines;
                std::istringstream in(svg);
                for (std::string tag; std::getline(in, tag);) {
                    if (has(tag, "<rect") && has(tag, "fill=\"#ffffff\" fill-opacity=\"0.82\""))
                        boxes.push_back({attr(tag, "x"), attr(tag, "y"), attr(tag, "width"), attr(tag, "height")});
                    if (has(tag, "stroke-dasharray=\"5,3\"")) // kill and license, not the grid
                        lines.push_back(attr(tag, "x1"));
                }
                const std::string where = path + " " + e.id;
                QVERIFY2(boxes.size() >= 2, where.c_str()); // the noise label and the delta's
                for (std::size_t i = 0; i < boxes.size(); ++i) {
                    const Box& b = boxes[i];
                    QVERIFY2(b.x >= 0 && b.x + b.w <= W && b.y >= 0 && b.y + b.h <= H, where.c_str());
                    for (std::size_t j = i + 1; j < boxes.size(); ++j) {
                        const Box& o = boxes[j];
                        const bool apart = b.x + b.w <= o.x || o.x + o.w <= b.x || b.y + b.h <= o.y || o.y + o.h <= b.y;
                        QVERIFY2(apart, where.c_str());
                    }
                    if (path == kDemo || path == kKill)
                        for (double x : lines)
                            QVERIFY2(x < b.x || x > b.x + b.w, (where + ": a threshold line crosses a label").c_str());
                }
            }
        }
    }

    void nearly_flat_lanes_get_bounded_ticks()
    {
        // A CI run's other_cpu lane read 75.6097560975523 and 75.60975609755232: the old tick loop's
        // step (1e-15) was below the spacing of doubles at 75, `t += step` never advanced, and the
        // report grew a vector until the allocator gave up.
        const double lo = 75.6097560975523, hi = 75.60975609755232;
        const Scale flat = Scale::nice(lo - 2e-15, hi + 2e-15, 100, 0);
        const auto ticks = flat.ticks();
        QVERIFY(ticks.size() >= 2 && ticks.size() <= 8);
        QVERIFY(ticks.front() >= 74.6 && ticks.back() <= 76.7);
        // Ranges the spacing of doubles cannot hold at all still end, with few ticks.
        const Scale coarse {1e17, 1e17 + 16, 0, 1};
        QVERIFY(coarse.ticks().size() <= 64);
        const Scale endless {0, std::numeric_limits<double>::infinity(), 0, 1};
        QVERIFY(endless.ticks().empty());

        ExperimentReport e;
        e.lanes.push_back({"other_cpu", "%", {0.0, 0.5}, {hi, lo}});
        const std::string svg = lanes_svg(e);
        QVERIFY(has(svg, "other_cpu"));
    }

    // The range rule where lanes are shown (study/lane_range.h): a percentage lane is drawn on
    // 0-100, never above it, and its dropped readings are named in its title and counted in the
    // JSON, both those dropped on entry and those a study recorded before the rule still holds.
    void lanes_show_their_dropped_readings()
    {
        Study s = load_study(kKill);
        auto& lanes = s.experiments.front().lanes;
        lanes.clear();
        SamplerLane sm {"sm_pct", "%", {0.0, 0.001, 0.002, 0.003}, {50.0, 533.0, 100.3, 60.0}};
        sm.dropped_out_of_range = 4; // dropped as they entered
        lanes.push_back(sm);
        lanes.push_back({"dram_read", "GB/s", {0.0, 0.001}, {4400.0, 4500.0}});
        const Report r = build_report(s, {});
        const std::string svg = lanes_svg(r.experiments.front());
        QVERIFY(has(svg, "sm_pct (%) - 5 readings out of range dropped"));
        QVERIFY(!has(svg, "dram_read (GB/s) -"));
        QVERIFY(has(svg, ">100<") && !has(svg, ">200<") && !has(svg, ">500<")); // a 0-100 axis
        const auto j = render_json(r).at("experiments")[0].at("lanes");
        QCOMPARE(j[0].at("dropped_out_of_range").get<int>(), 5);
        QCOMPARE(j[0].at("n").get<int>(), 3);
        QCOMPARE(j[1].at("dropped_out_of_range").get<int>(), 0);
        QCOMPARE(j[1].at("n").get<int>(), 2);
    }

    void a_grid_is_drawn_once()
    {
        // One heat map per grid group, the window's grid page: the cell experiments draw none of
        // their own, and the JSON has no per-experiment cells (report schema 2).
        const Report r = report_from_file(kGrid, "");
        for (const auto& e : r.experiments)
            for (const auto& c : charts_of(e)) {
                const std::string kind = c.name.substr(e.id.size());
                QVERIFY2(kind == "-distributions" || kind == "-delta" || kind == "-lanes" || kind == "-roofline",
                    c.name.c_str());
            }
        std::vector<Attachment> charts;
        const std::string md = render_markdown(r, "g", charts);
        QCOMPARE(
            std::count_if(charts.begin(), charts.end(), [](const Attachment& a) { return has(a.name, "heatmap"); }),
            std::ptrdiff_t(1));
        const std::string html = render_html(r);
        std::size_t maps = 0;
        for (auto at = html.find("per cell against the baseline cell"); at != std::string::npos;
             at = html.find("per cell against the baseline cell", at + 1))
            ++maps;
        QCOMPARE(maps, std::size_t(1)); // the heat map's title, once
        const auto j = render_json(r);
        QCOMPARE(j.at("report_schema_version").get<int>(), 2);
        for (const auto& e : j.at("experiments"))
            QVERIFY(!e.contains("cells"));
    }

    void grid_tiles_read_like_the_window()
    {
        // The baseline cell top left, each tile's lines as the window's heat map writes them, and
        // where a spread-out cell ran on its last line.
        Study s = load_study(kGrid);
        Experiment* cell = nullptr;
        for (auto& e : s.experiments)
            if (e.cell == std::vector<int> {1, 1})
                cell = &e;
        QVERIFY(cell && cell->verdict);
        cell->placement = Placement {1, "node07", "42_3"};
        cell->device.kind = "cuda";
        cell->device.index = 1;
        const Report r = build_report(s, {});
        const GridGroupReport& g = r.grids.front();
        const auto it
            = std::find_if(g.cells.begin(), g.cells.end(), [](const GridGroupCell& c) { return c.label == "r1c1"; });
        QCOMPARE(it->ran_on, std::string("GPU 1 on node07"));
        const std::string svg = grid_heatmap_svg(g);
        QVERIFY(has(svg, ">GPU 1 on node07<"));
        QVERIFY(has(svg, ">baseline cell<") && has(svg, ">Δ 0 (reference)<"));
        // The baseline row (level 0) is drawn above row 1, as in the window.
        const auto y_of = [&](const std::string& text) {
            const auto at = svg.find(">" + text + "<");
            const auto tag = svg.rfind("<text", at);
            const auto y = svg.find("y=\"", tag);
            return std::stod(svg.substr(y + 3));
        };
        QVERIFY(y_of("baseline cell") < y_of("GPU 1 on node07"));
        QCOMPARE(render_json(r).at("grids")[0].at("cells")[3].at("ran_on").get<std::string>(), it->ran_on);
    }

    void grid_group_gets_its_heat_map_in_every_format()
    {
        // A real 2 x 2 grid (`kwb new --grid`, `kwb run`): three cell experiments against the
        // baseline cell, each with its stored verdict, drawn as one heat map.
        const Study s = load_study(kGrid);
        QCOMPARE(s.grids.size(), std::size_t(1));
        const Report r = report_from_file(kGrid, "");
        QCOMPARE(r.grids.size(), std::size_t(1));
        const GridGroupReport& g = r.grids.front();
        QCOMPARE(g.cells.size(), std::size_t(4));
        QVERIFY(g.cells[0].baseline);
        int judged = 0;
        for (const auto& c : g.cells) {
            if (c.baseline)
                continue;
            const Experiment* e = nullptr;
            for (const auto& x : s.experiments)
                if (x.id == c.experiment_id)
                    e = &x;
            QVERIFY2(e, c.label.c_str());
            QCOMPARE(e->cell, (std::vector<int> {c.row, c.col}));
            QVERIFY(e->verdict && c.delta_pct);
            QCOMPARE(*c.delta_pct, *e->verdict->delta_pct); // read as stored, never recomputed
            QCOMPARE(c.verdict, std::string(to_string(e->final_verdict->word)));
            ++judged;
        }
        QCOMPARE(judged, 3);

        const std::string svg = grid_heatmap_svg(g);
        QVERIFY(has(svg, "<svg") && has(svg, ">" + g.row_variable + "<") && has(svg, ">" + g.col_variable + "<"));
        for (const auto& c : g.cells)
            if (c.delta_pct)
                QVERIFY2(
                    has(svg, fmt::format("Δ {}{:.1f} %", *c.delta_pct > 0 ? "+" : "", *c.delta_pct)), c.label.c_str());
        std::vector<Attachment> charts;
        const std::string md = render_markdown(r, "g", charts);
        QVERIFY(has(md, "## Grid " + g.id));
        QVERIFY(std::any_of(charts.begin(), charts.end(), [&](const Attachment& a) { return has(a.name, "heatmap"); }));
        for (const auto& c : g.cells)
            if (c.delta_pct)
                QVERIFY(has(md, "| " + c.label + " |") && has(md, num(*c.delta_pct)));
        const std::string html = render_html(r);
        QVERIFY(has(html, "Grid " + g.id));
        const auto j = render_json(r);
        QCOMPARE(j.at("grids").size(), std::size_t(1));
        QCOMPARE(j.at("grids")[0].at("cells").size(), std::size_t(4));
        std::ifstream in(KWB_SOURCE_DIR "/docs/report-schema.json");
        std::vector<std::string> problems;
        kwbtest::check_schema(nlohmann::json::parse(in), j, "$", problems);
        QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().c_str());
    }

    void trace_has_a_track_per_arm_and_lane()
    {
        const Study s = load_study(kDemo);
        const auto t = trace_of(s);
        const auto& ev = t.at("traceEvents");
        std::set<std::string> threads, counters;
        int slices = 0, warmups = 0;
        for (const auto& e : ev) {
            const std::string ph = e.at("ph");
            QVERIFY(e.contains("pid"));
            if (ph == "M" && e.at("name") == "thread_name")
                threads.insert(e.at("args").at("name").get<std::string>());
            if (ph == "X") {
                ++slices;
                warmups += e.at("cat") == "warmup";
                QVERIFY(e.at("ts").is_number() && e.at("dur").get<double>() > 0);
            }
            if (ph == "C")
                counters.insert(e.at("name").get<std::string>());
        }
        QCOMPARE(threads, (std::set<std::string> {"baseline", "treatment"}));
        QCOMPARE(slices, static_cast<int>(s.experiments.front().samples.size()));
        QCOMPARE(warmups, 2);
        QCOMPARE(counters.size(), s.experiments.front().lanes.size());
        QCOMPARE(*iso8601_to_us("1970-01-01T00:00:01.5Z"), 1.5e6);
        QVERIFY(!iso8601_to_us("yesterday"));
    }
};

QTEST_APPLESS_MAIN(TestReport)
#include "tst_report.moc"
