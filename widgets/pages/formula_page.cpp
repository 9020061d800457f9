// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/formula_page.h"

#include "formula/formula_templates.h"
#include "formula/formula_variables.h"
#include "formula/prediction.h"
#include "hardware/gpu_catalogue.h"
#include "models/json_convert.h"
#include "models/study_document.h"
#include "models/workload_catalog.h"
#include "study/arm_diff.h"
#include "study/arm_roles.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace kwb::gui {

using namespace Qt::StringLiterals;

FormulaPage::FormulaPage(StudyDocument* document, QWidget* parent)
    : PhasePage(document, tr("4 · Formula"),
        tr("Predict the delta from hardware × workload constants, with its magnitude. "
           "No formula, no run."),
        parent)
{
    setObjectName(u"formulaPage"_s);
    auto* form = new QFormLayout;
    auto* templateRow = new QHBoxLayout;
    m_templates = new QComboBox(this);
    m_templates->setObjectName(u"formulaTemplate"_s);
    for (const auto& t : formula_templates())
        m_templates->addItem(qs(t.title), qs(t.id));
    auto* use = new QPushButton(tr("Use template"), this);
    use->setObjectName(u"useTemplate"_s);
    use->setToolTip(tr("Replaces the formula; adds its inputs with example values (kept where already typed)"));
    templateRow->addWidget(m_templates, 1);
    templateRow->addWidget(use);
    form->addRow(tr("Template"), templateRow);
    m_gpu = new QComboBox(this);
    m_gpu->setObjectName(u"formulaGpu"_s);
    m_gpu->addItem(tr("the study's recorded GPU"), QString());
    for (const auto& p : gpu_parts())
        m_gpu->addItem(tr("%1 (%2)").arg(qs(p.name), qs(p.arch)), qs(p.match));
    m_gpu->setToolTip(tr("Whose catalogue figures give the hardware constants (resources/gpus.json)"));
    form->addRow(tr("Hardware constants of"), m_gpu);
    m_formula = new QLineEdit(this);
    m_formula->setObjectName(u"formulaEdit"_s);
    m_formula->setFont(QFont(u"monospace"_s));
    m_formula->setToolTip(tr("Playbook phase 4: predicted delta % = f(hardware constants, workload constants, "
                             "tunable), with its magnitude, not just its sign. Positive = better. No formula, no "
                             "run. Evaluated live (muParser); an error points at the bad token."));
    form->addRow(tr("Formula (delta %)"), m_formula);
    m_error = new QLabel(this);
    m_error->setObjectName(u"formulaError"_s);
    m_error->setFont(QFont(u"monospace"_s));
    m_error->setStyleSheet(u"color: #c62828;"_s);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(QString(), m_error);
    m_predicted = valueLabel(this);
    m_predicted->setObjectName(u"predicted"_s);
    form->addRow(tr("Predicted"), m_predicted);
    m_rationale = new QLineEdit(this);
    m_rationale->setObjectName(u"rationale"_s);
    m_rationale->setPlaceholderText(tr("why this model applies: the binding constraint it addresses"));
    m_rationale->setToolTip(tr("Playbook phase 4: which binding constraint (phase 3) the formula models and what "
                               "it leaves out (e.g. \"frees +1 block/SM but doubles the outer-loop iterations\")"));
    form->addRow(tr("Rationale"), m_rationale);
    body()->addLayout(form);

    body()->addWidget(
        sectionLabel(tr("Variables (hardware and arms are read from the study; yours are editable)"), this));
    m_variables = keyValueTable(this, {tr("name"), tr("value"), tr("source"), tr("unit / origin")});
    m_variables->setObjectName(u"formulaVariables"_s);
    m_variables->setToolTip(tr("Hardware constants (the chosen GPU), the arms' parameters (baseline_<name>, "
                               "treatment_<name>) and yours. Double-click a value to override it; the formula's own "
                               "variables are bold."));
    m_variables->setEditTriggers(
        QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed | QAbstractItemView::AnyKeyPressed);
    m_variables->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_variables->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_variables->horizontalHeader()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    body()->addWidget(m_variables, 1);
    // Which arm variables exist: the varied parameter's names once phase 5 has arms, and before
    // that a line saying they come with the arms (an example naming them would fail until then).
    m_armsNote = valueLabel(this);
    m_armsNote->setObjectName(u"formulaArmsNote"_s);
    body()->addWidget(m_armsNote);
    auto* addRow = new QHBoxLayout;
    m_newName = new QLineEdit(this);
    m_newName->setObjectName(u"newVariableName"_s);
    m_newName->setPlaceholderText(tr("name (letters, digits, _)"));
    m_newName->setToolTip(tr("A workload constant of your own (e.g. iter_ns, launches per step): letters, digits "
                             "and _, not starting with a digit; it overrides a hardware or arm value of that name"));
    m_newValue = new QLineEdit(this);
    m_newValue->setObjectName(u"newVariableValue"_s);
    m_newValue->setPlaceholderText(tr("value"));
    m_newValue->setToolTip(tr("The constant's value, a plain number in the unit the formula expects"));
    m_templates->setToolTip(tr("Playbook phase 4 templates: occupancy from shared memory per block, roofline time, "
                               "launch overhead, loop-iteration cost"));
    m_add = new QPushButton(tr("Add variable"), this);
    m_add->setObjectName(u"addVariable"_s);
    m_remove = new QPushButton(tr("Remove selected"), this);
    m_add->setToolTip(tr("Add the constant to the study's variables"));
    m_remove->setToolTip(tr("Remove the selected variable of your own (hardware and arm values stay)"));
    m_remove->setObjectName(u"removeVariable"_s);
    addRow->addWidget(m_newName, 2);
    addRow->addWidget(m_newValue, 1);
    addRow->addWidget(m_add);
    addRow->addWidget(m_remove);
    body()->addLayout(addRow);

    connect(m_formula, &QLineEdit::textEdited, this, &FormulaPage::formulaEdited);
    connect(use, &QPushButton::clicked, this, &FormulaPage::applyTemplate);
    connect(m_gpu, &QComboBox::activated, this, &FormulaPage::gpuChosen);
    connect(m_variables, &QTableWidget::itemChanged, this, &FormulaPage::variableEdited);
    connect(m_add, &QPushButton::clicked, this, &FormulaPage::addVariable);
    connect(m_remove, &QPushButton::clicked, this, &FormulaPage::removeVariable);
    connect(m_rationale, &QLineEdit::textEdited, this, [this](const QString& text) {
        apply(
            tr("Edit the rationale"), [t = text.toStdString()](Study& s) { s.prediction.rationale = t; },
            u"rationale"_s);
    });
}

void FormulaPage::apply(const QString& text, const std::function<void(Study&)>& change, const QString& mergeKey)
{
    document()->edit(
        text,
        [&change](Study& s) {
            change(s);
            refresh_prediction(s);
        },
        mergeKey);
}

void FormulaPage::formulaEdited(const QString& text)
{
    apply(
        tr("Edit the formula"), [t = text.toStdString()](Study& s) { s.prediction.formula = t; }, u"formula"_s);
}

void FormulaPage::applyTemplate()
{
    if (const auto* t = find_formula_template(m_templates->currentData().toString().toStdString()))
        apply(tr("Use the template %1").arg(qs(t->title)), [t](Study& s) {
            apply_formula_template(s, *t);
            if (s.prediction.rationale.empty())
                s.prediction.rationale = t->assumption;
        });
}

void FormulaPage::gpuChosen(int index)
{
    const std::string gpu = m_gpu->itemData(index).toString().toStdString();
    if (gpu != document()->study().prediction.gpu)
        apply(tr("Take the hardware constants of %1").arg(m_gpu->itemText(index)),
            [gpu](Study& s) { s.prediction.gpu = gpu; });
}

void FormulaPage::variableEdited(QTableWidgetItem* item)
{
    if (m_filling || item->column() != 1)
        return;
    const QString name = m_variables->item(item->row(), 0)->text();
    bool ok = false;
    const double value = item->text().toDouble(&ok);
    if (!ok) {
        m_error->setText(tr("%1: '%2' is not a number").arg(name, item->text()));
        refresh();
        return;
    }
    // Editing a hardware or arm value makes it the engineer's own (it then overrides the source).
    apply(tr("Set %1 = %2").arg(name).arg(value),
        [n = name.toStdString(), value](Study& s) { s.prediction.variables[n] = value; });
}

void FormulaPage::addVariable()
{
    const std::string name = m_newName->text().trimmed().toStdString();
    bool ok = false;
    const double value = m_newValue->text().toDouble(&ok);
    if (!is_formula_name(name) || !ok) {
        m_error->setText(!is_formula_name(name)
                ? tr("'%1' is not a name a formula can use: letters, digits and _, not starting with a digit, "
                     "not a function name (e.g. %2)")
                      .arg(qs(name), qs(to_formula_name(name)))
                : tr("'%1' is not a number").arg(m_newValue->text()));
        return;
    }
    m_newName->clear();
    m_newValue->clear();
    apply(tr("Add the variable %1").arg(qs(name)), [name, value](Study& s) { s.prediction.variables[name] = value; });
}

void FormulaPage::removeVariable()
{
    const int row = m_variables->currentRow();
    if (row < 0 || m_variables->item(row, 2)->text() != u"study"_s)
        return;
    const std::string name = m_variables->item(row, 0)->text().toStdString();
    apply(tr("Remove the variable %1").arg(qs(name)), [name](Study& s) { s.prediction.variables.erase(name); });
}

QStringList FormulaPage::variedNames() const
{
    // The arm diff is the engine's (study/arm_diff.h); its parameters are variables when numeric.
    QStringList names;
    const Experiment* e = formula_experiment(document()->study());
    const AbArms pair = e ? ab_arms(*e) : AbArms {};
    if (!pair)
        return names;
    // The variable of a parameter is the engine's (arm_variables: baseline_<formula name>).
    const auto arms = arm_variables(*e);
    for (const auto& d : diff_arm_pair(*pair.baseline, *pair.treatment, experimentDefaults(*e)).differences)
        for (const FormulaVariable& v : arms)
            if (v.source == "baseline arm" && v.note.rfind("parameter '" + d.name + "'", 0) == 0)
                names << qs(v.name.substr(std::string_view("baseline_").size()));
    return names;
}

void FormulaPage::refreshArmsNote(const PredictionResult& r)
{
    const bool armsExist = std::any_of(r.variables.begin(), r.variables.end(),
        [](const FormulaVariable& v) { return v.name.rfind("baseline_", 0) == 0 && v.source == "baseline arm"; });
    const QStringList varied = variedNames();
    if (!varied.isEmpty()) {
        const QString& v = varied.front();
        m_formula->setPlaceholderText(tr("e.g. 100 * (1 - baseline_%1 / treatment_%1)").arg(v));
        QStringList pairs;
        for (const QString& name : varied)
            pairs << u"baseline_%1, treatment_%1"_s.arg(name);
        setValue(m_armsNote, tr("The varied parameter: %1 (from the arms of phase 5).").arg(pairs.join(u"; "_s)));
    } else if (armsExist) {
        m_formula->setPlaceholderText(tr("e.g. 100 * (1 - t_baseline / t_treatment), with your own constants"));
        setValue(m_armsNote,
            tr("The arms' numeric parameters are variables (baseline_<name>, treatment_<name>); "
               "no numeric parameter differs between them yet (phase 5)."));
    } else {
        m_formula->setPlaceholderText(tr("e.g. 100 * (1 - t_baseline / t_treatment), with your own constants"));
        setValue(m_armsNote,
            tr("The arms' parameters (baseline_<name>, treatment_<name>) become variables once the "
               "A/B has its arms (phase 5); until then the hardware constants and yours are "
               "listed."));
    }
}

void FormulaPage::refresh()
{
    const Study& study = document()->study();
    const auto& p = study.prediction;
    if (m_formula->text() != qs(p.formula))
        m_formula->setText(qs(p.formula));
    if (m_rationale->text() != qs(p.rationale)) {
        m_rationale->setText(qs(p.rationale));
        if (!m_rationale->hasFocus())
            m_rationale->setCursorPosition(0); // a long rationale reads from its start
    }
    m_gpu->setCurrentIndex(std::max(0, m_gpu->findData(qs(p.gpu))));

    const PredictionResult r = evaluate_prediction(study);
    if (r.evaluation.error) {
        const auto& e = *r.evaluation.error;
        QString text = qs(e.text());
        if (e.offset >= 0) // the formula again with a caret under the bad token
            text = qs(p.formula) + u'\n' + QString(e.offset, u' ') + u'^' + u'\n' + text;
        m_error->setText(text);
        m_error->setVisible(true);
        setValue(m_predicted, QString());
    } else {
        m_error->clear();
        m_error->setVisible(false);
        const QString direction = r.direction == Direction::Lower ? tr("lower is better") : tr("higher is better");
        QString text = tr("delta %1%2 %").arg(*r.delta_pct > 0 ? u"+"_s : QString()).arg(*r.delta_pct, 0, 'f', 2);
        text += r.speedup ? tr(", speedup %1×").arg(*r.speedup, 0, 'f', 3) : tr(", no speedup ratio");
        text += tr("  (%1, %2; positive = better)").arg(qs(study.target.metric), direction);
        setValue(m_predicted, text);
    }

    refreshArmsNote(r);

    m_filling = true;
    m_variables->setRowCount(static_cast<int>(r.variables.size()));
    int row = 0;
    for (const auto& v : r.variables) {
        const bool used
            = std::find(r.evaluation.used.begin(), r.evaluation.used.end(), v.name) != r.evaluation.used.end();
        auto* name = new QTableWidgetItem(qs(v.name));
        name->setFlags(name->flags() & ~Qt::ItemIsEditable);
        QFont f = name->font();
        f.setBold(used); // the formula's own variables stand out
        name->setFont(f);
        auto* value = new QTableWidgetItem(QString::number(v.value, 'g', 10));
        value->setToolTip(tr("%1 (%2). Double-click to type your own value: it then overrides this one.")
                              .arg(qs(v.name), qs(v.note)));
        name->setToolTip(qs(v.note));
        auto* source = new QTableWidgetItem(qs(v.source));
        source->setFlags(source->flags() & ~Qt::ItemIsEditable);
        auto* note = new QTableWidgetItem(qs(v.note));
        note->setFlags(note->flags() & ~Qt::ItemIsEditable);
        note->setToolTip(qs(v.note));
        m_variables->setItem(row, 0, name);
        m_variables->setItem(row, 1, value);
        m_variables->setItem(row, 2, source);
        m_variables->setItem(row, 3, note);
        ++row;
    }
    m_filling = false;
}

} // namespace kwb::gui
