// SPDX-License-Identifier: GPL-3.0-or-later
// The CI gate (ledger/gate.h): a study or a ledger key regressed or not, by the one regression rule
// (verdict/regression.h), and its Markdown summary.
#include "ledger/gate.h"
#include "ledger/ledger_index.h"
#include "ledger/ledger_row.h"
#include "ledger_studies.h"

#include <QTemporaryDir>
#include <QTest>

using namespace kwb;
using namespace kwb::ledger;

namespace {

Study study_of(double treatment_mean)
{
    Study s;
    s.name = "gate";
    auto e = ledger_test::judged_experiment(
        "ab-1", ledger_test::around(10.0, 1, 6, 0), ledger_test::around(treatment_mean, 1, 6, 1));
    s.experiments.push_back(std::move(e));
    return s;
}

} // namespace

class TestLedgerGate : public QObject {
    Q_OBJECT
private slots:
    void aSlowerTreatmentRegresses()
    {
        const auto r = gate_study(study_of(10.8), "s.json", 0);
        QVERIFY(r.regressed());
        QCOMPARE(r.items.size(), size_t(1));
        QVERIFY(r.items[0].call.assessed);
        QVERIFY(r.items[0].call.delta_pct < -7);
        const auto md = gate_markdown(r, 0);
        QVERIFY(md.find("### kwb gate: regression") != std::string::npos);
        QVERIFY(md.find("**yes**") != std::string::npos);
    }

    void aFasterOrEqualTreatmentDoesNot()
    {
        QVERIFY(!gate_study(study_of(9.0), "s.json", 0).regressed());
        QVERIFY(!gate_study(study_of(10.0), "s.json", 0).regressed()); // within the noise band
        // Beyond the noise band but within a 10% tolerance: not a regression either.
        QVERIFY(!gate_study(study_of(10.8), "s.json", 10).regressed());
        QVERIFY(gate_markdown(gate_study(study_of(9.0), "s.json", 0), 0).find("no regression") != std::string::npos);
    }

    void nothingJudgedIsBadInput()
    {
        Study s;
        s.experiments.push_back(Experiment {});
        QVERIFY_THROWS_EXCEPTION(LedgerError, gate_study(s, "s.json", 0));
    }

    void aLedgerKeyIsGatedOnItsLatestAttempt()
    {
        QTemporaryDir dir;
        Database db(dir.filePath(QStringLiteral("l.sqlite")).toStdString(),
            dir.filePath(QStringLiteral("none.jsonl")).toStdString());
        Study old_study = study_of(10.8);
        old_study.experiments[0].samples[0].started_at = "2026-10-01T00:00:00Z";
        const Study new_study = study_of(9.5);
        index_study(db, dir.filePath(QStringLiteral("old.json")).toStdString(), old_study);
        index_study(db, dir.filePath(QStringLiteral("new.json")).toStdString(), new_study);
        const std::string key = benchmark_key(new_study.experiments[0]);
        QVERIFY(!gate_history(db, key, "", 0).regressed()); // the latest is faster
        index_study(db, dir.filePath(QStringLiteral("old.json")).toStdString(), [&] {
            Study s = study_of(10.8);
            for (auto& sample : s.experiments[0].samples)
                sample.started_at = "2026-12-01T00:00:00Z";
            return s;
        }());
        const auto r = gate_history(db, key.substr(0, 12), "NVIDIA H200", 0);
        QVERIFY(r.regressed());
        QCOMPARE(r.subject, key);
        QVERIFY_THROWS_EXCEPTION(LedgerError, gate_history(db, "nosuch/", "", 0));
    }
};

QTEST_GUILESS_MAIN(TestLedgerGate)
#include "tst_ledger_gate.moc"
