// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/kwb_new_dialog.h"

#include "models/kwb_new_run.h"
#include "models/run_controller.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace kwb::gui {

using namespace Qt::StringLiterals;

KwbNewDialog::KwbNewDialog(const QString& names, QWidget* parent)
    : QDialog(parent)
    , m_error(new QLabel(this))
    , m_kwb(new KwbNewRun(this))
    , m_names(names)
{
    m_error->setObjectName(names + u"Error"_s);
    m_error->setWordWrap(true);
    m_error->setStyleSheet(u"color: #c62828;"_s);
    m_error->hide();
    connect(m_kwb, &KwbNewRun::finished, this, [this](const QString& failure) {
        m_create->setEnabled(true);
        if (!failure.isEmpty()) {
            refuse(failure);
            return;
        }
        m_study = m_kwb->study();
        emit createFinished(true);
        accept();
    });
}

KwbNewDialog::~KwbNewDialog() = default; // KwbNewRun ends a kwb new in flight

bool KwbNewDialog::isCreating() const
{
    return m_kwb->isRunning();
}

void KwbNewDialog::finishLayout(QLabel* intro, QLayout* form, const QString& createTip, int width)
{
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_create = buttons->addButton(tr("Create"), QDialogButtonBox::AcceptRole);
    m_create->setObjectName(m_names + u"Create"_s);
    m_create->setToolTip(createTip);
    connect(buttons, &QDialogButtonBox::accepted, this, &KwbNewDialog::create);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addStretch(1);
    layout->addWidget(buttons);
    resize(width, sizeHint().height());
}

void KwbNewDialog::clearError()
{
    m_error->hide();
    m_lastError.clear();
}

void KwbNewDialog::refuse(const QString& why)
{
    m_lastError = why;
    m_error->setText(why);
    m_error->show();
    emit createFinished(false);
}

void KwbNewDialog::startKwbNew(const QStringList& arguments)
{
    m_create->setEnabled(false);
    m_kwb->start(RunController::defaultProgram(), arguments);
}

} // namespace kwb::gui
