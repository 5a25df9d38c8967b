#pragma once

#include "memoryreport.h"

#include <QColor>

namespace shardscope {

/// Colours of the memory components, from the Okabe-Ito colour-blind-safe palette
/// (Okabe and Ito 2008, "Color Universal Design"). Chart and legend share them.
QColor componentColor(Component c);
/// Hatch colour for the part of a bar above the capacity line (Okabe-Ito vermillion).
QColor overflowColor();
/// Verdict banner backgrounds: a green that reads on projectors, and a red.
QColor fitsColor();
QColor overflowsColor();

} // namespace shardscope
