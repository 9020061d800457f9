// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLabel>

namespace kwb::gui {

// The verdict word on its colour, large enough to read from across the room.
class VerdictBadge : public QLabel {
    Q_OBJECT
public:
    explicit VerdictBadge(QWidget* parent = nullptr);
    // An empty word shows "NO VERDICT" in neutral grey.
    void setVerdict(const QString& word);
    QString verdict() const { return m_word; }

private:
    QString m_word;
};

} // namespace kwb::gui
