// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <qcustomplot.h>

namespace kwb::gui {

// A QCustomPlot that draws only while it is shown. Qt delivers no resize event to a hidden
// widget, so a hidden plot's paint buffers have no size yet and replotting it only produces
// "QPainter::begin" warnings; the plot catches up when it is shown instead.
class LazyPlot : public QCustomPlot {
public:
    using QCustomPlot::QCustomPlot;

protected:
    void replotWhenVisible()
    {
        if (isVisible())
            replot(rpQueuedReplot);
    }

    void showEvent(QShowEvent* event) override
    {
        QCustomPlot::showEvent(event);
        replot(rpQueuedReplot);
    }
};

} // namespace kwb::gui
