// SPDX-License-Identifier: GPL-3.0-or-later
// Formula evaluation on muParser: values, names, and errors that point at the bad token.
#include "formula/formula.h"

#include <QTest>

using namespace kwb;

class TestFormula : public QObject {
    Q_OBJECT

private slots:
    void evaluatesWithVariables()
    {
        const auto r = evaluate_formula(
            "100 * (1 - t_new / t_old)", {{"t_new", 9.0, "study", ""}, {"t_old", 12.5, "study", ""}});
        QVERIFY(r.ok());
        QCOMPARE(*r.value, 28.0);
        QCOMPARE(r.used, (std::vector<std::string> {"t_new", "t_old"}));
    }

    void laterVariableOfOneNameWins()
    {
        const auto r = evaluate_formula(
            "smem_per_sm / 1024", {{"smem_per_sm", 233472, "hardware", ""}, {"smem_per_sm", 102400, "study", ""}});
        QCOMPARE(*r.value, 100.0);
    }

    void floorAndCeilAreAvailable() { QCOMPARE(*evaluate_formula("floor(233472 / 98304) + ceil(0.2)", {}).value, 3.0); }

    void errorsPointAtTheBadToken_data()
    {
        QTest::addColumn<QString>("formula");
        QTest::addColumn<int>("position"); // 1-based; 0 = no token at fault
        QTest::addColumn<QString>("token");
        QTest::addColumn<QString>("words");
        QTest::addRow("unknown name") << "1 + foo * 2" << 5 << "foo"
                                      << "unknown name 'foo'";
        QTest::addRow("unknown name after a known one") << "x + smem_per_sm" << 5 << "smem_per_sm"
                                                        << "unknown name";
        QTest::addRow("missing operator") << "2 3" << 3 << "3"
                                          << "unexpected number '3'";
        QTest::addRow("unclosed parenthesis") << "(1+2" << 4 << ""
                                              << "never closed";
        QTest::addRow("ends too early") << "1+" << 2 << ""
                                        << "ends too early";
        QTest::addRow("stray parenthesis") << ")" << 1 << ")"
                                           << "unexpected ')'";
        QTest::addRow("too few arguments") << "sin()" << 5 << "sin"
                                           << "too few arguments for 'sin'";
        QTest::addRow("two values") << "x, 2" << 2 << ","
                                    << "gives 2 values";
        QTest::addRow("empty") << "   " << 1 << ""
                               << "empty";
        QTest::addRow("division by zero") << "x / 0" << 0 << ""
                                          << "infinity";
    }

    void errorsPointAtTheBadToken()
    {
        QFETCH(QString, formula);
        QFETCH(int, position);
        QFETCH(QString, token);
        QFETCH(QString, words);
        const auto r = evaluate_formula(formula.toStdString(), {{"x", 1.0, "study", ""}});
        QVERIFY(!r.ok());
        QVERIFY(r.error);
        QCOMPARE(r.error->position(), position);
        QCOMPARE(QString::fromStdString(r.error->token), token);
        QVERIFY2(QString::fromStdString(r.error->message).contains(words), r.error->message.c_str());
        if (position > 0)
            QVERIFY(QString::fromStdString(r.error->text()).startsWith(QStringLiteral("position %1").arg(position)));
    }

    void nonFiniteVariableIsAnError()
    {
        const auto r = evaluate_formula("2 * x", {{"x", std::numeric_limits<double>::infinity(), "study", ""}});
        QVERIFY(!r.ok());
        QCOMPARE(r.error->position(), 5);
        QCOMPARE(r.error->token, std::string("x"));
    }

    void badVariableNameIsAnError()
    {
        const auto r = evaluate_formula("1", {{"block-m", 1.0, "study", ""}});
        QVERIFY(!r.ok());
        QVERIFY(QString::fromStdString(r.error->message).contains(QStringLiteral("block-m")));
    }

    void names_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("accepted");
        QTest::addRow("plain") << "baseline_block"
                               << "baseline_block" << true;
        QTest::addRow("dash") << "block-m"
                              << "block_m" << false;
        QTest::addRow("leading digit") << "2stage"
                                       << "_2stage" << false;
        QTest::addRow("builtin") << "min"
                                 << "min_" << false;
        QTest::addRow("dot") << "kv.format"
                             << "kv_format" << false;
    }

    void names()
    {
        QFETCH(QString, text);
        QFETCH(QString, name);
        QFETCH(bool, accepted);
        QCOMPARE(is_formula_name(text.toStdString()), accepted);
        QCOMPARE(QString::fromStdString(to_formula_name(text.toStdString())), name);
        QVERIFY(is_formula_name(to_formula_name(text.toStdString())));
    }

    void namesStayWithinMuParsersLimit()
    {
        // Found by fuzz_formula (tests/fuzz/corpus/formula/crash-identifier-too-long.bin): a name
        // of 101 characters was accepted here and refused by muParser ("Identifier too long").
        const std::string longest(100, 'a'), tooLong(101, 'a');
        QVERIFY(is_formula_name(longest));
        QVERIFY(!is_formula_name(tooLong));
        QVERIFY(evaluate_formula(longest, {{longest, 2, "study", ""}}).ok());
        for (const std::string& text : {tooLong, std::string(300, '-'), "min" + std::string(200, 'x')}) {
            const std::string name = to_formula_name(text);
            QVERIFY(name.size() <= 100);
            QVERIFY(is_formula_name(name));
            QCOMPARE(*evaluate_formula(name, {{name, 2, "study", ""}}).value, 2.0);
        }
    }
};

QTEST_GUILESS_MAIN(TestFormula)
#include "tst_formula.moc"
