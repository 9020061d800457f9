// SPDX-License-Identifier: GPL-3.0-or-later
// The run order: ABBA blocks, seeded randomised blocks, warm-ups before the order, prefix stability.
#include "run/schedule.h"

#include <QTest>
#include <set>

using namespace kwb;

namespace {

std::string letters(const std::vector<ScheduledRun>& runs)
{
    std::string s;
    for (const auto& r : runs)
        s += static_cast<char>('A' + r.arm);
    return s;
}

RunPlan plan(RunOrder order, std::uint64_t seed = 1)
{
    RunPlan p;
    p.order = order;
    p.seed = seed;
    return p;
}

} // namespace

class TestSchedule : public QObject {
    Q_OBJECT

private slots:
    void abbaAlternatesBlocks()
    {
        const auto runs = schedule_blocks(2, plan(RunOrder::Abba), 0, 6);
        QCOMPARE(letters(runs), std::string("ABBAABBAABBA"));
        for (size_t i = 0; i < runs.size(); ++i) {
            QCOMPARE(runs[i].position, static_cast<int>(i));
            QCOMPARE(runs[i].rep, static_cast<int>(i / 2)); // rep = block: one run per arm per block
            QVERIFY(!runs[i].warmup);
        }
    }

    void abbaGeneralisesToMoreArms()
    {
        QCOMPARE(letters(schedule_blocks(3, plan(RunOrder::Abba), 0, 3)), std::string("ABCCBAABC"));
    }

    void randomisedBlocksArePermutationsAndSeeded()
    {
        const auto a = schedule_blocks(3, plan(RunOrder::RandomisedBlocks, 7), 0, 40);
        const auto b = schedule_blocks(3, plan(RunOrder::RandomisedBlocks, 7), 0, 40);
        const auto c = schedule_blocks(3, plan(RunOrder::RandomisedBlocks, 8), 0, 40);
        QCOMPARE(letters(a), letters(b));
        QVERIFY(letters(a) != letters(c));
        std::set<std::string> distinct;
        for (int blk = 0; blk < 40; ++blk) {
            const std::string block = letters(a).substr(static_cast<size_t>(blk) * 3, 3);
            QCOMPARE(std::set<char>(block.begin(), block.end()).size(), size_t(3));
            distinct.insert(block);
        }
        QVERIFY(distinct.size() > 1); // not the same permutation every time
    }

    void ordersArePrefixStable_data()
    {
        QTest::addColumn<int>("order");
        QTest::addRow("abba") << int(RunOrder::Abba);
        QTest::addRow("random") << int(RunOrder::RandomisedBlocks);
    }
    void ordersArePrefixStable()
    {
        QFETCH(int, order);
        const RunPlan p = plan(RunOrder(order), 42);
        const auto whole = schedule_blocks(2, p, 0, 10);
        std::string pieces;
        for (int blk = 0; blk < 10; ++blk)
            pieces += letters(schedule_blocks(2, p, blk, 1));
        QCOMPARE(pieces, letters(whole));
        const auto tail = schedule_blocks(2, p, 4, 2);
        QCOMPARE(tail.front().position, 8);
        QCOMPARE(tail.front().rep, 4);
    }

    void warmupsComeFirstWithNegativePositions()
    {
        const auto w = schedule_warmups(2, 2);
        QCOMPARE(letters(w), std::string("ABAB"));
        QCOMPARE(w.front().position, -4);
        QCOMPARE(w.back().position, -1);
        for (const auto& r : w)
            QVERIFY(r.warmup);
        QVERIFY(schedule_warmups(2, 0).empty());
    }

    void orderNamesUseArmNames()
    {
        const std::vector<Arm> arms = {{"baseline", {}}, {"treatment", {}}};
        const auto names = order_names(arms, plan(RunOrder::Abba), 2);
        QCOMPARE(names, (std::vector<std::string> {"baseline", "treatment", "treatment", "baseline"}));
    }
};

QTEST_GUILESS_MAIN(TestSchedule)
#include "tst_schedule.moc"
