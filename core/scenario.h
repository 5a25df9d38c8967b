#pragma once

#include "gpu.h"
#include "layout.h"
#include "model.h"
#include "recipe.h"

namespace shardscope {

/// Every input of an estimate, as one value: what is trained, how, on what.
struct Scenario
{
    Model model;
    Recipe recipe;
    Gpu gpu;
    Layout layout;
};

} // namespace shardscope
