// SPDX-License-Identifier: GPL-3.0-or-later
#include "history_action.h"

#include "ledger/ledger_history.h"
#include "ledger/ledger_query.h"
#include "ledger/ledger_row.h"
#include "main_window.h"
#include "pages/history_dialog.h"

namespace kwb::gui {

HistoryDialog* makeHistoryDialog(MainWindow& window, const QString& key, const QString& device, QString* error)
{
    try {
        ledger::Database db(ledger::ledger_path());
        std::string k = key.toStdString();
        if (k.empty()) {
            const Study& study = window.document()->study();
            if (study.experiments.empty())
                throw ledger::LedgerError("the study has no experiment: no benchmark to look up");
            k = ledger::benchmark_key(study.experiments.front());
        }
        const auto history = ledger::load_history(db, ledger::resolve_key(db, k), device.toStdString());
        auto* dialog = new HistoryDialog(history, &window);
        QObject::connect(dialog, &HistoryDialog::openStudyRequested, &window, [&window](const QString& path) {
            if (window.maySwitchStudy())
                window.openStudy(path);
        });
        return dialog;
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return nullptr;
    }
}

} // namespace kwb::gui
