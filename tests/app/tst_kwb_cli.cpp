// SPDX-License-Identifier: GPL-3.0-or-later
// The general forms of `kwb` (spec/cli.md): version, devices, workloads, errors and exit statuses.
#include "kwb_process.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

using namespace kwbtest;

namespace {

int line_count(const QByteArray& text)
{
    return int(text.trimmed().isEmpty() ? 0 : text.trimmed().count('\n') + 1);
}

} // namespace

class TestKwbCli : public QObject {
    Q_OBJECT

private slots:
    void versionPrintsNameAndVersion()
    {
        const auto r = kwb({QStringLiteral("--version")});
        QCOMPARE(r.exit_code, 0);
        QCOMPARE(r.out.trimmed(), QByteArray("kwb " KWB_VERSION));
    }

    void devicesJsonListsTheCpu()
    {
        const auto r = kwb({QStringLiteral("devices"), QStringLiteral("--json")});
        QCOMPARE(r.exit_code, 0);
        QJsonParseError error {};
        const auto doc = QJsonDocument::fromJson(r.out, &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        const auto devices = doc.object().value(u"devices").toArray();
        QVERIFY(!devices.isEmpty());
        const auto cpu = devices.first().toObject();
        QCOMPARE(cpu.value(u"kind").toString(), QStringLiteral("cpu"));
        QVERIFY(!cpu.value(u"name").toString().isEmpty());
        QVERIFY(cpu.value(u"logical_cores").toInt() >= 1);
        QVERIFY(cpu.value(u"memory_bytes").toDouble() > 0);
        for (const auto& d : devices) {
            const auto kind = d.toObject().value(u"kind").toString();
            QVERIFY(kind == u"cpu" || kind == u"cuda");
        }
        // Without a usable GPU, exactly one stderr line says why; with one, nothing is said.
        const bool has_gpu = devices.size() > 1;
        QCOMPARE(line_count(r.err), has_gpu ? 0 : 1);
    }

    void devicesTextShowsTheCpu()
    {
        const auto r = kwb({QStringLiteral("devices")});
        QCOMPARE(r.exit_code, 0);
        QVERIFY(r.out.startsWith("CPU "));
    }

    void workloadsJsonHasTheSpecShape()
    {
        const auto r = kwb({QStringLiteral("workloads"), QStringLiteral("--json")});
        QCOMPARE(r.exit_code, 0);
        const auto workloads = QJsonDocument::fromJson(r.out).object().value(u"workloads").toArray();
        for (const auto& w : workloads) {
            const auto o = w.toObject();
            QVERIFY(!o.value(u"name").toString().isEmpty());
            // Most have a cpu backend; a cuda-only one (attention_decode) lists just cuda.
            const auto backends = o.value(u"backends").toArray();
            QVERIFY(!backends.isEmpty());
            for (const auto& b : backends)
                QVERIFY(b.toString() == u"cpu" || b.toString() == u"cuda");
            for (const auto& p : o.value(u"params").toArray()) {
                QVERIFY(p.toObject().contains(u"name"));
                QVERIFY(p.toObject().contains(u"default"));
                QVERIFY(p.toObject().value(u"values").isArray());
            }
            QVERIFY(!o.value(u"metrics").toArray().isEmpty());
            for (const auto& m : o.value(u"metrics").toArray()) {
                const auto dir = m.toObject().value(u"direction").toString();
                QVERIFY(dir == u"lower" || dir == u"higher");
                QVERIFY(m.toObject().contains(u"unit"));
            }
        }
    }

    void badUsageExitsTwoWithOneLine_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addRow("unknown option") << QStringList {QStringLiteral("--frobnicate")};
        QTest::addRow("unknown command") << QStringList {QStringLiteral("frobnicate")};
        QTest::addRow("unknown sub-option") << QStringList {QStringLiteral("devices"), QStringLiteral("--frobnicate")};
        QTest::addRow("no command") << QStringList {};
    }

    void badUsageExitsTwoWithOneLine()
    {
        QFETCH(QStringList, args);
        const auto r = kwb(args);
        QCOMPARE(r.exit_code, 2);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(line_count(r.err), 1);
        QVERIFY(r.err.startsWith("kwb: "));
    }

    void helpExitsZeroOnStdout_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addRow("top") << QStringList {QStringLiteral("--help")};
        QTest::addRow("devices") << QStringList {QStringLiteral("devices"), QStringLiteral("--help")};
        QTest::addRow("workloads") << QStringList {QStringLiteral("workloads"), QStringLiteral("--help")};
    }

    void helpExitsZeroOnStdout()
    {
        QFETCH(QStringList, args);
        const auto r = kwb(args);
        QCOMPARE(r.exit_code, 0);
        QVERIFY(r.out.contains("Usage") || r.out.contains("usage") || r.out.contains("OPTIONS"));
    }
};

QTEST_GUILESS_MAIN(TestKwbCli)
#include "tst_kwb_cli.moc"
