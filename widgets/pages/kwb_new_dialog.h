// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <QDialog>

class QLabel;
class QLayout;
class QPushButton;

namespace kwb::gui {

class KwbNewRun;

// A New ... A/B dialog whose study `kwb new` makes as a child (models/kwb_new_run.h), so the window
// holds none of its rules: Create starts kwb new, the dialog stays open with kwb's own line when it
// refuses, and closes with the study read back when it succeeds. Subclasses lay out their fields,
// check only that the needed ones are filled, and give kwb new its arguments.
class KwbNewDialog : public QDialog {
    Q_OBJECT
public:
    const Study& study() const { return m_study; }
    // Why the last Create was refused; empty when it succeeded or was not pressed.
    QString lastError() const { return m_lastError; }
    bool isCreating() const;

public slots:
    virtual void create() = 0;

signals:
    void createFinished(bool ok);

protected:
    // `names`: the prefix of the error label's and Create button's object names ("gitAb").
    KwbNewDialog(const QString& names, QWidget* parent);
    ~KwbNewDialog() override;
    // intro, form, the error line, Create / Cancel; Create's tooltip says what kwb new checks.
    void finishLayout(QLabel* intro, QLayout* form, const QString& createTip, int width);
    void clearError();
    void refuse(const QString& why);
    void startKwbNew(const QStringList& arguments);

private:
    QLabel* m_error;
    QPushButton* m_create = nullptr;
    KwbNewRun* m_kwb;
    QString m_names;
    QString m_lastError;
    Study m_study;
};

} // namespace kwb::gui
