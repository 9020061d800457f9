// SPDX-License-Identifier: GPL-3.0-or-later
// The one rule for names that become part of a path (study/path_names.h), the ids made from it,
// and part files that cannot leave STUDY.parts/ (study/study_parts.h).
#include "study/path_names.h"
#include "study/study_parts.h"

#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>

using namespace kwb;

class TestPathNames : public QObject {
    Q_OBJECT

private slots:
    // What the demo study, the test data, kwb new, grids and new attempts make all pass.
    void namesKwbMakesPass_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* n : {"ab-1", "ab-2", "grid-1", "grid-1-r0c1", "grid-12-r3c3", "baseline", "treatment",
                 "baseline-aa", "r0c0-aa", "block=32", "a", "e", "draft", "ab-1-7", "v2_fp8+bs,4@h200", "x.y"})
            QTest::addRow("%s", n) << QString::fromLatin1(n);
        QTest::addRow("100 characters") << QString(100, QLatin1Char('x'));
    }
    void namesKwbMakesPass()
    {
        QFETCH(QString, name);
        QCOMPARE(QString::fromStdString(path_name_problem(name.toStdString())), QString());
    }

    void namesThatCouldLeaveTheFolderAreRefused_data()
    {
        QTest::addColumn<QByteArray>("name");
        QTest::addColumn<QString>("problem");
        QTest::addRow("empty") << QByteArray() << QStringLiteral("is empty");
        QTest::addRow("parent") << QByteArray("..") << QStringLiteral("starts with '.'");
        QTest::addRow("dot") << QByteArray(".") << QStringLiteral("starts with '.'");
        QTest::addRow("hidden") << QByteArray(".lock") << QStringLiteral("starts with '.'");
        QTest::addRow("traversal") << QByteArray("../../../trav") << QStringLiteral("contains '/'");
        QTest::addRow("absolute") << QByteArray("/etc/kwb") << QStringLiteral("contains '/'");
        QTest::addRow("inner slash") << QByteArray("a/b") << QStringLiteral("contains '/'");
        QTest::addRow("backslash") << QByteArray("a\\b") << QStringLiteral("contains '\\'");
        QTest::addRow("newline") << QByteArray("a\nb") << QStringLiteral("contains the byte 0x0a");
        QTest::addRow("escape") << QByteArray("a\x1b[2J") << QStringLiteral("contains the byte 0x1b");
        QTest::addRow("not ascii") << QByteArray("caf\xc3\xa9") << QStringLiteral("contains the byte 0xc3");
        QTest::addRow("space") << QByteArray("a b") << QStringLiteral("contains a space");
        QTest::addRow("option") << QByteArray("-rf") << QStringLiteral("starts with '-'");
        QTest::addRow("101 characters") << QByteArray(101, 'x')
                                        << QStringLiteral("is 101 characters long (at most 100)");
    }
    void namesThatCouldLeaveTheFolderAreRefused()
    {
        QFETCH(QByteArray, name);
        QFETCH(QString, problem);
        const QString got = QString::fromStdString(path_name_problem(name.toStdString()));
        QVERIFY2(got.contains(problem), qPrintable(got));
        QVERIFY(!got.contains(QLatin1Char('\n')));
    }

    // In a message the name is quoted and escaped: a control character cannot reach the terminal.
    void shownNamesAreEscapedAndCut()
    {
        QCOMPARE(shown_name("a\nb"), std::string("\"a\\nb\""));
        QCOMPARE(shown_name(std::string(50, 'x')), "\"" + std::string(40, 'x') + "\"...");
        QVERIFY(shown_name("\xff").find('\xff') == std::string::npos);
    }

    void uniqueIdsSkipTakenOnesAndStayWithinTheLimit()
    {
        Study s;
        Experiment e;
        e.id = "ab-1";
        s.experiments.push_back(e);
        QCOMPARE(unique_experiment_id(s, "ab", 1), std::string("ab-2"));
        QCOMPARE(unique_experiment_id(s, "ab", 3), std::string("ab-3"));
        const std::string long_stem(kMaxPathNameLength, 'x');
        s.experiments[0].id = long_stem.substr(0, kMaxPathNameLength - 2) + "-2";
        const std::string id = unique_experiment_id(s, long_stem, 2);
        QCOMPARE(id, long_stem.substr(0, kMaxPathNameLength - 2) + "-3");
        QCOMPARE(QString::fromStdString(path_name_problem(id)), QString());
    }

    // The last line: even a caller that skipped the checks cannot name a part outside the folder.
    void partPathsStayInsideTheStudysFolder()
    {
        QTemporaryDir dir;
        const std::filesystem::path study = std::filesystem::path(dir.path().toStdString()) / "s.json";
        QCOMPARE(part_path(study, "grid-1-r0c1").parent_path(), parts_dir(study));
        for (const char* bad : {"../../../trav", "/tmp/abs", "..", "", "a\nb"})
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, part_path(study, bad));
    }

    // A file in STUDY.parts/ that no id could have named is not a part (and not folded).
    void partIdsSkipFilesNoIdCouldName()
    {
        QTemporaryDir dir;
        const std::filesystem::path study = std::filesystem::path(dir.path().toStdString()) / "s.json";
        std::filesystem::create_directories(parts_dir(study));
        for (const char* name : {"ab-1.json", "a b.json", "-x.json", ".ab-2.json"})
            std::ofstream(parts_dir(study) / name) << "{}";
        QCOMPARE(part_ids(study), std::vector<std::string> {"ab-1"});
    }
};

QTEST_GUILESS_MAIN(TestPathNames)
#include "tst_path_names.moc"
