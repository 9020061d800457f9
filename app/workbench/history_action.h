// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// View > Benchmark history (docs/ledger.md): the ledger's history of a benchmark key (default: the
// open study's first experiment's) in a dialog over the window; a click on a point opens its study.
#include <QString>

namespace kwb::gui {

class HistoryDialog;
class MainWindow;

// The dialog (not shown yet), or nullptr with `error` set: no ledger, an unknown key or device.
HistoryDialog* makeHistoryDialog(MainWindow& window, const QString& key, const QString& device, QString* error);

} // namespace kwb::gui
