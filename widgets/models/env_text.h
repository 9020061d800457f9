// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// An arm's environment overrides as a person types them: K=V words, quoted like a shell
// ("K=a b"). One spelling for the command and the worker arm editors.
#include <QString>
#include <map>
#include <string>

namespace kwb::gui {

// Empty map and `*error` set when a word is not K=V.
std::map<std::string, std::string> parseEnvText(const QString& text, QString* error);
QString envText(const std::map<std::string, std::string>& env);

} // namespace kwb::gui
