// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QImage>
#include <qcustomplot.h>

namespace kwb::gui {

// The arm running at each moment, as a coloured band behind every strip of the lane view: one
// rectangle per repetition from its start to its end, the full height of each strip, in its arm
// slot's colour. All strips share one time axis, so the bands are rasterised once per frame into
// a single row of pixels (the same non-antialiased rectangles, blended slot by slot as separate
// fills would be) and that row is stretched over each strip: a frame costs the pixels, not one
// polygon of thousands of vertical edges per slot and strip (which cost seconds at a 10 s window
// of 10 ms repetitions).
class ArmBands : public QCPLayerable {
public:
    explicit ArmBands(QCustomPlot* plot);

    // Colours by slot (one per arm, then the warm-ups).
    void setColors(const QList<QColor>& colors);
    // Repetitions arrive in time order of their start.
    void append(double begin, double end, int slot);
    void clear();
    // The strips to draw behind (each once, in its own rectangle).
    void setRects(const QList<QCPAxisRect*>& rects);
    qsizetype count() const { return m_begin.size(); }

protected:
    void applyDefaultAntialiasingHint(QCPPainter* painter) const override;
    void draw(QCPPainter* painter) override;

private:
    const QImage& row(const QCPAxis* x, int left, int width);

    QList<QColor> m_colors;
    QList<double> m_begin, m_end;
    QList<int> m_slot;
    double m_longest = 0; // the longest repetition: how far before the view a visible band can start
    QList<QPointer<QCPAxisRect>> m_rects;
    QImage m_row;
};

} // namespace kwb::gui
