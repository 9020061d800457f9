// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plots/arm_bands.h"
#include "plots/lane_decimator.h"
#include "plots/lazy_plot.h"

#include <QElapsedTimer>
#include <QTimer>
#include <optional>
#include <qcustomplot.h>

namespace kwb::gui {

class LiveSeries;
struct LaneTrace;

// The live view of a run: every metric lane the stream carries in its own strip on one shared
// time axis, each repetition's latency in a strip above, and the arm running at each moment as a
// coloured band behind every strip. A display-rate timer pulls from the LiveSeries (never one
// redraw per event) and appends only the points that arrived since the last frame to each
// graph's data container, so a frame costs the visible points, not the run's history.
//
// Following: the time axis is a rolling window that ends at the newest reading. Zooming or
// dragging the time axis (any strip, all strips move together) stops following; follow()
// resumes it. Paused: the view freezes while the series keeps filling; resuming catches up.
// Hovering shows the time, the arm that ran then, its repetition's latency and every lane's value.
//
// Lanes: the engine's default set (kwb::default_lanes: latency lanes, occupancy, HBM, SM clock,
// power; a CPU run's CPU lanes) is drawn; the others wait behind the page's lane control. A lane
// shown or hidden there stays so in later runs (QSettings kShownKey / kHiddenKey). A percentage
// lane's axis is [0, 100] whatever it reads; each strip's name sits above its plotting area.
class LaneView : public LazyPlot {
    Q_OBJECT
public:
    explicit LaneView(QWidget* parent = nullptr);

    void setSeries(const LiveSeries* series);
    // Draws what arrived now instead of at the next tick (after a replay).
    void refresh();

    void setPaused(bool paused);
    bool isPaused() const { return m_paused; }
    void setFollowing(bool following);
    bool isFollowing() const { return m_following; }
    void setWindowSeconds(double seconds);
    double windowSeconds() const { return m_window; }
    // Zoom to [lo, hi] seconds on every strip (stops following).
    void setTimeRange(double lo, double hi);
    // The whole recording on the time axis (a replayed study; stops following).
    void showAll();
    QCPRange timeRange() const;

    struct LaneValue {
        QString name;
        QString unit;
        double t = 0; // the time of the point shown (the nearest one drawn)
        double value = 0;
    };
    struct Readout {
        bool valid = false;
        double t = 0;
        QString arm; // empty between repetitions
        int rep = -1;
        std::optional<double> latency; // the repetition's target metric
        QString unit; // of the target metric
        QList<LaneValue> lanes;
        QString text() const;
    };
    // What the strips show at time t: each lane's recorded reading nearest t among those taken in
    // (a paused view reads its frozen frame), never the decimated points a strip draws.
    Readout readoutAt(double t) const;
    // Moves the hover cursor to t (what a mouse move does); nullopt hides it.
    void hoverAt(std::optional<double> t);
    const Readout& hover() const { return m_hover; }

    // Every lane taken in, shown or not, in display order; the ones drawn; the default set.
    QStringList laneNames() const;
    QStringList shownLaneNames() const;
    QStringList defaultLaneNames() const { return m_defaults; }
    bool isLaneShown(const QString& lane) const;
    QString laneUnit(const QString& lane) const;
    // The user's choice, remembered: it overrides the default set for that lane from now on.
    void setLaneShown(const QString& lane, bool shown);
    void showDefaultLanes(); // forgets every choice
    void showAllLanes();
    static constexpr auto kShownKey = "liveView/lanesShown";
    static constexpr auto kHiddenKey = "liveView/lanesHidden";

    // For tests, the page and the benchmark: what the view has drawn.
    QCPTextElement* title() const { return m_title; }
    // Where the title's text is drawn (the element spans its whole column).
    QRect titleTextRect() const;
    int lanePointCount(const QString& lane) const; // readings taken in
    int laneGraphPointCount(const QString& lane) const; // points the strip draws (after decimation)
    // A strip draws raw readings while its visible span holds at most this many per pixel column;
    // above, the min and max of each bucket of about one column.
    static constexpr double kRawPerPixel = 2.0;
    int latencyPointCount() const;
    int spanCount() const { return static_cast<int>(m_spanBegin.size()); }
    QCPAxisRect* laneRect(const QString& lane) const;
    // The strip's name box, and the pixel row of its highest reading in view as drawn (tests: the
    // readings stay below the name).
    QRectF laneLabelRect(const QString& lane) const;
    std::optional<double> laneTopReadingPixel(const QString& lane) const;
    QCPAxisRect* latencyRect() const { return m_latencyRect; }

    // Time from a metric event's arrival (LaneTrace::arrivedNs) to the end of the replot that
    // first drew it: per frame, the oldest point drawn in it (the worst case of that frame).
    struct LatencyLog {
        QList<double> oldestMs; // one per frame that drew new lane points
        QList<double> newestMs;
        QList<double> replotMs; // every replot's duration
        QList<double> drainMs; // every tick that took new data: appending it, rescaling
        QList<double> frameMs; // each replot plus the drain before it: a frame's whole cost
        // The same frame in this thread's CPU time: what it costs whatever else the machine runs
        // (on a loaded machine the wall-clock figures above include waiting for a core).
        QList<double> frameCpuMs;
    };
    const LatencyLog& latencyLog() const { return m_log; }
    void clearLatencyLog() { m_log = {}; }

    static constexpr int kRefreshIntervalMs = 25; // 40 Hz
    // A strip's plotting area at least (its name sits above it, in its margin): tick labels at
    // 0, 50 and 100 stay apart. At 34 pixels for the whole strip 24 lanes read as a barcode.
    static constexpr int kMinLaneHeight = 40;
    static constexpr int kMinLatencyHeight = 70;

signals:
    void pausedChanged(bool paused);
    void followingChanged(bool following);
    void hoverChanged(const QString& text);
    void lanesChanged(); // a lane arrived, or one was shown or hidden

private:
    struct Lane {
        QString name;
        QString unit;
        QCPAxisRect* rect = nullptr;
        QCPGraph* graph = nullptr;
        QCPItemText* label = nullptr;
        QCPItemText* value = nullptr;
        QCPItemStraightLine* cursor = nullptr;
        qsizetype drawn = 0; // readings taken in from the series
        qsizetype fed = 0; // readings given to the decimator
        double newest = 0;
        bool sorted = true; // false: readings arrived out of time order, the strip draws them raw
        LaneDecimator decimator;
        double coveredLo = 0, coveredHi = 0; // the time span the graph's data holds
        bool fresh = true;
        int fittedWidth = -1; // the strip's pixel width when its graph was last fitted
        int scaledHeight = -1; // the strip's pixel height when its value range was last set
        int rank = 0;
        bool shown = false;
    };
    void drain();
    void rebuild();
    Lane& laneFor(const QString& name, const QString& unit);
    void decorate(QCPAxisRect* rect);
    void updateBandRects();
    QCPGraph* latencyGraph(int slot);
    void syncTimeRange(const QCPRange& range);
    void applyFollow();
    void rescaleValues();
    void fitLanes();
    void fitLane(Lane& lane, const LaneTrace& trace);
    void updateBottomAxes();
    void updateTitle();
    void placeTitle();
    void applyLaneChoice(bool relayout = false);
    void relayoutLanes();
    void saveLaneChoice() const;
    void resizeEvent(QResizeEvent* event) override;
    void onMouseMove(QMouseEvent* event);
    void onReplotted();
    double newestTime() const;
    int armSlots() const;

    const LiveSeries* m_series = nullptr;
    quint64 m_drawnRevision = ~quint64 {0};
    quint64 m_generation = ~quint64 {0};
    QTimer m_timer;
    QCPTextElement* m_title = nullptr;
    QCPLayoutGrid* m_header = nullptr;
    QString m_titleText; // before eliding to the room the legend leaves
    QStringList m_defaults;
    QStringList m_chosenShown, m_chosenHidden; // the user's choices (QSettings)
    QCPAxisRect* m_latencyRect = nullptr;
    QCPItemText* m_latencyLabel = nullptr;
    QCPMarginGroup* m_margins = nullptr;
    QList<Lane> m_lanes;
    QList<QCPGraph*> m_latency; // per arm slot (last slot: warm-ups)
    QList<qsizetype> m_latencyDrawn;
    ArmBands* m_bands = nullptr; // behind every strip
    // The repetitions drawn so far (begin-sorted as they arrive), for the hover readout.
    QList<double> m_spanBegin, m_spanEnd;
    QList<int> m_spanArm, m_spanRep;
    QStringList m_armNames;
    bool m_paused = false;
    bool m_following = true;
    bool m_settingRange = false;
    bool m_syncing = false; // one strip's range change is copied to the others once
    bool m_wholeRun = false;
    double m_window = 30.0;
    Readout m_hover;
    std::optional<double> m_hoverT;
    qint64 m_pendingOldestNs = 0;
    qint64 m_pendingNewestNs = 0;
    double m_pendingDrainMs = 0;
    double m_pendingDrainCpuMs = 0;
    double m_replotCpuStartMs = 0;
    QElapsedTimer m_replotClock;
    LatencyLog m_log;
};

} // namespace kwb::gui
