// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb profile STUDY --arms all` where no range profiler can run (docs/cli.md): on the CPU backend
// it says the range profiler needs the CUDA backend and exits 2 with the study untouched; on a
// study of command arms it prints the table with each arm's reason in its place and exits 0; an
// unknown --arms value is refused.
#include "kwb_process.h"

#include <QTemporaryDir>
#include <nlohmann/json.hpp>

using namespace kwbtest;

namespace {

QString L(const char* s)
{
    return QString::fromUtf8(s);
}

} // namespace

class TestKwbProfileArms : public QObject {
    Q_OBJECT
private slots:
    void cpuBackendSaysTheRangeProfilerNeedsCuda()
    {
        QTemporaryDir dir;
        const QString study = new_gemm_study(dir.filePath(L("s.json")));
        const QByteArray before = read_all(study);
        QVERIFY(!before.isEmpty());
        for (const QString& backend : {L("cpu"), L("auto")}) {
            const auto r = kwb({L("profile"), study, L("--arms"), L("all"), L("--backend"), backend});
            QCOMPARE(r.exit_code, 2);
            QVERIFY(r.out.isEmpty());
            QVERIFY2(r.err.contains("--arms all: the range profiler needs the CUDA backend"), r.err.constData());
            QVERIFY2(r.err.contains("gemm runs on the cpu backend here"), r.err.constData());
            QCOMPARE(r.err.count('\n'), 1); // one line
        }
        QCOMPARE(read_all(study), before); // output only: the study is never written
    }

    void unknownArmsValueIsRefused()
    {
        QTemporaryDir dir;
        const QString study = new_gemm_study(dir.filePath(L("s.json")));
        const auto r = kwb({L("profile"), study, L("--arms"), L("baseline")});
        QCOMPARE(r.exit_code, 2);
    }

    void commandArmsSayTheMetricsCannotBeHad()
    {
        QTemporaryDir dir;
        const QString study = dir.filePath(L("c.json"));
        auto r = kwb(
            {L("new"), L("--baseline-cmd"), L("true"), L("--treatment-cmd"), L("true --second"), L("--out"), study});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        const QByteArray before = read_all(study);
        r = kwb({L("profile"), study, L("--arms"), L("all"), L("--json")});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString()).at("range_profile");
        QCOMPARE(j.at("arms").size(), std::size_t {2});
        for (const auto& arm : j.at("arms")) {
            QVERIFY(arm.at("unavailable").get<std::string>().find("a command arm") == 0);
            QCOMPARE(arm.at("launches").get<int>(), 0);
        }
        const auto& diff = j.at("diffs").at(0);
        QCOMPARE(diff.at("baseline").get<std::string>(), std::string("baseline"));
        QVERIFY(diff.at("rows").empty());
        QCOMPARE(diff.at("notes").size(), std::size_t {2});
        QVERIFY(diff.at("notes")[0].get<std::string>().find("cannot be had for arm baseline: a command arm") == 0);
        QVERIFY(j.at("metrics").size() >= 8);
        QVERIFY(r.err.contains("range profile cannot be had"));

        r = kwb({L("profile"), study, L("--arms"), L("all")});
        QCOMPARE(r.exit_code, 0);
        QVERIFY2(r.out.contains("arm treatment: cannot be had: a command arm"), r.out.constData());
        QVERIFY2(r.out.contains("diff baseline -> treatment"), r.out.constData());
        QCOMPARE(read_all(study), before);
    }
};

QTEST_GUILESS_MAIN(TestKwbProfileArms)
#include "tst_kwb_profile_arms.moc"
