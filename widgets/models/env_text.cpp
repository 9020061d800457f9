// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/env_text.h"

#include <QObject>
#include <QProcess>
#include <QStringList>

namespace kwb::gui {

using namespace Qt::StringLiterals;

std::map<std::string, std::string> parseEnvText(const QString& text, QString* error)
{
    std::map<std::string, std::string> env;
    for (const QString& word : QProcess::splitCommand(text)) {
        const auto eq = word.indexOf(u'=');
        if (eq <= 0) {
            *error = QObject::tr("environment: \"%1\" is not K=V").arg(word);
            return {};
        }
        env[word.left(eq).toStdString()] = word.mid(eq + 1).toStdString();
    }
    return env;
}

QString envText(const std::map<std::string, std::string>& env)
{
    QStringList words;
    for (const auto& [k, v] : env) {
        QString w = QString::fromStdString(k) + u'=' + QString::fromStdString(v);
        if (w.contains(u' ') || w.contains(u'"'))
            w = u'"' + QString(w).replace(u'"', u"\\\""_s) + u'"';
        words << w;
    }
    return words.join(u' ');
}

} // namespace kwb::gui
