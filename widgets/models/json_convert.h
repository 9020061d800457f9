// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <nlohmann/json.hpp>

namespace kwb::gui {

// The engine speaks nlohmann::json and std::string; the views speak Qt. These convert at the
// boundary, once, so no widget deals with two JSON libraries.
QJsonValue toQJson(const nlohmann::json& value);
QJsonObject toQJsonObject(const nlohmann::json& value); // an empty object for anything else
inline QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

// A JSON scalar as a short text: numbers with up to 4 significant decimals, bools yes/no.
QString jsonScalarText(const QJsonValue& value);

} // namespace kwb::gui
