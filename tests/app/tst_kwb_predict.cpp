// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb predict STUDY [--json]`: the predicted delta% and speedup of the study's formula, and a
// formula that does not parse or evaluate as bad input naming the position (spec/cli.md).
#include "kwb_process.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace kwbtest;

namespace {

QString study_with_formula(const QTemporaryDir& dir, const QString& formula, const QJsonObject& variables = {})
{
    const QString path = new_gemm_study(dir.filePath(QStringLiteral("s.json")));
    QJsonObject s = load(path);
    QJsonObject p;
    p[QStringLiteral("formula")] = formula;
    p[QStringLiteral("variables")] = variables;
    p[QStringLiteral("predicted_delta_pct")] = 99.0; // typed by hand: never believed
    s[QStringLiteral("prediction")] = p;
    write_all(path, QJsonDocument(s).toJson());
    return path;
}

} // namespace

class TestKwbPredict : public QObject {
    Q_OBJECT

private slots:
    void printsDeltaAndSpeedup()
    {
        QTemporaryDir dir;
        // The arms' parameters are variables: block 32 -> 128.
        const QString path = study_with_formula(dir, QStringLiteral("100 * (1 - baseline_block / treatment_block)"));
        const auto r = kwb({QStringLiteral("predict"), path});
        QVERIFY2(r.exit_code == 0, r.err.constData());
        QVERIFY2(r.out.contains("predicted delta: +75.00%"), r.out.constData());
        QVERIFY2(r.out.contains("predicted speedup: 4.000x"), r.out.constData());
        QVERIFY(r.out.contains("baseline_block = 32"));
    }

    void json()
    {
        QTemporaryDir dir;
        const QString path = study_with_formula(dir, QStringLiteral("2 * k"), QJsonObject {{QStringLiteral("k"), 10}});
        const auto r = kwb({QStringLiteral("predict"), path, QStringLiteral("--json")});
        QCOMPARE(r.exit_code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o.value(u"predicted_delta_pct").toDouble(), 20.0);
        QCOMPARE(o.value(u"speedup").toDouble(), 1.25);
        QCOMPARE(o.value(u"direction").toString(), QStringLiteral("lower"));
        QVERIFY(o.value(u"error").isNull());
        QCOMPARE(o.value(u"used").toArray(), QJsonArray {QStringLiteral("k")});
        bool found = false;
        for (const auto& v : o.value(u"variables").toArray())
            found |= v.toObject().value(u"name").toString() == u"treatment_block";
        QVERIFY(found);
    }

    void badFormulaNamesThePosition_data()
    {
        QTest::addColumn<QString>("formula");
        QTest::addColumn<QString>("message");
        QTest::addRow("unknown name") << "100 * (1 - baseline_block / treatmnt_block)"
                                      << "position 29 ('treatmnt_block')";
        QTest::addRow("missing operator") << "2 3"
                                          << "position 3 ('3')";
        QTest::addRow("empty") << ""
                               << "position 1";
        QTest::addRow("division by zero") << "1 / 0"
                                          << "infinity";
    }

    void badFormulaNamesThePosition()
    {
        QFETCH(QString, formula);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString path = study_with_formula(dir, formula);
        const auto r = kwb({QStringLiteral("predict"), path});
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.err.contains("prediction.formula") && QString::fromUtf8(r.err).contains(message), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY(r.out.isEmpty());
        // --json still describes the error on stdout, with the same exit status.
        const auto j = kwb({QStringLiteral("predict"), path, QStringLiteral("--json")});
        QCOMPARE(j.exit_code, 2);
        QVERIFY(QJsonDocument::fromJson(j.out).object().value(u"error").isObject());
    }

    void unreadableStudyIsBadInput()
    {
        QTemporaryDir dir;
        const auto r = kwb({QStringLiteral("predict"), dir.filePath(QStringLiteral("missing.json"))});
        QCOMPARE(r.exit_code, 2);
    }
};

QTEST_GUILESS_MAIN(TestKwbPredict)
#include "tst_kwb_predict.moc"
