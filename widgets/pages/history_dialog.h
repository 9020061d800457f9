// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ledger/ledger_history.h"

#include <QDialog>

class QLabel;

namespace kwb::gui {

class HistoryPlot;

// The window's view of one benchmark's history (docs/ledger.md): the plot with its change points,
// the method in words, and a click on a point opening that point's study.
class HistoryDialog : public QDialog {
    Q_OBJECT
public:
    explicit HistoryDialog(const ledger::History& history, QWidget* parent = nullptr);
    HistoryPlot* plot() const { return m_plot; }

signals:
    void openStudyRequested(const QString& path);

private:
    HistoryPlot* m_plot = nullptr;
};

} // namespace kwb::gui
