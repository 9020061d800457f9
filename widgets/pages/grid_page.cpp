// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/grid_page.h"

#include "models/grid_view.h"
#include "models/json_convert.h"
#include "models/study_document.h"
#include "plots/heat_map.h"
#include "study/grid.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {

// The experiment a grid is made from: the last A/B.
const Experiment* abPrototype(const Study& study)
{
    for (auto it = study.experiments.rbegin(); it != study.experiments.rend(); ++it)
        if (it->kind == "ab")
            return &*it;
    return nullptr;
}

} // namespace

GridPage::GridPage(StudyDocument* document, QWidget* parent)
    : PhasePage(document, tr("6 · Combinational A/B"),
        tr("Where variables couple (BLOCK_M × STAGES, KV format × graph capture, tile × shape), run a "
           "2×2 or 3×3 grid and read the interaction, not two separate A/Bs."),
        parent)
{
    setObjectName(u"gridPage"_s);
    auto* make = new QGridLayout;
    make->addWidget(sectionLabel(tr("Make a grid from the A/B"), this), 0, 0, 1, 4);
    m_rowVariable = new QComboBox(this);
    m_rowVariable->setObjectName(u"rowVariable"_s);
    m_colVariable = new QComboBox(this);
    m_colVariable->setObjectName(u"colVariable"_s);
    m_rowLevels = new QLineEdit(this);
    m_rowLevels->setObjectName(u"rowLevels"_s);
    m_rowLevels->setPlaceholderText(tr("levels, baseline first: 32, 64, 128"));
    m_colLevels = new QLineEdit(this);
    m_colLevels->setObjectName(u"colLevels"_s);
    m_colLevels->setPlaceholderText(tr("levels, baseline first: 1, 2"));
    for (QComboBox* box : {m_rowVariable, m_colVariable})
        box->setToolTip(tr("Playbook phase 6: a variable coupled with the other (BLOCK_M × STAGES: smem; tile × "
                           "shape); a parameter of the A/B's workload"));
    for (QLineEdit* e : {m_rowLevels, m_colLevels})
        e->setToolTip(tr("2 to 4 levels, comma separated, the baseline's level first: a 2×2 catches an "
                         "interaction, a 3×3 where the budget allows"));
    m_make = new QPushButton(tr("Make grid"), this);
    m_make->setObjectName(u"makeGrid"_s);
    m_make->setToolTip(tr("Playbook phase 6: each cell runs as its own A/B against the baseline cell, interleaved; "
                          "2 to 4 levels per variable"));
    make->addWidget(new QLabel(tr("Rows"), this), 1, 0);
    make->addWidget(m_rowVariable, 1, 1);
    make->addWidget(m_rowLevels, 1, 2);
    make->addWidget(new QLabel(tr("Columns"), this), 2, 0);
    make->addWidget(m_colVariable, 2, 1);
    make->addWidget(m_colLevels, 2, 2);
    make->addWidget(m_make, 1, 3, 2, 1);
    make->setColumnStretch(2, 1);
    body()->addLayout(make);
    m_makeStatus = valueLabel(this);
    m_makeStatus->setObjectName(u"makeStatus"_s);
    body()->addWidget(m_makeStatus);

    auto* pick = new QHBoxLayout;
    pick->addWidget(sectionLabel(tr("Grid"), this));
    m_grids = new QComboBox(this);
    m_grids->setObjectName(u"gridChoice"_s);
    m_grids->setToolTip(tr("The grid shown: delta % per cell against the baseline cell, with its CI and sigma"));
    pick->addWidget(m_grids, 1);
    m_aaArm = new QCheckBox(tr("A/A arm"), this);
    m_aaArm->setObjectName(u"gridAaArm"_s);
    m_aaArm->setToolTip(tr("A real A/A for this grid: the baseline cell's configuration runs again as its own arm, "
                           "interleaved beside the first cell to the same n; any verdict but NOISE is a false alarm "
                           "at the grid's n"));
    pick->addWidget(m_aaArm);
    body()->addLayout(pick);
    m_heatMap = new HeatMap(this);
    body()->addWidget(m_heatMap, 1);
    m_interaction = valueLabel(this);
    m_interaction->setObjectName(u"interaction"_s);
    body()->addWidget(m_interaction);
    m_aa = valueLabel(this);
    m_aa->setObjectName(u"gridAa"_s);
    body()->addWidget(m_aa);

    connect(m_make, &QPushButton::clicked, this, &GridPage::makeGrid);
    connect(m_grids, &QComboBox::currentIndexChanged, this, &GridPage::showGrid);
    connect(m_aaArm, &QCheckBox::toggled, this, [this](bool on) {
        const std::string id = m_grids->currentData().toString().toStdString();
        if (m_filling || id.empty())
            return;
        std::string problem;
        this->document()->edit(on ? tr("Add the grid's A/A arm") : tr("Remove the grid's A/A arm"),
            [&](Study& s) { problem = set_grid_aa_arm(s, id, on); });
        if (!problem.empty()) {
            m_aa->setVisible(true);
            m_aa->setText(tr("A/A arm: %1").arg(qs(problem)));
        }
    });
}

QString GridPage::aaText() const
{
    return m_aa->text();
}

void GridPage::makeGrid()
{
    // Made on a copy and committed as one undoable edit, so a refused grid changes nothing.
    Study study = document()->study();
    const Experiment* prototype = abPrototype(study);
    if (!prototype) {
        setValue(m_makeStatus, tr("No A/B to make a grid from: set up the A/B (phase 5) first."));
        return;
    }
    const Experiment copy = *prototype;
    std::vector<GridVariable> variables;
    std::string problem;
    for (const auto& [combo, edit] : {std::pair {m_rowVariable, m_rowLevels}, std::pair {m_colVariable, m_colLevels}}) {
        GridVariable v {combo->currentText().toStdString(), {}};
        const nlohmann::json like = copy.arms.front().params.value(v.name, nlohmann::json());
        for (const QString& text : edit->text().split(u',', Qt::SkipEmptyParts)) {
            v.levels.push_back(grid_level_from_text(like, text.toStdString(), problem));
            if (!problem.empty())
                break;
        }
        if (!problem.empty()) {
            problem = v.name + ": " + problem;
            break;
        }
        variables.push_back(std::move(v));
    }
    if (problem.empty())
        problem = add_grid(study, copy, std::move(variables));
    if (!problem.empty()) {
        m_makeStatus->setText(tr("Not made: %1").arg(qs(problem)));
        m_makeStatus->setStyleSheet(u"color: #c62828;"_s);
        return;
    }
    const QString id = qs(study.grids.back().id);
    if (!document()->edit(tr("Make the grid %1").arg(id), [&study](Study& s) { s = std::move(study); })) {
        m_makeStatus->setText(tr("Not made: %1").arg(document()->lastError()));
        return;
    }
    m_makeStatus->setText(tr("Made %1: Run executes its cells.").arg(id));
    m_makeStatus->setStyleSheet(QString());
    m_grids->setCurrentIndex(m_grids->count() - 1);
}

void GridPage::refresh()
{
    const Study& study = document()->study();
    const Experiment* prototype = abPrototype(study);
    const QString rowWas = m_rowVariable->currentText();
    const QString colWas = m_colVariable->currentText();
    m_rowVariable->clear();
    m_colVariable->clear();
    if (prototype && !prototype->arms.empty())
        for (const auto& [name, value] : prototype->arms.front().params.items()) {
            m_rowVariable->addItem(qs(name));
            m_colVariable->addItem(qs(name));
        }
    m_rowVariable->setCurrentText(rowWas);
    m_colVariable->setCurrentText(colWas.isEmpty() && m_colVariable->count() > 1 ? m_colVariable->itemText(1) : colWas);
    m_make->setEnabled(prototype != nullptr);
    if (!prototype)
        setValue(m_makeStatus, tr("A grid is made from the study's A/B (phase 5): there is none yet."));

    const QString wasGrid = m_grids->currentText();
    {
        const QSignalBlocker block(m_grids);
        m_grids->clear();
        for (const auto& g : study.grids)
            m_grids->addItem(tr("%1: %2 × %3")
                                 .arg(qs(g.id), g.variables.size() == 2 ? qs(g.variables[0].name) : QString(),
                                     g.variables.size() == 2 ? qs(g.variables[1].name) : QString()),
                qs(g.id));
        const int again = m_grids->findText(wasGrid);
        m_grids->setCurrentIndex(again >= 0 ? again : m_grids->count() - 1);
    }
    showGrid();
}

void GridPage::showGrid()
{
    const Study& study = document()->study();
    const GridGroup* grid = find_grid(study, m_grids->currentData().toString().toStdString());
    m_filling = true;
    m_aaArm->setEnabled(grid != nullptr);
    m_aaArm->setChecked(grid && grid_aa_cell(study, *grid));
    m_filling = false;
    if (!grid) {
        m_aa->setVisible(false);
        m_heatMap->setGrid({});
        setValue(m_interaction,
            study.grids.empty() ? tr("This study has no grid: its variable is judged on its own "
                                     "by the A/B. Make one above where two variables may couple.")
                                : QString());
        return;
    }
    const GridView view = gridView(study, *grid);
    m_heatMap->setGrid(view);
    QString text;
    if (view.hasInteraction) {
        text = (view.flagged ? tr("⚠ Interaction: ") : tr("Interaction: ")) + view.interactionSummary;
        // The engine's summary of a grid beyond 2x2 names the two-way test already; a 2x2's not.
        if (view.pTwoWay && view.twoByTwo)
            text += tr("  (two-way test p = %1)").arg(*view.pTwoWay, 0, 'g', 3);
    } else {
        text = tr("Interaction: waiting for %1 to be judged (Run executes the pending cells).")
                   .arg(view.pending.join(u", "_s));
    }
    m_interaction->setText(text);
    m_interaction->setStyleSheet(view.flagged ? u"color: #c62828; font-weight: bold;"_s : QString());
    m_aa->setVisible(view.hasAaArm);
    m_aa->setText(view.aaLine);
    m_aa->setStyleSheet(view.aaFalseAlarm ? u"color: #c62828;"_s : QString());
}

} // namespace kwb::gui
