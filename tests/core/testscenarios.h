#pragma once

// Scenarios the core tests share, built without the catalog (core tests link the
// engine alone).

#include "scenario.h"

namespace shardscope::test {

/// A Llama-2-7B-shaped dense model: 32 layers, h 4096, f 11008, 32 heads, V 32000
/// (meta-llama/Llama-2-7b-hf config.json).
inline Architecture llama7bArchitecture()
{
    Architecture a;
    a.layers = 32;
    a.hidden = 4096;
    a.ffn = 11008;
    a.heads = 32;
    a.kvHeads = 32;
    a.vocab = 32000;
    return a;
}

/// That model on `gpus` H100s (80 GB) with mixed-precision AdamW (2 + 2 + 4 + 8 bytes
/// per parameter) and the Scenario defaults otherwise.
inline Scenario llama7bOnH100(std::int64_t gpus)
{
    Scenario s;
    s.model.id = "llama7b";
    s.model.architecture = llama7bArchitecture();
    s.recipe = Recipe{"mixed-adam", "Mixed", "", 2, 2, 4, 8};
    s.gpu.id = "h100";
    s.gpu.name = s.gpu.shortName = "H100";
    s.gpu.capacityBytes = 80'000'000'000;
    s.layout.gpus = gpus;
    return s;
}

} // namespace shardscope::test
