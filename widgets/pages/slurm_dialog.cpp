// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/slurm_dialog.h"

#include "models/study_document.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {
const char* const kColumns[] = {"id", "state", "slurm_job", "slurm_state", "slurm_reason", "samples", "detail"};
}

SlurmDialog::SlurmDialog(StudyDocument* document, const QString& program, QWidget* parent)
    : QDialog(parent)
    , m_document(document)
    , m_program(program)
    , m_partition(new QLineEdit(this))
    , m_gpus(new QSpinBox(this))
    , m_time(new QLineEdit(this))
    , m_extra(new QLineEdit(this))
    , m_submit(new QPushButton(tr("Submit"), this))
    , m_refresh(new QPushButton(tr("Refresh"), this))
    , m_resubmit(new QPushButton(tr("Resubmit"), this))
    , m_collect(new QPushButton(tr("Collect"), this))
    , m_table(new QTableWidget(0, std::size(kColumns), this))
    , m_log(new QPlainTextEdit(this))
{
    setWindowTitle(tr("Slurm — %1").arg(document->filePath()));
    setObjectName(u"slurmDialog"_s);
    m_partition->setObjectName(u"slurmPartition"_s);
    m_partition->setPlaceholderText(tr("the cluster's default"));
    m_gpus->setObjectName(u"slurmGpus"_s);
    m_gpus->setRange(-1, 16);
    m_gpus->setSpecialValueText(tr("kwb decides (1 for CUDA cells)"));
    m_gpus->setValue(-1);
    m_time->setObjectName(u"slurmTime"_s);
    m_time->setPlaceholderText(tr("e.g. 30:00"));
    m_extra->setObjectName(u"slurmExtra"_s);
    m_extra->setPlaceholderText(tr("more sbatch options, e.g. --qos=high --mem=8G"));
    m_submit->setObjectName(u"slurmSubmit"_s);
    m_refresh->setObjectName(u"slurmRefresh"_s);
    m_resubmit->setObjectName(u"slurmResubmit"_s);
    m_resubmit->setToolTip(tr("Submit the selected failed cell alone; its part resumes where it stopped"));
    m_collect->setObjectName(u"slurmCollect"_s);
    m_collect->setToolTip(tr("Fold the finished parts into the study, judge them, and reload"));
    m_table->setObjectName(u"slurmTable"_s);
    m_log->setObjectName(u"slurmLog"_s);
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(500);

    QStringList headers;
    headers << tr("Cell") << tr("State") << tr("Slurm task") << tr("Slurm state") << tr("Reason") << tr("Samples")
            << tr("Detail");
    m_table->setHorizontalHeaderLabels(headers);
    // Every column fits its text; the detail (the resubmit command, Slurm's words) takes the rest.
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);

    auto* form = new QFormLayout;
    form->addRow(tr("Partition"), m_partition);
    form->addRow(tr("GPUs per task"), m_gpus);
    form->addRow(tr("Time limit"), m_time);
    form->addRow(tr("sbatch options"), m_extra);
    auto* submitRow = new QHBoxLayout;
    submitRow->addLayout(form, 1);
    submitRow->addWidget(m_submit, 0, Qt::AlignBottom);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(new QLabel(tr("Cells (kwb status)"), this));
    buttons->addStretch(1);
    buttons->addWidget(m_refresh);
    buttons->addWidget(m_resubmit);
    buttons->addWidget(m_collect);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(submitRow);
    layout->addLayout(buttons);
    layout->addWidget(m_table, 3);
    layout->addWidget(m_log, 1);
    resize(820, 520);

    connect(m_submit, &QPushButton::clicked, this, &SlurmDialog::submit);
    connect(m_refresh, &QPushButton::clicked, this, &SlurmDialog::refresh);
    connect(m_resubmit, &QPushButton::clicked, this, &SlurmDialog::resubmitSelected);
    connect(m_collect, &QPushButton::clicked, this, &SlurmDialog::collect);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &SlurmDialog::updateButtons);
    updateButtons();
}

QStringList SlurmDialog::submitArguments() const
{
    QStringList args {u"submit"_s, m_document->filePath()};
    if (!m_partition->text().trimmed().isEmpty())
        args << u"--partition"_s << m_partition->text().trimmed();
    if (m_gpus->value() >= 0)
        args << u"--gpus-per-task"_s << QString::number(m_gpus->value());
    if (!m_time->text().trimmed().isEmpty())
        args << u"--time"_s << m_time->text().trimmed();
    const QStringList extra = QProcess::splitCommand(m_extra->text());
    if (!extra.isEmpty())
        args << u"--"_s << extra;
    return args;
}

bool SlurmDialog::isBusy() const
{
    return m_process && m_process->state() != QProcess::NotRunning;
}

QString SlurmDialog::log() const
{
    return m_log->toPlainText();
}

void SlurmDialog::submit()
{
    runKwb(u"submit"_s, submitArguments());
}

void SlurmDialog::refresh()
{
    runKwb(u"status"_s, {u"status"_s, m_document->filePath(), u"--json"_s});
}

void SlurmDialog::resubmitSelected()
{
    const QString id = selectedFailedCell();
    if (!id.isEmpty())
        runKwb(u"resubmit"_s, {u"submit"_s, m_document->filePath(), u"--cell"_s, id});
}

void SlurmDialog::collect()
{
    runKwb(u"collect"_s, {u"collect"_s, m_document->filePath()});
}

void SlurmDialog::runKwb(const QString& verb, const QStringList& args)
{
    if (isBusy() || m_document->filePath().isEmpty())
        return;
    // kwb reads the file: the user's edits must be on disk first (as for Run).
    if (m_document->isModified() && !m_document->save()) {
        m_log->appendPlainText(tr("cannot save the study first: %1").arg(m_document->lastError()));
        return;
    }
    m_verb = verb;
    delete m_process;
    m_process = new QProcess(this);
    if (verb != "status"_L1)
        m_process->setProcessChannelMode(QProcess::MergedChannels);
    connect(m_process, &QProcess::finished, this, [this](int code) { onFinished(code); });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) {
            m_log->appendPlainText(tr("cannot start %1: %2").arg(m_program, m_process->errorString()));
            onFinished(-1);
        }
    });
    m_log->appendPlainText(u"$ kwb "_s + args.join(u' '));
    updateButtons();
    m_process->start(m_program, args);
    updateButtons();
}

void SlurmDialog::onFinished(int exitCode)
{
    const QString verb = m_verb;
    if (verb == "status"_L1) {
        const QByteArray err = m_process->readAllStandardError().trimmed();
        if (!err.isEmpty())
            m_log->appendPlainText(QString::fromUtf8(err)); // e.g. "cannot ask Slurm": parts only
        if (exitCode == 0)
            showStatus(m_process->readAllStandardOutput());
        else
            m_log->appendPlainText(tr("kwb status exited %1").arg(exitCode));
    } else {
        const QString out = QString::fromUtf8(m_process->readAll()).trimmed();
        if (!out.isEmpty())
            m_log->appendPlainText(out);
        if (exitCode != 0)
            m_log->appendPlainText(tr("kwb %1 exited %2").arg(verb).arg(exitCode));
        if (verb == "collect"_L1 && exitCode == 0 && !m_document->reload())
            m_log->appendPlainText(tr("cannot reload the study: %1").arg(m_document->lastError()));
    }
    m_process->deleteLater();
    m_process = nullptr;
    updateButtons();
    emit commandFinished(verb, exitCode);
    // After a submit, resubmit or collect the table is out of date: ask again.
    if (verb != "status"_L1 && exitCode >= 0)
        refresh();
}

void SlurmDialog::showStatus(const QByteArray& json)
{
    QJsonParseError error {};
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    if (!doc.isObject()) {
        m_log->appendPlainText(tr("kwb status --json: %1").arg(error.errorString()));
        return;
    }
    m_cells = doc.object().value("cells"_L1).toArray();
    m_table->setRowCount(static_cast<int>(m_cells.size()));
    for (int row = 0; row < m_cells.size(); ++row) {
        const QJsonObject cell = m_cells.at(row).toObject();
        for (int col = 0; col < static_cast<int>(std::size(kColumns)); ++col) {
            const QJsonValue v = cell.value(QLatin1StringView(kColumns[col]));
            QString text = v.isDouble() ? QString::number(v.toInt()) : v.toString();
            if (col == 1 && cell.value("collected"_L1).toBool())
                text += tr(" (collected)");
            auto* item = new QTableWidgetItem(text.isEmpty() ? u"–"_s : text);
            if (col == 1 && cell.value("state"_L1).toString() == "failed"_L1)
                item->setForeground(QColor(0xc0, 0x20, 0x20));
            item->setToolTip(cell.value("detail"_L1).toString());
            if (v.isDouble())
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(row, col, item);
        }
    }
    updateButtons();
}

QString SlurmDialog::selectedFailedCell() const
{
    const auto rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return {};
    const QJsonObject cell = m_cells.at(rows.first().row()).toObject();
    return cell.value("state"_L1).toString() == "failed"_L1 ? cell.value("id"_L1).toString() : QString();
}

void SlurmDialog::updateButtons()
{
    const bool idle = !isBusy() && !m_document->filePath().isEmpty() && !m_document->isLocked();
    m_submit->setEnabled(idle);
    m_refresh->setEnabled(idle);
    m_collect->setEnabled(idle);
    m_resubmit->setEnabled(idle && !selectedFailedCell().isEmpty());
}

} // namespace kwb::gui
