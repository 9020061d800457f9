// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/build_log_dialog.h"

#include <QDialogButtonBox>
#include <QFile>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace kwb::gui {

using namespace Qt::StringLiterals;

BuildLogDialog::BuildLogDialog(const QString& title, const QString& logPath, QWidget* parent)
    : QDialog(parent)
{
    setObjectName(u"buildLogDialog"_s);
    setWindowTitle(tr("Build log: %1").arg(title));
    auto* path = new QLabel(logPath, this);
    path->setObjectName(u"buildLogPath"_s);
    path->setTextInteractionFlags(Qt::TextSelectableByMouse);
    path->setWordWrap(true);
    m_text = new QPlainTextEdit(this);
    m_text->setObjectName(u"buildLogText"_s);
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    QFile file(logPath);
    if (file.open(QIODevice::ReadOnly)) {
        // A log is at most the 64 MiB the build cache keeps; the view shows its last 4 MiB, where a
        // failure is.
        constexpr qint64 kShown = 4 << 20;
        if (file.size() > kShown)
            file.seek(file.size() - kShown);
        m_text->setPlainText(QString::fromUtf8(file.readAll()));
    } else {
        m_missing = tr("no log at %1: this commit and build command were not built on this machine (kwb run builds "
                       "them; a study from another machine keeps its logs there)")
                        .arg(logPath);
        m_text->setPlainText(m_missing);
    }
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(path);
    layout->addWidget(m_text, 1);
    layout->addWidget(buttons);
    resize(860, 560);
}

QString BuildLogDialog::logText() const
{
    return m_missing.isEmpty() ? m_text->toPlainText() : QString();
}

} // namespace kwb::gui
