// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/json_convert.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace kwb::gui {

using namespace Qt::StringLiterals;

QJsonValue toQJson(const nlohmann::json& value)
{
    // Wrapped in an array so scalars survive the round trip through a document.
    const std::string text = nlohmann::json::array({value}).dump();
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(text));
    return doc.array().at(0);
}

QJsonObject toQJsonObject(const nlohmann::json& value)
{
    return value.is_object() ? toQJson(value).toObject() : QJsonObject {};
}

QString jsonScalarText(const QJsonValue& value)
{
    switch (value.type()) {
    case QJsonValue::Bool:
        return value.toBool() ? u"yes"_s : u"no"_s;
    case QJsonValue::Double:
        return QString::number(value.toDouble(), 'g', 6);
    case QJsonValue::String:
        return value.toString();
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        return u"–"_s;
    case QJsonValue::Array:
    case QJsonValue::Object:
        return QString::fromUtf8(
            QJsonDocument(value.isArray() ? QJsonDocument(value.toArray()) : QJsonDocument(value.toObject()))
                .toJson(QJsonDocument::Compact));
    }
    return {};
}

} // namespace kwb::gui
