// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/binding_page.h"

#include "models/json_convert.h"
#include "models/profile_controller.h"
#include "models/study_document.h"
#include "plots/roofline_plot.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {

QString lines(const std::vector<std::string>& items, const QString& bullet)
{
    QStringList out;
    for (const auto& s : items)
        out << bullet + qs(s);
    return out.join(u'\n');
}

QString cell(const nlohmann::json& object, const char* key, int decimals)
{
    if (!object.contains(key) || !object[key].is_number())
        return u"–"_s;
    return QString::number(object[key].get<double>(), 'f', decimals);
}

void fillKeyValues(QTableWidget* table, const nlohmann::json& object)
{
    const QJsonObject o = toQJsonObject(object);
    table->setRowCount(static_cast<int>(o.size()));
    int row = 0;
    for (auto it = o.begin(); it != o.end(); ++it, ++row) {
        table->setItem(row, 0, new QTableWidgetItem(it.key()));
        table->setItem(row, 1, new QTableWidgetItem(jsonScalarText(it.value())));
    }
    table->resizeColumnToContents(0); // the names are the point: never elided
}

} // namespace

BindingPage::BindingPage(StudyDocument* document, QWidget* parent)
    : PhasePage(document, tr("3 · Binding constraint"),
        tr("Measure first: tensor or FMA pipe near peak → compute-bound; HBM > 80 % → memory-bound; 1 block/SM with "
           "smem > 90 KB → smem-bound; tensor pipe < 40 % with occupancy > 50 % → compute-suboptimal; > 200 "
           "launches/s and dispatch > 30 % of the step → launch-bound; SMs idle → scheduler; else already at the "
           "extremes → pivot axis."),
        parent)
    , m_profile(new ProfileController(document, this))
{
    setObjectName(u"bindingPage"_s);
    auto* actions = new QHBoxLayout;
    m_profileButton = new QPushButton(tr("Profile"), this);
    m_profileButton->setObjectName(u"profileButton"_s);
    m_profileButton->setToolTip(tr("Runs kwb profile on the study: a profiling pass over the first experiment's "
                                   "baseline arm (never during the timed A/B), then the license matrix"));
    m_profileStatus = valueLabel(this);
    m_profileStatus->setObjectName(u"profileStatus"_s);
    actions->addWidget(m_profileButton);
    actions->addWidget(m_profileStatus, 1);
    body()->addLayout(actions);
    connect(m_profileButton, &QPushButton::clicked, this, &BindingPage::startProfile);
    connect(m_profile, &ProfileController::finished, this, &BindingPage::onProfileFinished);

    auto* form = new QFormLayout;
    const auto named = [&](QLabel* label, const char* name) {
        label->setObjectName(QLatin1StringView(name));
        return label;
    };
    form->addRow(tr("Constraint"), m_constraint = named(valueLabel(this), "bindingConstraint"));
    QFont big = m_constraint->font();
    big.setBold(true);
    big.setPointSizeF(big.pointSizeF() * 1.3);
    m_constraint->setFont(big);
    form->addRow(tr("Suggested axis"), m_axis = named(valueLabel(this), "bindingAxis"));
    form->addRow(tr("Profiled"), m_profiled = named(valueLabel(this), "bindingProfiled"));
    form->addRow(tr("Warnings"), m_warnings = named(valueLabel(this), "bindingWarnings"));
    form->addRow(tr("Limitations"), m_limitations = named(valueLabel(this), "bindingLimitations"));
    form->addRow(tr("Why (evidence)"), m_evidence = named(valueLabel(this), "bindingEvidence"));
    form->addRow(tr("Notes"), m_notes = valueLabel(this));
    body()->addLayout(form);

    body()->addWidget(sectionLabel(tr("Kernels (profiling pass, mean of 1 ms PM samples inside each kernel)"), this));
    m_kernels = new QTableWidget(0, 10, this);
    m_kernels->setObjectName(u"bindingKernels"_s);
    m_kernels->setHorizontalHeaderLabels({tr("kernel"), tr("launches"), tr("mean ms"), tr("% of kernel time"),
        tr("DRAM %"), tr("occupancy %"), tr("tensor %"), tr("FMA %"), tr("SM %"), tr("samples")});
    m_kernels->verticalHeader()->setVisible(false);
    m_kernels->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // The figures as wide as they need, the name in what is left (elided, whole in its tooltip):
    // ten 100 px columns scrolled sideways at 1024x640.
    m_kernels->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_kernels->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_kernels->setTextElideMode(Qt::ElideMiddle);
    // A few rows, scrolled beyond: the height goes to the roofline below.
    m_kernels->setMinimumHeight(90);
    m_kernels->setMaximumHeight(150);
    body()->addWidget(m_kernels);

    auto* tables = new QHBoxLayout;
    auto* left = new QVBoxLayout;
    left->addWidget(sectionLabel(tr("Evidence (as measured)"), this));
    m_metrics = keyValueTable(this, {tr("metric"), tr("value")});
    m_metrics->setObjectName(u"bindingMetrics"_s);
    left->addWidget(m_metrics);
    auto* right = new QVBoxLayout;
    right->addWidget(sectionLabel(tr("Thresholds"), this));
    m_thresholds = keyValueTable(this, {tr("threshold"), tr("value")});
    m_thresholds->setObjectName(u"bindingThresholds"_s);
    right->addWidget(m_thresholds);
    // Where the current experiment's arms stand against the measured roofs: the constraint as a
    // picture, from the timed runs' own bytes and FLOPs.
    auto* roof = new QVBoxLayout;
    roof->addWidget(sectionLabel(tr("Roofline (the current experiment's timed A/B)"), this));
    m_roofline = new RooflinePlot(this);
    m_roofline->setObjectName(u"bindingRoofline"_s);
    roof->addWidget(m_roofline, 1);
    tables->addLayout(left, 1);
    tables->addLayout(right, 1);
    tables->addLayout(roof, 2);
    body()->addLayout(tables, 1);
}

void BindingPage::refresh()
{
    const auto& b = document()->study().binding;
    const bool profiled = !b.measured_at.empty();
    if (b.constraint.empty() && profiled)
        setValue(m_constraint, tr("not called: see the evidence"));
    else
        setValue(m_constraint, qs(b.constraint));
    setValue(m_axis, qs(b.axis));
    setValue(m_profiled,
        profiled
            ? tr("experiment %1, arm %2, by %3 at %4").arg(qs(b.experiment), qs(b.arm), qs(b.source), qs(b.measured_at))
            : QString());
    setValue(m_warnings, lines(b.warnings, u"⚠ "_s));
    if (!b.warnings.empty())
        m_warnings->setStyleSheet(u"color: #b35900; font-weight: bold;"_s);
    setValue(m_limitations, lines(b.limitations, u"• "_s));
    setValue(m_evidence, lines(b.evidence, u"• "_s));
    setValue(m_notes, qs(b.notes));

    m_kernels->setRowCount(b.kernels.is_array() ? static_cast<int>(b.kernels.size()) : 0);
    int row = 0;
    for (const auto& k : b.kernels.is_array() ? b.kernels : nlohmann::json::array()) {
        const auto m = k.value("metrics", nlohmann::json::object());
        const QStringList cells {qs(k.value("name", std::string("?"))), cell(k, "launches", 0), cell(k, "mean_ms", 4),
            cell(k, "share_pct", 1), cell(m, "dram_pct", 1), cell(m, "occupancy", 1), cell(m, "tensor_pct", 1),
            cell(m, "fma_pct", 1), cell(m, "sm_pct", 1), cell(k, "samples", 0)};
        for (int c = 0; c < cells.size(); ++c)
            m_kernels->setItem(row, c, new QTableWidgetItem(cells[c]));
        m_kernels->item(row, 0)->setToolTip(cells[0]);
        ++row;
    }
    fillKeyValues(m_metrics, b.metrics);
    fillKeyValues(m_thresholds, b.thresholds);
    m_roofline->setExperiment(document()->study(), document()->currentExperiment());
    m_profileButton->setEnabled(!m_profile->isRunning());
}

bool BindingPage::startProfile()
{
    if (!m_profile->start()) {
        m_profileStatus->setText(m_profile->lastError());
        return false;
    }
    m_profileButton->setEnabled(false);
    m_profileStatus->setText(tr("profiling: %1 %2 …").arg(m_profile->program(), m_profile->arguments().join(u' ')));
    return true;
}

void BindingPage::onProfileFinished(const QString& status)
{
    m_profileButton->setEnabled(true);
    m_profileStatus->setText(status == u"done"_s ? tr("profiled: the binding section below is the engine's call")
                                                 : tr("profile failed: %1").arg(m_profile->lastError()));
    refresh();
}

} // namespace kwb::gui
