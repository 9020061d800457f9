// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

class QPalette;

namespace kwb::gui {

// The Fusion style with a light or a dark palette (kernel-workbench --palette light|dark, or
// KWB_PALETTE), to check that every page reads in both. "light" is Fusion's own palette, so
// screenshots of the two differ only in colours. Returns false for any other name.
bool applyPalette(const QString& name);

// The dark palette itself (tests read its colours).
QPalette darkPalette();

} // namespace kwb::gui
