// SPDX-License-Identifier: GPL-3.0-or-later
// Reading sample files: accepted forms, and every bad input of spec/verdict.md with the file, the
// 1-based line and the problem in the error.
#include "stats/sample_file.h"

#include <QTest>

using namespace kwb::stats;

using Values = std::vector<double>;
Q_DECLARE_METATYPE(Values)

class TestSampleFile : public QObject {
    Q_OBJECT

private slots:
    void accepted_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("column"); // empty: none
        QTest::addColumn<Values>("values");
        QTest::addRow("plain") << QStringLiteral("1\n2.5\n3e1\n") << QString() << Values {1, 2.5, 30};
        QTest::addRow("comments and blanks")
            << QStringLiteral("# ms\n\n1\n  # more\n2\r\n\n") << QString() << Values {1, 2};
        QTest::addRow("no final newline, plus sign") << QStringLiteral("+1\n2") << QString() << Values {1, 2};
        QTest::addRow("one value") << QStringLiteral("7\n") << QString() << Values {7};
        QTest::addRow("subnormal") << QStringLiteral("2e-310\n") << QString() << Values {2e-310}; // tiny, representable
        QTest::addRow("csv one column") << QStringLiteral("time_ms\n1\n2\n") << QString() << Values {1, 2};
        QTest::addRow("csv one numeric column")
            << QStringLiteral("run,time_ms\na,1\nb,2\n") << QString() << Values {1, 2};
        QTest::addRow("csv by name") << QStringLiteral("time_ms,tok_s\n1,100\n2,200\n") << QStringLiteral("tok_s")
                                     << Values {100, 200};
        QTest::addRow("csv quoted header")
            << QStringLiteral("\"time, ms\",x\n1,a\n2,b\n") << QStringLiteral("time, ms") << Values {1, 2};
        QTest::addRow("byte-order mark") << QStringLiteral("\uFEFF1\n2\n") << QString() << Values {1, 2};
        QTest::addRow("byte-order mark csv") << QStringLiteral("\uFEFFtime_ms\n3\n") << QString() << Values {3};
    }
    void accepted()
    {
        QFETCH(QString, text);
        QFETCH(QString, column);
        QFETCH(Values, values);
        const auto set = parse_samples(text.toStdString(), "f.txt",
            column.isEmpty() ? std::nullopt : std::optional<std::string>(column.toStdString()));
        QCOMPARE(set.values, values);
    }

    void lines_are_recorded()
    {
        const auto set = parse_samples("# header\n\n1\n2\n", "f.txt");
        QCOMPARE(set.lines, (std::vector<int> {3, 4}));
    }

    void rejected_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("column");
        QTest::addColumn<QString>("message");
        QTest::addRow("empty") << QString() << QString() << QStringLiteral("b.txt:1: no values");
        QTest::addRow("only comments") << QStringLiteral("# a\n\n# b\n") << QString()
                                       << QStringLiteral("b.txt:3: no values");
        QTest::addRow("not a number") << QStringLiteral("1\n2\n\nabc\n") << QString()
                                      << QStringLiteral("b.txt:4: \"abc\" is not a number");
        QTest::addRow("two numbers on a line")
            << QStringLiteral("1\n2 3\n") << QString() << QStringLiteral("b.txt:2: \"2 3\" is not a number");
        QTest::addRow("trailing junk") << QStringLiteral("1\n2ms\n") << QString()
                                       << QStringLiteral("b.txt:2: \"2ms\" is not a number");
        QTest::addRow("nan") << QStringLiteral("1\nnan\n") << QString()
                             << QStringLiteral("b.txt:2: \"nan\" is not a finite number");
        QTest::addRow("inf") << QStringLiteral("inf\n") << QString()
                             << QStringLiteral("b.txt:1: \"inf\" is not a finite number");
        QTest::addRow("overflow") << QStringLiteral("1\n1e999\n") << QString()
                                  << QStringLiteral("b.txt:2: \"1e999\" is not a finite number");
        // Finite but below the smallest double: out of range, not "not a finite number" or "not positive".
        QTest::addRow("underflow") << QStringLiteral("1\n1e-400\n") << QString()
                                   << QStringLiteral("b.txt:2: \"1e-400\" is out of range: too small for a double");
        QTest::addRow("underflow without an exponent")
            << QStringLiteral("0.%1\n").arg(QString(400, QLatin1Char('0')) + QStringLiteral("1")) << QString()
            << QStringLiteral("b.txt:1: \"0.000");
        QTest::addRow("negative underflow")
            << QStringLiteral("-1e-400\n") << QString() << QStringLiteral("b.txt:1: \"-1e-400\" is out of range");
        QTest::addRow("overflow with a negative exponent")
            << QStringLiteral("1%1e-10\n").arg(QString(400, QLatin1Char('0'))) << QString()
            << QStringLiteral("b.txt:1: \"1%1e-10\" is not a finite number").arg(QString(400, QLatin1Char('0')));
        QTest::addRow("zero") << QStringLiteral("1\n0\n") << QString() << QStringLiteral("b.txt:2: 0 is not positive");
        QTest::addRow("negative") << QStringLiteral("-1\n") << QString()
                                  << QStringLiteral("b.txt:1: -1 is not positive");
        QTest::addRow("csv header only") << QStringLiteral("time_ms\n") << QString()
                                         << QStringLiteral("b.txt:1: no values");
        QTest::addRow("csv bad value") << QStringLiteral("time_ms\n1\nx\n") << QString()
                                       << QStringLiteral("b.txt:3: \"x\" is not a number");
        QTest::addRow("csv several numeric") << QStringLiteral("a,b\n1,2\n3,4\n") << QString()
                                             << QStringLiteral("b.txt:1: several numeric columns (\"a\", \"b\")");
        QTest::addRow("csv no numeric") << QStringLiteral("a,b\nx,y\n") << QString()
                                        << QStringLiteral("b.txt:1: no column holds only numbers");
        QTest::addRow("csv unknown column") << QStringLiteral("a,b\n1,2\n") << QStringLiteral("c")
                                            << QStringLiteral("b.txt:1: no column \"c\" (columns: \"a\", \"b\")");
        QTest::addRow("csv ragged row") << QStringLiteral("a,b\n1,2\n3\n") << QStringLiteral("a")
                                        << QStringLiteral("b.txt:3: 1 fields, but the header has 2");
        QTest::addRow("plain file with column")
            << QStringLiteral("1\n2\n") << QStringLiteral("x")
            << QStringLiteral("b.txt:1: --column \"x\" given, but the file holds bare numbers");
        QTest::addRow("hex first line") << QStringLiteral("0x10\n5\n") << QString()
                                        << QStringLiteral("b.txt:1: \"0x10\" is neither a number nor a CSV header");
        QTest::addRow("number with letters first") << QStringLiteral(
            "10abc\n5\n") << QString() << QStringLiteral("b.txt:1: \"10abc\" is neither a number nor a CSV header");
        QTest::addRow("quoted number first") << QStringLiteral(
            "\"10\"\n5\n") << QString() << QStringLiteral("b.txt:1: \"\"10\"\" is neither a number nor a CSV header");
        QTest::addRow("header field without letter")
            << QStringLiteral("time_ms,__\n5,6\n") << QString() << QStringLiteral("b.txt:1: \"time_ms,__\" is neither");
        QTest::addRow("too large for the statistics")
            << QStringLiteral("1\n1e200\n") << QString() << QStringLiteral("b.txt:2: 1e200 is too large");
        QTest::addRow("csv chosen column non-positive") << QStringLiteral("# c\na,b\n1,2\n0,4\n") << QStringLiteral("a")
                                                        << QStringLiteral("b.txt:4: 0 is not positive");
    }
    void rejected()
    {
        QFETCH(QString, text);
        QFETCH(QString, column);
        QFETCH(QString, message);
        try {
            parse_samples(text.toStdString(), "b.txt",
                column.isEmpty() ? std::nullopt : std::optional<std::string>(column.toStdString()));
            QFAIL("accepted bad input");
        } catch (const SampleFileError& e) {
            const QString what = QString::fromStdString(e.what());
            QVERIFY2(what.startsWith(message), e.what());
            QVERIFY(!what.contains(QLatin1Char('\n')));
            QCOMPARE(QString::fromStdString(e.file()), QStringLiteral("b.txt"));
            QVERIFY(e.line() >= 1);
        }
    }

    void unreadable_file()
    {
        try {
            read_sample_file("/nonexistent/kwb/samples.txt");
            QFAIL("read a missing file");
        } catch (const SampleFileError& e) {
            QCOMPARE(e.line(), 0);
            QVERIFY(QString::fromStdString(e.what()).startsWith(QStringLiteral("/nonexistent/kwb/samples.txt: ")));
        }
    }

    void paired_counts()
    {
        const auto b = parse_samples("1\n2\n3\n", "b.txt");
        const auto t = parse_samples("1\n2\n", "t.txt");
        check_paired_counts(b, b);
        try {
            check_paired_counts(b, t);
            QFAIL("unequal counts accepted");
        } catch (const SampleFileError& e) {
            QVERIFY2(QString::fromStdString(e.what()).startsWith(QStringLiteral("t.txt:2: 2 values")), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestSampleFile)
#include "tst_sample_file.moc"
