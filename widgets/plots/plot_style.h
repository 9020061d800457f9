// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QString>

namespace kwb::gui {

// One colour per arm everywhere (live, results), so baseline is the same blue on every view.
QColor armColor(int index);
// LICENSE green, KILL red, NOISE grey, INCONCLUSIVE amber; anything else a neutral slate.
QColor verdictColor(const QString& verdict);
// "time_ms (ms)": an axis label names the metric and its unit.
QString axisLabel(const QString& metric, const QString& unit);

} // namespace kwb::gui
