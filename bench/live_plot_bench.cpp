// SPDX-License-Identifier: GPL-3.0-or-later
// The live view's throughput, offscreen (issue 10: "points per second it sustains with frame
// times under 16 ms, goal >= 100,000"). For each offered rate, a producer timer (every 5 ms)
// appends readings to a LiveSeries in real time, round-robin over `lanes` lanes, plus one
// repetition every 10 ms alternating two arms (latency points and bands); the real LaneView,
// shown at WxH, drains it on its own display timer and replots, for `seconds` seconds.
//   --stream: the readings go through the progress-stream path instead (JSON `metric` lines
//             parsed by StreamParser, as RunController does), so parsing is in the frame budget.
// Per rate and repeat it reports: offered and drawn points per second, frames, the frame time
// (drain: appending the new points and rescaling; replot: rendering every strip) as median, p95,
// p99 and max, and the time from a reading's arrival to the end of the replot that first drew
// it (oldest and newest point of each frame). Frame times are given in wall-clock time and in the
// GUI thread's CPU time (the latter does not count waiting for a core on a loaded machine).
//   --frames N: a fixed number of frames in simulated time instead (for callgrind and for CPU time
//             on a loaded machine): the series is filled with one window of readings, then each
//             frame adds one display tick (25 ms) of readings and repetitions and the view drains
//             and replots at once. The same input gives the same frames whatever the load, so
//             `valgrind --tool=callgrind --toggle-collect='*frameOnce*'` counts the instructions of
//             exactly N frames (drain, replot and the paint to the window). --screenshot PNG saves
//             the last frame (to compare builds pixel by pixel).
// Prints one JSON object.
#include "models/live_series.h"
#include "models/stream_parser.h"
#include "plots/lane_view.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QPixmap>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

using namespace Qt::StringLiterals;
using kwb::gui::LaneView;
using kwb::gui::LiveSeries;
using kwb::gui::StreamEvent;
using kwb::gui::StreamParser;

namespace {

struct Options {
    int lanes = 16;
    double seconds = 15;
    double window = 10;
    int width = 1600;
    int height = 1000;
    int repeats = 3;
    bool stream = false;
    int frames = 0; // > 0: fixed frames in simulated time
    QString screenshot;
    std::vector<double> rates {25000, 50000, 100000, 200000, 400000};
};

double quantile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const double pos = p * double(v.size() - 1);
    const auto lo = static_cast<size_t>(pos);
    const auto hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - double(lo)) * (v[hi] - v[lo]);
}

nlohmann::json summary(const QList<double>& list)
{
    std::vector<double> v(list.begin(), list.end());
    return {{"n", v.size()}, {"median", quantile(v, 0.5)}, {"p95", quantile(v, 0.95)}, {"p99", quantile(v, 0.99)},
        {"max", v.empty() ? 0.0 : *std::max_element(v.begin(), v.end())}};
}

double threadCpuMs()
{
    timespec ts {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// The readings and repetitions of the live run, in simulated time.
struct Producer {
    LiveSeries& series;
    QStringList names;
    double rate;
    qint64 offered = 0;
    int reps = 0;

    void until(double now)
    {
        const auto due = static_cast<qint64>(now * rate);
        for (; offered < due; ++offered) {
            const double t = static_cast<double>(offered) / rate;
            const int lane = static_cast<int>(offered % names.size());
            series.addLaneValue(
                names[lane], u"%"_s, t, 50 + 30 * std::sin(t * 3 + lane) + (offered % 9973 == 0 ? 40 : 0));
        }
        for (; (reps + 1) * 0.01 <= now; ++reps)
            series.addSample(reps % 2 ? u"treatment"_s : u"baseline"_s, (reps + 1) * 0.01, 10 - (reps % 2) * 2.0 + 0.1,
                false, 0.009);
    }
};

// One frame as the display timer makes it: drain, then the queued replot and the paint it asks
// for. Not inlined: callgrind collects inside this function only (--toggle-collect).
[[gnu::noinline]] void frameOnce(LaneView& view)
{
    view.refresh();
    QCoreApplication::sendPostedEvents(); // the queued replot
    QCoreApplication::processEvents(); // the paint it requested
}

nlohmann::json framesRun(const Options& o, double rate)
{
    LiveSeries series;
    series.setPlan({u"baseline"_s, u"treatment"_s}, u"time_ms"_s, u"ms"_s);
    LaneView view;
    view.resize(o.width, o.height);
    view.setWindowSeconds(o.window);
    view.show();
    view.setSeries(&series);
    Producer producer {series, {}, rate};
    for (int i = 0; i < o.lanes; ++i)
        producer.names << u"lane_%1"_s.arg(i, 2, 10, QChar(u'0'));
    for (const auto& n : producer.names)
        view.setLaneShown(n, true); // every lane drawn, not only the default set: the cost measured is N strips
    // A full window first, so every frame measured scrolls a full strip.
    double now = o.window;
    producer.until(now);
    frameOnce(view);
    frameOnce(view);
    view.clearLatencyLog();
    QList<double> totalCpu;
    constexpr double kTick = LaneView::kRefreshIntervalMs / 1000.0;
    for (int f = 0; f < o.frames; ++f) {
        now += kTick;
        producer.until(now);
        const double cpu0 = threadCpuMs();
        frameOnce(view);
        totalCpu.append(threadCpuMs() - cpu0);
    }
    if (!o.screenshot.isEmpty()) {
        const QString path = o.screenshot.endsWith(".png"_L1) ? o.screenshot.chopped(4) : o.screenshot;
        view.grab().save(u"%1-%2.png"_s.arg(path).arg(static_cast<qint64>(rate)));
    }
    const auto& log = view.latencyLog();
    return {{"offered_pts_per_s", rate}, {"frames", log.frameCpuMs.size()}, {"points_per_frame", rate * kTick},
        {"drawn_points", producer.offered}, {"frame_cpu_ms", summary(log.frameCpuMs)},
        {"frame_with_paint_cpu_ms", summary(totalCpu)}, {"drain_ms", summary(log.drainMs)},
        {"replot_ms", summary(log.replotMs)}, {"frame_ms", summary(log.frameMs)}};
}

nlohmann::json runOnce(const Options& o, double rate)
{
    LiveSeries series;
    series.setPlan({u"baseline"_s, u"treatment"_s}, u"time_ms"_s, u"ms"_s);
    LaneView view;
    view.resize(o.width, o.height);
    view.setWindowSeconds(o.window);
    view.show();
    view.setSeries(&series);
    QStringList names;
    for (int i = 0; i < o.lanes; ++i)
        names << u"lane_%1"_s.arg(i, 2, 10, QChar(u'0'));
    for (const auto& n : names)
        view.setLaneShown(n, true); // every lane drawn, not only the default set
    StreamParser parser;

    QElapsedTimer clock;
    qint64 offered = 0;
    int reps = 0;
    QTimer producer;
    producer.setInterval(5);
    QObject::connect(&producer, &QTimer::timeout, [&] {
        const double now = static_cast<double>(clock.nsecsElapsed()) / 1e9;
        const auto due = static_cast<qint64>(now * rate);
        QByteArray lines;
        for (; offered < due; ++offered) {
            const double t = static_cast<double>(offered) / rate;
            const int lane = static_cast<int>(offered % o.lanes);
            // A wave with a spike now and then, so the strips have something to draw.
            const double v = 50 + 30 * std::sin(t * 3 + lane) + (offered % 9973 == 0 ? 40 : 0);
            if (o.stream)
                lines += fmt::format(R"({{"type":"metric","v":1,"t_s":{:.6f},"name":"{}","value":{:.4f},"unit":"%"}})"
                                     "\n",
                    t, names[lane].toStdString(), v)
                             .c_str();
            else
                series.addLaneValue(names[lane], u"%"_s, t, v);
        }
        if (o.stream)
            for (const StreamEvent& e : parser.feed(lines))
                if (e.type == StreamEvent::Type::Metric)
                    series.addLaneValue(e.object.value("name"_L1).toString(), e.object.value("unit"_L1).toString(),
                        e.object.value("t_s"_L1).toDouble(), e.object.value("value"_L1).toDouble());
        for (; (reps + 1) * 0.01 <= now; ++reps)
            series.addSample(reps % 2 ? u"treatment"_s : u"baseline"_s, (reps + 1) * 0.01, 10 - (reps % 2) * 2.0 + 0.1,
                false, 0.009);
    });
    clock.start();
    producer.start();
    QEventLoop loop;
    QTimer::singleShot(static_cast<int>(o.seconds * 1000), &loop, &QEventLoop::quit);
    loop.exec();
    producer.stop();
    const double elapsed = static_cast<double>(clock.nsecsElapsed()) / 1e9;
    qint64 drawn = 0;
    for (const auto& n : view.laneNames())
        drawn += view.lanePointCount(n);
    const auto& log = view.latencyLog();
    const auto frames = log.frameMs.size();
    return {{"offered_pts_per_s", rate}, {"offered_points", offered},
        {"drawn_pts_per_s", static_cast<double>(drawn) / elapsed}, {"drawn_points", drawn},
        {"backlog_points", offered - drawn}, {"seconds", elapsed}, {"frames", frames},
        {"frames_per_s", static_cast<double>(frames) / elapsed}, {"frame_ms", summary(log.frameMs)},
        {"frame_cpu_ms", summary(log.frameCpuMs)}, {"drain_ms", summary(log.drainMs)},
        {"replot_ms", summary(log.replotMs)}, {"arrival_to_screen_oldest_ms", summary(log.oldestMs)},
        {"arrival_to_screen_newest_ms", summary(log.newestMs)}};
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    Options o;
    const QStringList args = app.arguments();
    for (qsizetype i = 1; i < args.size(); ++i) {
        const QString& a = args[i];
        const QString next = i + 1 < args.size() ? args[i + 1] : QString();
        if (a == "--lanes"_L1)
            o.lanes = next.toInt(), ++i;
        else if (a == "--seconds"_L1)
            o.seconds = next.toDouble(), ++i;
        else if (a == "--window"_L1)
            o.window = next.toDouble(), ++i;
        else if (a == "--repeats"_L1)
            o.repeats = next.toInt(), ++i;
        else if (a == "--size"_L1) {
            const auto wh = next.split(u'x');
            o.width = wh.value(0).toInt();
            o.height = wh.value(1).toInt();
            ++i;
        } else if (a == "--stream"_L1)
            o.stream = true;
        else if (a == "--frames"_L1)
            o.frames = next.toInt(), ++i;
        else if (a == "--screenshot"_L1)
            o.screenshot = next, ++i;
        else if (a == "--rates"_L1) {
            o.rates.clear();
            for (const auto& r : next.split(u','))
                o.rates.push_back(r.toDouble());
            ++i;
        } else {
            std::fprintf(stderr,
                "usage: kwb_bench_live_plot [--lanes N] [--seconds S] [--window S] [--repeats N] [--size WxH] "
                "[--rates R1,R2,...] [--stream] [--frames N [--screenshot PNG]]\n");
            return 2;
        }
    }
    nlohmann::json out {{"lanes", o.lanes}, {"seconds", o.seconds}, {"window_s", o.window},
        {"size", fmt::format("{}x{}", o.width, o.height)}, {"path", o.stream ? "stream" : "series"},
        {"display_tick_ms", LaneView::kRefreshIntervalMs}, {"runs", nlohmann::json::array()}};
    if (o.frames > 0)
        out["fixed_frames"] = o.frames;
    for (const double rate : o.rates)
        for (int r = 0; r < o.repeats; ++r) {
            auto run = o.frames > 0 ? framesRun(o, rate) : runOnce(o, rate);
            run["repeat"] = r;
            std::fprintf(stderr, "%s\n", run.dump().c_str());
            out["runs"].push_back(run);
        }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
}
