// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>
#include <QJsonArray>
#include <QStringList>

class QLineEdit;
class QPlainTextEdit;
class QProcess;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace kwb::gui {

class StudyDocument;

// The window's side of Slurm (docs/cluster.md): Submit runs `kwb submit`, the table is
// `kwb status --json`, Resubmit is `kwb submit STUDY --cell ID` for a failed cell, Collect is
// `kwb collect STUDY` and then reloads the study. Every rule (which cells to submit, what a
// Slurm state means, when a part may be folded) stays in kwb: this dialog only shows its answers.
class SlurmDialog : public QDialog {
    Q_OBJECT
public:
    SlurmDialog(StudyDocument* document, const QString& program, QWidget* parent = nullptr);

    // The submit command line the form makes: `submit STUDY --partition P ... -- EXTRA`.
    QStringList submitArguments() const;
    QJsonArray cells() const { return m_cells; }
    bool isBusy() const;
    QString log() const;

public slots:
    void submit();
    void refresh();
    void resubmitSelected();
    void collect();

signals:
    void commandFinished(const QString& verb, int exitCode); // after the table or study updated

private:
    void runKwb(const QString& verb, const QStringList& args);
    void onFinished(int exitCode);
    void showStatus(const QByteArray& json);
    void updateButtons();
    QString selectedFailedCell() const;

    StudyDocument* m_document;
    QString m_program;
    QLineEdit* m_partition;
    QSpinBox* m_gpus;
    QLineEdit* m_time;
    QLineEdit* m_extra;
    QPushButton* m_submit;
    QPushButton* m_refresh;
    QPushButton* m_resubmit;
    QPushButton* m_collect;
    QTableWidget* m_table;
    QPlainTextEdit* m_log;
    QProcess* m_process = nullptr;
    QString m_verb;
    QJsonArray m_cells;
};

} // namespace kwb::gui
