// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/phase_page.h"
#include "study/study.h"

class QComboBox;
class QLineEdit;

namespace kwb::gui {

// Phase 1: one metric, from X to Y, and the K/R/W triple, edited here. The metric comes from the
// workload's metric list (its unit and direction with it); both numbers are required. After a
// run the page sets the target beside what the experiment measured (engine: check_target).
class TargetPage : public PhasePage {
    Q_OBJECT
public:
    explicit TargetPage(StudyDocument* document, QWidget* parent = nullptr);
    void refresh() override;

private:
    QString workloadName() const;
    void metricChosen();
    void numbersEdited();
    void textEdited(QLineEdit* edit, std::string Target::*field, const QString& what);
    void profileChosen();

    QLineEdit* m_name;
    QComboBox* m_workloadBox;
    QComboBox* m_metricBox;
    QLabel* m_direction;
    QLineEdit* m_current;
    QLineEdit* m_goal;
    QLabel* m_fromTo;
    QLineEdit* m_kernel;
    QLineEdit* m_reference;
    QLineEdit* m_workload;
    QComboBox* m_profileBox;
    QLabel* m_profileNumbers;
    QLabel* m_gate;
    QLabel* m_measured;
};

} // namespace kwb::gui
