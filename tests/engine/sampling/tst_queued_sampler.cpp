// SPDX-License-Identifier: GPL-3.0-or-later
// QueuedSampler against a scripted source: order, drop-first, overflow counted and reported,
// and a blocked consumer never stalling the decode thread. No wall-clock thresholds: the tests
// wait on events (a poll count reached), bounded by QTRY's generous timeout.
#include "sampling/queued_sampler.h"

#include <QTest>
#include <atomic>
#include <condition_variable>
#include <fmt/format.h>
#include <mutex>
#include <vector>

using namespace kwb;

namespace {

// Each poll hands out the next `per_poll` readings of a script: metric 0 and 1 alternate,
// t = index, value = index.
class ScriptedSource : public SampleSource {
public:
    ScriptedSource(int total, int per_poll, bool stale_first)
        : total_(total)
        , per_poll_(per_poll)
        , stale_(stale_first)
    {
    }
    std::string name() const override { return "scripted"; }
    std::string unavailable_reason() const override { return {}; }
    const std::vector<MetricInfo>& metrics() const override { return metrics_; }
    double poll_period_s(double) const override { return 0.0005; }
    bool first_reading_is_stale() const override { return stale_; }
    void begin() override { ++begins; }
    void poll(std::vector<RawReading>& out) override
    {
        for (int i = 0; i < per_poll_ && next_ < total_; ++i, ++next_)
            out.push_back({static_cast<double>(next_), next_ % 2, static_cast<double>(next_)});
        ++polls;
    }
    void end(std::vector<RawReading>& out) override
    {
        while (next_ < total_) {
            out.push_back({static_cast<double>(next_), next_ % 2, static_cast<double>(next_)});
            ++next_;
        }
        ++ends;
    }
    std::atomic<int> polls {0};
    std::atomic<int> begins {0};
    std::atomic<int> ends {0};

private:
    std::vector<MetricInfo> metrics_ {{"a", "%"}, {"b", "MHz"}};
    int total_, per_poll_, next_ = 0;
    bool stale_;
};

struct Collector {
    std::mutex mutex;
    std::vector<MetricReading> got;
    MetricSink sink()
    {
        return [this](const MetricReading& r) {
            std::lock_guard lock(mutex);
            got.push_back(r);
        };
    }
};

} // namespace

class TestQueuedSampler : public QObject {
    Q_OBJECT

private slots:
    void deliversEverythingInOrderWithNamesAndUnits()
    {
        auto owned = std::make_unique<ScriptedSource>(1000, 7, false);
        auto* source = owned.get();
        QueuedSampler sampler(std::move(owned));
        Collector c;
        sampler.start(c.sink(), 0.001);
        QTRY_VERIFY(source->polls.load() > 10);
        sampler.stop();
        QCOMPARE(source->ends.load(), 1);
        QCOMPARE(c.got.size(), size_t {1000});
        for (size_t i = 0; i < c.got.size(); ++i) {
            QCOMPARE(c.got[i].t_s, static_cast<double>(i));
            QCOMPARE(c.got[i].name, std::string(i % 2 ? "b" : "a"));
            QCOMPARE(c.got[i].unit, std::string(i % 2 ? "MHz" : "%"));
        }
        QCOMPARE(sampler.overflow(), 0ull);
        QVERIFY(sampler.limitations().empty()); // nothing lost: nothing to report
    }

    void dropsTheFirstReadingOfEachMetricWhenStale()
    {
        QueuedSampler sampler(std::make_unique<ScriptedSource>(10, 3, true));
        Collector c;
        sampler.start(c.sink(), 0.001);
        sampler.stop();
        QCOMPARE(c.got.size(), size_t {8}); // readings 0 (metric a) and 1 (metric b) dropped
        QCOMPARE(c.got.front().t_s, 2.0);
        QCOMPARE(c.got.back().t_s, 9.0);
    }

    void aBlockedConsumerNeitherStallsDecodingNorLosesCountOfTheOverflow()
    {
        auto owned = std::make_unique<ScriptedSource>(1 << 20, 100, false);
        auto* source = owned.get();
        QueuedSampler sampler(std::move(owned), 64);
        std::mutex gate;
        std::unique_lock held(gate); // the sink blocks until released
        std::atomic<int> delivered {0};
        sampler.start(
            [&](const MetricReading&) {
                std::lock_guard wait(gate);
                ++delivered;
            },
            0.001);
        // The decode thread keeps polling while the consumer is stuck in its first reading.
        QTRY_VERIFY(source->polls.load() > 50);
        QVERIFY(sampler.overflow() > 0);
        held.unlock();
        sampler.stop();
        // Every decoded reading was either delivered or counted as lost.
        QCOMPARE(static_cast<unsigned long long>(delivered.load()) + sampler.overflow(), sampler.decoded());
        // ... and reported: one line kwb run stamps on the experiment's limitations.
        const auto lines = sampler.limitations();
        QCOMPARE(lines.size(), size_t {1});
        QCOMPARE(lines[0],
            fmt::format(
                "scripted sampler: {} of {} readings lost to a full queue", sampler.overflow(), sampler.decoded()));
    }

    void restartsAfterStop()
    {
        auto owned = std::make_unique<ScriptedSource>(4, 4, true);
        auto* source = owned.get();
        QueuedSampler sampler(std::move(owned));
        Collector c;
        sampler.start(c.sink(), 0.001);
        sampler.stop();
        sampler.start(c.sink(), 0.001);
        sampler.stop();
        QCOMPARE(source->begins.load(), 2);
        QCOMPARE(c.got.size(), size_t {2});
    }
};

QTEST_GUILESS_MAIN(TestQueuedSampler)
#include "tst_queued_sampler.moc"
