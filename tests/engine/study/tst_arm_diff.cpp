// SPDX-License-Identifier: GPL-3.0-or-later
// The arm diff: a single-variable A/B changes exactly one parameter; command arms say which of
// their settings differ.
#include "study/arm_diff.h"
#include "study/study.h"

#include <QTest>

using namespace kwb;
using nlohmann::json;

class TestArmDiff : public QObject {
    Q_OBJECT

private slots:
    void oneDifference()
    {
        const auto d = diff_arms({{"block", 32}, {"size", 512}}, {{"block", 128}, {"size", 512}});
        QCOMPARE(d.differences.size(), size_t(1));
        QCOMPARE(d.differences[0].name, std::string("block"));
        QVERIFY(d.differences[0].baseline == json(32));
        QVERIFY(d.differences[0].treatment == json(128));
        QVERIFY(d.single_variable());
    }

    void twoDifferencesAreNamed()
    {
        const auto d = diff_arms({{"block", 32}, {"threads", 1}}, {{"block", 128}, {"threads", 2}});
        QVERIFY(!d.single_variable());
        QCOMPARE(d.names(), std::string("block, threads"));
    }

    void numbersCompareByValue() { QVERIFY(diff_arms({{"block", 128}}, {{"block", 128.0}}).differences.empty()); }

    void defaultsFillMissingParameters()
    {
        const json defaults = {{"block", 64}, {"size", 512}};
        // The treatment forces the default on itself only: not a difference, but flagged one-sided.
        auto d = diff_arms({{"block", 32}}, {{"block", 32}, {"size", 512}}, defaults);
        QVERIFY(d.differences.empty());
        QCOMPARE(d.one_sided, (std::vector<std::string> {"size"}));
        // A missing parameter with another value on the other arm is a difference.
        d = diff_arms({{"block", 32}}, {{"block", 32}, {"size", 256}}, defaults);
        QCOMPARE(d.names(), std::string("size"));
    }

    void commandArmsNameWhatDiffers()
    {
        CommandSpec a, b;
        a.cmd = "./bench --tile 64";
        b.cmd = "./bench --tile 128";
        a.env = {{"CUDA_VISIBLE_DEVICES", "0"}, {"MODE", "old"}};
        b.env = {{"CUDA_VISIBLE_DEVICES", "0"}, {"MODE", "new"}, {"EXTRA", "1"}};
        b.cwd = "/tmp";
        auto d = diff_commands(a, b);
        QCOMPARE(d.names(), std::string("command, cwd, env.EXTRA, env.MODE"));
        QVERIFY(d.differences[0].baseline == json("./bench --tile 64"));
        QVERIFY(d.differences[1].baseline.is_null()); // the baseline sets no folder
        QVERIFY(d.differences[2].baseline.is_null() && d.differences[2].treatment == json("1"));
        b = a;
        QVERIFY(diff_commands(a, b).differences.empty());
        b.timeout_s = 30;
        b.check = "true";
        QCOMPARE(diff_commands(a, b).names(), std::string("check, timeout_s"));
    }

    void anArmPairUsesCommandsWhenBothHaveThem()
    {
        Arm a {"baseline", {{"block", 32}}}, b {"treatment", {{"block", 128}}};
        QCOMPARE(diff_arm_pair(a, b).names(), std::string("block"));
        a.command = CommandSpec {};
        a.command->cmd = "./x";
        b.command = a.command;
        b.command->cmd = "./y";
        a.params = b.params = json::object();
        QCOMPARE(diff_arm_pair(a, b).names(), std::string("command"));
    }
};

QTEST_GUILESS_MAIN(TestArmDiff)
#include "tst_arm_diff.moc"
