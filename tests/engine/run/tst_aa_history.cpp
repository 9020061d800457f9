// SPDX-License-Identifier: GPL-3.0-or-later
// The per-device A/A history (run/aa_history.h): where it lives, appends, the bound, unreadable
// lines, and the false-alarm rate per device model with its Clopper-Pearson interval.
#include "run/aa_history.h"
#include "stats/clopper_pearson.h"

#include <QTemporaryDir>
#include <QTest>
#include <cstdlib>
#include <fstream>

using namespace kwb;

namespace {

AaHistoryEntry entry(const std::string& model, const std::string& word, int n = 10)
{
    AaHistoryEntry e;
    e.at = "2026-11-30T23:00:00Z";
    e.device = {"cuda", model, "GPU-1", 0, "580"};
    e.study = "s.json";
    e.experiment = "ab-1";
    e.n = n;
    e.word = word;
    e.delta_pct = 0.3;
    return e;
}

} // namespace

class TestAaHistory : public QObject {
    Q_OBJECT
private slots:
    void livesUnderTheXdgStateDirectory()
    {
        const QByteArray oldState = qgetenv("XDG_STATE_HOME"), oldHome = qgetenv("HOME");
        qputenv("XDG_STATE_HOME", "/tmp/state");
        QCOMPARE(aa_history_path().string(), std::string("/tmp/state/kernel-workbench/aa-history.jsonl"));
        qputenv("XDG_STATE_HOME", "relative/ignored");
        qputenv("HOME", "/home/u");
        QCOMPARE(aa_history_path().string(), std::string("/home/u/.local/state/kernel-workbench/aa-history.jsonl"));
        qunsetenv("XDG_STATE_HOME");
        QCOMPARE(aa_history_path().string(), std::string("/home/u/.local/state/kernel-workbench/aa-history.jsonl"));
        qputenv("XDG_STATE_HOME", oldState);
        qputenv("HOME", oldHome);
    }

    void appendsAndReadsBack()
    {
        QTemporaryDir dir;
        const std::filesystem::path path
            = dir.filePath(QStringLiteral("state/kernel-workbench/aa-history.jsonl")).toStdString();
        QVERIFY(read_aa_history(path).empty()); // no file yet: an empty history
        append_aa_history(path, entry("NVIDIA H200", "NOISE"));
        append_aa_history(path, entry("NVIDIA H200", "LICENSE"));
        append_aa_history(path, entry("AMD EPYC", "NOISE", 6));
        const auto h = read_aa_history(path);
        QCOMPARE(h.size(), size_t(3));
        QCOMPARE(h[1].word, std::string("LICENSE"));
        QCOMPARE(h[2].device.model, std::string("AMD EPYC"));
        QCOMPARE(h[2].n, 6);
        QCOMPARE(*h[0].delta_pct, 0.3);
    }

    void keepsItsBound()
    {
        QTemporaryDir dir;
        const std::filesystem::path path = dir.filePath(QStringLiteral("h.jsonl")).toStdString();
        for (int i = 0; i < 7; ++i)
            append_aa_history(path, entry("GPU", i < 4 ? "KILL" : "NOISE", 3 + i), 5);
        const auto h = read_aa_history(path);
        QCOMPARE(h.size(), size_t(5)); // the two oldest went
        QCOMPARE(h.front().n, 5);
        QCOMPARE(h.back().n, 9);
    }

    void skipsUnreadableLines()
    {
        QTemporaryDir dir;
        const std::filesystem::path path = dir.filePath(QStringLiteral("h.jsonl")).toStdString();
        append_aa_history(path, entry("GPU", "NOISE"));
        {
            std::ofstream out(path, std::ios::app);
            out << "not json\n{\"device\": {}, \"n\": 3, \"word\": \"NOISE\"}\n{\"n\": 1}\n";
        }
        append_aa_history(path, entry("GPU", "KILL"));
        int skipped = 0;
        const auto h = read_aa_history(path, &skipped);
        QCOMPARE(h.size(), size_t(2));
        QCOMPARE(skipped, 3);
    }

    void falseAlarmRatePerDevice()
    {
        std::vector<AaHistoryEntry> h;
        for (int i = 0; i < 20; ++i)
            h.push_back(entry("NVIDIA H200", i < 3 ? "INCONCLUSIVE" : "NOISE"));
        h.push_back(entry("NVIDIA A100", "NOISE"));
        const DeviceIdentity h200 {"cuda", "NVIDIA H200", "GPU-other", 1, ""}; // another H200: the same model
        const auto rate = aa_false_alarm_rate(h, h200);
        QVERIFY(rate.has_value());
        QCOMPARE(rate->runs, 20);
        QCOMPARE(rate->false_alarms, 3);
        QCOMPARE(rate->rate, 0.15);
        QVERIFY(rate->ci95 == stats::clopper_pearson(3, 20));
        QVERIFY(!aa_false_alarm_rate(h, DeviceIdentity {"cuda", "NVIDIA H100", "", 0, ""}));
        const auto all = aa_false_alarm_rates(h);
        QCOMPARE(all.size(), size_t(2));
        QCOMPARE(all[1].device, std::string("NVIDIA A100"));
        QCOMPARE(all[1].ci95[0], 0.0);
        const std::string text = describe(*rate);
        QVERIFY2(
            text.starts_with("A/A history on NVIDIA H200: 3 false alarms in 20 A/A runs (15%, 95% CI 3.21-37.89%)"),
            text.c_str());
    }

    void entryComesFromTheAaVerdict()
    {
        Experiment e;
        e.id = "ab-2";
        e.device = {"cpu", "AMD EPYC", "", std::nullopt, ""};
        QVERIFY(!aa_history_entry("s.json", e));
        SampleVerdict v;
        v.word = VerdictWord::Kill;
        v.baseline.n = 8;
        v.treatment.n = 8;
        v.delta_pct = -12.5;
        e.aa_verdict = v;
        const auto h = aa_history_entry("s.json", e);
        QVERIFY(h.has_value());
        QCOMPARE(h->n, 8);
        QCOMPARE(h->word, std::string("KILL"));
        QCOMPARE(h->experiment, std::string("ab-2"));
        QCOMPARE(h->device.model, std::string("AMD EPYC"));
    }
};

QTEST_GUILESS_MAIN(TestAaHistory)
#include "tst_aa_history.moc"
