// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb report` and `kwb trace` as a CI pipeline drives them (spec/cli.md): every format written
// from the committed studies, --fail-on exiting 3 after writing, bad input exiting 2, the trace
// a valid trace-event document, and the PDF rendered to PNG pages by poppler where it is installed.
#include "kwb_process.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>
#include <set>

using kwbtest::kwb;
using kwbtest::read_all;

namespace {
const QString kDemo = QStringLiteral(KWB_SOURCE_DIR "/resources/studies/demo.json");
const QString kKill = QStringLiteral(KWB_SOURCE_DIR "/tests/data/studies/kill.json");
const QString kBimodal = QStringLiteral(KWB_SOURCE_DIR "/tests/data/studies/bimodal.json");
} // namespace

class TestKwbReport : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    QString out(const QString& name) { return dir_.filePath(name); }

private slots:
    void every_format_writes()
    {
        const auto md = kwb({QStringLiteral("report"), kDemo, QStringLiteral("--format"), QStringLiteral("md"),
            QStringLiteral("--out"), out(QStringLiteral("demo.md"))});
        QCOMPARE(md.exit_code, 0);
        const QByteArray text = read_all(out(QStringLiteral("demo.md")));
        QVERIFY(text.contains("**Verdict: LICENSE**"));
        // The charts lie beside it, named in it.
        const auto charts = QDir(dir_.path()).entryList({QStringLiteral("demo-*")});
        QCOMPARE(charts.size(), 3);
        for (const auto& c : charts)
            QVERIFY2(text.contains(QByteArray(QByteArray("](") + c.toUtf8() + QByteArray(")"))), qPrintable(c));

        const auto html = kwb({QStringLiteral("report"), kKill, QStringLiteral("--format"), QStringLiteral("html")});
        QCOMPARE(html.exit_code, 0);
        QVERIFY(html.out.startsWith("<!DOCTYPE html>"));
        QVERIFY(html.out.contains(">KILL<"));

        const auto json = kwb({QStringLiteral("report"), kBimodal, QStringLiteral("--format"), QStringLiteral("json"),
            QStringLiteral("--out"), out(QStringLiteral("b.json"))});
        QCOMPARE(json.exit_code, 0);
        const auto j = nlohmann::json::parse(read_all(out(QStringLiteral("b.json"))).toStdString());
        QCOMPARE(j.at("verdict").get<std::string>(), std::string("INCONCLUSIVE"));
        QVERIFY(j.at("provenance").at("command_line").get<std::string>().find("--format json") != std::string::npos);
    }

    void pdf_pages_render()
    {
        const auto pdf = kwb({QStringLiteral("report"), kDemo, QStringLiteral("--format"), QStringLiteral("pdf"),
            QStringLiteral("--out"), out(QStringLiteral("demo.pdf"))});
        if (pdf.exit_code == 1 && pdf.err.contains("librsvg"))
            QSKIP("this kwb was built without librsvg/cairo");
        QCOMPARE(pdf.exit_code, 0);
        QVERIFY(read_all(out(QStringLiteral("demo.pdf"))).startsWith("%PDF-"));
        const QString pdftoppm = QStandardPaths::findExecutable(QStringLiteral("pdftoppm"));
        if (pdftoppm.isEmpty())
            QSKIP("pdftoppm (poppler-utils) is not installed");
        QProcess p;
        p.start(pdftoppm,
            {QStringLiteral("-r"), QStringLiteral("50"), QStringLiteral("-png"), out(QStringLiteral("demo.pdf")),
                out(QStringLiteral("page"))});
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        const auto pages = QDir(dir_.path()).entryList({QStringLiteral("page-*.png")});
        QVERIFY2(pages.size() >= 3, qPrintable(QString::number(pages.size())));
        for (const auto& page : pages)
            QVERIFY(read_all(dir_.filePath(page)).startsWith("\x89PNG"));
    }

    void fail_on_gates_after_writing()
    {
        struct Case {
            QString study;
            QString fail_on;
            int code;
        };
        const Case cases[] = {{kDemo, QStringLiteral("kill,noise,inconclusive"), 0}, {kKill, QStringLiteral("kill"), 3},
            {kKill, QStringLiteral("noise,inconclusive"), 0}, {kBimodal, QStringLiteral("kill,inconclusive"), 3},
            {kBimodal, QStringLiteral("NOISE"), 0}};
        int i = 0;
        for (const auto& c : cases) {
            const QString file = out(QStringLiteral("gate%1.json").arg(i++));
            const auto r = kwb({QStringLiteral("report"), c.study, QStringLiteral("--format"), QStringLiteral("json"),
                QStringLiteral("--out"), file, QStringLiteral("--fail-on"), c.fail_on});
            QVERIFY2(r.exit_code == c.code,
                qPrintable(
                    c.study + QLatin1Char(' ') + c.fail_on + QStringLiteral(": ") + QString::number(r.exit_code)));
            QVERIFY2(QFileInfo::exists(file), "the report is written before the gate");
        }
    }

    void bad_input_is_exit_2()
    {
        const QStringList bad[]
            = {{QStringLiteral("report"), kDemo, QStringLiteral("--format"), QStringLiteral("docx")},
                {QStringLiteral("report"), kDemo, QStringLiteral("--format"), QStringLiteral("md"),
                    QStringLiteral("--fail-on"), QStringLiteral("kil")},
                {QStringLiteral("report"), out(QStringLiteral("missing.json")), QStringLiteral("--format"),
                    QStringLiteral("md")},
                {QStringLiteral("trace"), out(QStringLiteral("missing.json")), QStringLiteral("--out"),
                    out(QStringLiteral("t.json"))}};
        for (const auto& args : bad) {
            const auto r = kwb(args);
            QVERIFY2(r.exit_code == 2, qPrintable(args.join(QLatin1Char(' '))));
            QCOMPARE(r.err.count('\n'), 1);
        }
    }

    void trace_is_valid_trace_event_json()
    {
        const auto r
            = kwb({QStringLiteral("trace"), kDemo, QStringLiteral("--out"), out(QStringLiteral("trace.json"))});
        QCOMPARE(r.exit_code, 0);
        const auto t = nlohmann::json::parse(read_all(out(QStringLiteral("trace.json"))).toStdString());
        QVERIFY(t.at("traceEvents").is_array());
        std::set<std::string> tracks, counters;
        for (const auto& e : t.at("traceEvents")) {
            // The fields every trace-event viewer needs.
            QVERIFY(e.at("name").is_string() && e.at("ph").is_string() && e.at("pid").is_number());
            const std::string ph = e.at("ph");
            QVERIFY(ph == "M" || ph == "X" || ph == "C");
            if (ph != "M")
                QVERIFY(e.at("ts").is_number());
            if (ph == "X")
                QVERIFY(e.at("tid").is_number() && e.at("dur").is_number());
            if (ph == "M" && e.at("name") == "thread_name")
                tracks.insert(e.at("args").at("name").get<std::string>());
            if (ph == "C")
                counters.insert(e.at("name").get<std::string>());
        }
        QCOMPARE(tracks, (std::set<std::string> {"baseline", "treatment"}));
        QCOMPARE(counters, (std::set<std::string> {"cpu_util (%)", "rss (MiB)"}));
    }
};

QTEST_GUILESS_MAIN(TestKwbReport)
#include "tst_kwb_report.moc"
