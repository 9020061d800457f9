// SPDX-License-Identifier: GPL-3.0-or-later
// The speed-of-light guard end to end on the CPU backend (`kwb new && kwb run`, the real binary):
// a bandwidth treatment that skips 99.99% of its work (skip_work_pct, whose check is bypassed)
// is refused with the numbers; the honest baseline is not; without ceilings nothing is refused.
//
// Why no result depends on this machine's speed. The fixture gives the CPU roofs of 500 GB/s
// (DRAM) and 1000 GB/s (cache), each x 1.10. A repetition is 10 iterations of one thread over
// 64 MiB arrays; triad declares 3 x 64 MiB = 201 MB per iteration.
// - Honest arm: one thread streaming 192 MiB (more than any cache it can use alone) reaches tens
//   of GB/s on today's cores, ~100 GB/s on the fastest; the roofs are 5x and 11x above that.
// - Skipping arm: it processes 1/10,000 of the elements (20 kB) but declares all 201 MB, so its
//   rate is 201 MB / (time of 20 kB + the clock's overhead). To look honest it would have to take
//   more than 201 MB / 1100 GB/s = 183 us an iteration: a machine ten thousand times slower than
//   one at 1 GB/s. The declared bytes dwarf the work done by the 10^4 the fault skips, so the
//   fixture's roofs sit between the two arms by orders of magnitude on any machine.
#include "kwb_process.h"

#include <QDir>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace kwbtest;
using namespace Qt::StringLiterals;

namespace {

QJsonObject first_experiment(const QString& path)
{
    return load(path).value(u"experiments").toArray().at(0).toObject();
}

QStringList strings(const QJsonValue& v)
{
    QStringList out;
    for (const auto& s : v.toArray())
        out << s.toString();
    return out;
}

bool any_starts(const QStringList& lines, const QString& prefix)
{
    for (const auto& l : lines)
        if (l.startsWith(prefix))
            return true;
    return false;
}

QJsonObject ceiling(double median)
{
    return {{u"median"_s, median}, {u"n"_s, 1}, {u"min"_s, median}, {u"max"_s, median}, {u"cv_pct"_s, 0},
        {u"unit"_s, u"GB/s"_s}};
}

} // namespace

class TestKwbSpeedOfLight : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString cpu_;

    QString path(const char* name) const { return dir_.filePath(QString::fromLatin1(name)); }
    QString ceilings_file() const { return dir_.filePath(QStringLiteral("data/kernel-workbench/ceilings.json")); }

    void write_fixture()
    {
        QDir(dir_.path()).mkpath(QStringLiteral("data/kernel-workbench"));
        const QJsonObject entry {{u"model"_s, cpu_}, {u"copy_gbs"_s, ceiling(500)}, {u"l2_read_gbs"_s, ceiling(1000)},
            {u"measured_at"_s, u"fixture"_s}};
        write_all(ceilings_file(),
            QJsonDocument(QJsonObject {{u"devices"_s, QJsonObject {{u"cpu:"_s + cpu_, entry}}}}).toJson());
    }

    // A bandwidth study on one thread, 10 iterations a repetition (no calibration: the skipping
    // arm's count would make the honest one run for minutes), the given treatment.
    QString new_study(const char* name, const QString& vary)
    {
        const QString p = path(name);
        const auto made = kwb({u"new"_s, u"--workload"_s, u"bandwidth"_s, u"--backend"_s, u"cpu"_s, u"--param"_s,
            u"size_mb=64"_s, u"--param"_s, u"threads=1"_s, u"--param"_s, u"iterations=10"_s, u"--min-rep-ms"_s, u"0"_s,
            u"--runs"_s, u"5"_s, u"--vary"_s, vary, u"--out"_s, p, u"--force"_s});
        if (made.exit_code != 0)
            qWarning("kwb new failed: %s", made.err.constData());
        return p;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        qputenv("XDG_DATA_HOME", dir_.filePath(QStringLiteral("data")).toUtf8());
        const auto devices = kwb({u"devices"_s, u"--json"_s});
        QCOMPARE(devices.exit_code, 0);
        for (const auto& d : QJsonDocument::fromJson(devices.out).object().value(u"devices").toArray())
            if (d.toObject().value(u"kind").toString() == u"cpu")
                cpu_ = d.toObject().value(u"name").toString();
        QVERIFY(!cpu_.isEmpty());
    }

    void init() { QFile::remove(ceilings_file()); }

    void aSkippingTreatmentIsRefused()
    {
        write_fixture();
        const QString p = new_study("skip.json", u"skip_work_pct=0,99.99"_s);
        const auto r = kwb({u"run"_s, p});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        const auto e = first_experiment(p);
        const auto treatment = e.value(u"arms").toArray().at(1).toObject();
        QVERIFY(treatment.value(u"check").toObject().value(u"compared").toString().startsWith(u"check bypassed"));
        const auto final = e.value(u"final_verdict").toObject();
        const QStringList reasons = strings(final.value(u"reasons"));
        QCOMPARE(final.value(u"verdict").toString(), u"INCONCLUSIVE"_s);
        QVERIFY2(reasons.value(0).startsWith(u"speed-of-light guard: treatment: "), qPrintable(reasons.join(u'\n')));
        QVERIFY2(reasons.value(0).contains(u"invalid, it cannot have done its work"), qPrintable(reasons.value(0)));
        QVERIFY2(reasons.value(0).contains(u"the 1 TB/s L2 read ceiling x 1.10"), qPrintable(reasons.value(0)));
        QVERIFY(!any_starts(reasons, u"speed-of-light guard: baseline"_s));
        QVERIFY(strings(final.value(u"flags")).contains(u"speed of light"_s));

        // The reports carry it: the JSON's final verdict and the Markdown's reasons.
        const auto json = kwb({u"report"_s, p, u"--format"_s, u"json"_s});
        QCOMPARE(json.exit_code, 0);
        const auto reported = QJsonDocument::fromJson(json.out)
                                  .object()
                                  .value(u"experiments")
                                  .toArray()
                                  .at(0)
                                  .toObject()
                                  .value(u"final_verdict")
                                  .toObject();
        QCOMPARE(strings(reported.value(u"reasons")).value(0), reasons.value(0));
        const auto md = kwb({u"report"_s, p, u"--format"_s, u"md"_s});
        QCOMPARE(md.exit_code, 0);
        QVERIFY(md.out.contains("speed-of-light guard: treatment: "));
    }

    void honestArmsHold()
    {
        write_fixture();
        const QString p = new_study("honest.json", u"op=triad,copy"_s);
        const auto r = kwb({u"run"_s, p});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        const QStringList reasons = strings(first_experiment(p).value(u"final_verdict").toObject().value(u"reasons"));
        QVERIFY2(any_starts(reasons, u"speed-of-light guard holds (roofs of "_s), qPrintable(reasons.join(u'\n')));
        QVERIFY(!strings(first_experiment(p).value(u"final_verdict").toObject().value(u"flags"))
                     .contains(u"speed of light"_s));
    }

    void withoutCeilingsNothingIsRefused()
    {
        const QString p = new_study("bare.json", u"skip_work_pct=0,99.99"_s);
        const auto r = kwb({u"run"_s, p});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        const auto final = first_experiment(p).value(u"final_verdict").toObject();
        QVERIFY2(
            any_starts(strings(final.value(u"reasons")), u"speed-of-light guard: not checked: no bandwidth roof"_s),
            qPrintable(strings(final.value(u"reasons")).join(u'\n')));
        QVERIFY(!strings(final.value(u"flags")).contains(u"speed of light"_s));
    }
};

QTEST_GUILESS_MAIN(TestKwbSpeedOfLight)
#include "tst_kwb_speed_of_light.moc"
