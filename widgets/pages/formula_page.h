// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "formula/prediction.h"
#include "pages/phase_page.h"
#include "study/study.h"

#include <functional>

class QComboBox;
class QLineEdit;
class QPushButton;
class QTableWidgetItem;

namespace kwb::gui {

// Phase 4: the formula that predicts the change, with its magnitude. An editor evaluated live by
// the engine (formula/prediction.h): the hardware constants of the chosen GPU and the arms'
// parameters are variables beside the engineer's own; a template starts a formula; an error
// names the position and token; the predicted delta% and speedup are the formula's, never typed.
class FormulaPage : public PhasePage {
    Q_OBJECT
public:
    explicit FormulaPage(StudyDocument* document, QWidget* parent = nullptr);
    void refresh() override;

private:
    void formulaEdited(const QString& text);
    QStringList variedNames() const; // the varied parameters that are formula variables
    void refreshArmsNote(const PredictionResult& result);
    void applyTemplate();
    void gpuChosen(int index);
    void variableEdited(QTableWidgetItem* item);
    void addVariable();
    void removeVariable();
    // One undoable edit of the prediction; the engine recomputes the predicted value inside it,
    // so undo restores the formula and its value together.
    void apply(const QString& text, const std::function<void(Study&)>& change, const QString& mergeKey = {});

    QComboBox* m_templates;
    QComboBox* m_gpu;
    QLineEdit* m_formula;
    QLabel* m_error;
    QLabel* m_predicted;
    QLineEdit* m_rationale;
    QTableWidget* m_variables;
    QLabel* m_armsNote;
    QLineEdit* m_newName;
    QLineEdit* m_newValue;
    QPushButton* m_add;
    QPushButton* m_remove;
    bool m_filling = false;
};

} // namespace kwb::gui
