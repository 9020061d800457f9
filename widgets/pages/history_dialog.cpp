// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/history_dialog.h"

#include "plots/history_plot.h"

#include <QLabel>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace kwb::gui {

HistoryDialog::HistoryDialog(const ledger::History& history, QWidget* parent)
    : QDialog(parent)
{
    setObjectName(u"historyDialog"_s);
    setWindowTitle(
        tr("History: %1 on %2")
            .arg(QString::fromStdString(history.benchmark_key), QString::fromStdString(history.device_model)));
    auto* layout = new QVBoxLayout(this);
    auto* title = new QLabel(u"<b>%1</b> on %2: %3 points, %4 change point(s)"_s
                                 .arg(QString::fromStdString(history.benchmark_key).toHtmlEscaped(),
                                     QString::fromStdString(history.device_model).toHtmlEscaped())
                                 .arg(history.points.size())
                                 .arg(history.change_points.size()),
        this);
    layout->addWidget(title);
    m_plot = new HistoryPlot(this);
    m_plot->setHistory(history);
    layout->addWidget(m_plot, 1);
    auto* method = new QLabel(QString::fromStdString(history.method)
            + tr(". Each point: the attempt's mean with its 95% CI; click a point to open its study."),
        this);
    method->setObjectName(u"historyMethod"_s);
    method->setWordWrap(true);
    layout->addWidget(method);
    connect(m_plot, &HistoryPlot::pointActivated, this,
        [this](const QString& path, const QString&) { emit openStudyRequested(path); });
    resize(900, 480);
}

} // namespace kwb::gui
