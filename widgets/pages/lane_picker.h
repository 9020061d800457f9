// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QPushButton>

namespace kwb::gui {

class LaneView;

// The live view's one control over its strips: "Lanes: 4 of 24", a menu with the default set,
// every lane, and each lane to check or uncheck (the view remembers the choice).
class LanePicker : public QPushButton {
    Q_OBJECT
public:
    explicit LanePicker(LaneView* view, QWidget* parent = nullptr);

    // The menu as it opens (tests trigger its actions).
    QMenu* lanesMenu() const { return menu(); }
    void rebuildMenu();

private:
    void updateText();

    LaneView* m_view;
};

} // namespace kwb::gui
