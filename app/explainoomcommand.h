#pragma once

#include "oomexplain.h"

#include <QJsonObject>
#include <QStringList>
#include <QTextStream>

namespace shardscope {

/// `shardscope explain-oom --message TEXT | --message-file FILE [scenario flags]
/// [--suggestions N] [--json]`: reads PyTorch's "CUDA out of memory" message
/// (parseOomMessage(), core/oommessage.h) from TEXT or FILE (read by readInputFile(),
/// io/inputfile.h: a whole log or traceback is fine), sets it against the scenario the
/// flags describe (the flags of `report`, ScenarioOptions) and prints which part is over
/// and the N (default 3, 0 for none) layouts with the fewest changed settings that fit
/// (explainOom(), core/oomexplain.h). With --json, oomExplanationJson(). Returns 0 when a
/// message was read and explained, 2 with one line on `err` for bad arguments, an
/// unreadable file, a scenario that cannot be estimated, or text holding no
/// out-of-memory message.
int runExplainOomCommand(const QStringList &args, QTextStream &out, QTextStream &err);

/// The JSON of an explanation: { "oom": { "wording", "device", "tried_to_allocate_bytes",
/// "total_capacity_bytes", "free_bytes", "in_use_bytes", "allocated_by_pytorch_bytes",
/// "reserved_unallocated_bytes", "reserved_bytes", "allowed_bytes",
/// "private_pool_bytes", "other_processes": [{ "pid", "bytes" }], "messages_found",
/// "notes" }, "prediction": { "peak_bytes", "capacity_bytes", "weights_bytes",
/// "gradients_bytes", "master_weights_bytes", "optimizer_states_bytes",
/// "activations_bytes", "buffers_bytes", "measured_bytes", "measured_demand_bytes" },
/// "verdict": { "cause" (oomCauseId()), "text", "advice", "notes" },
/// "headroom_percent", "suggestions": [ planCandidateJson() + "changes" ] }. A size the
/// message does not state (and nothing derives) is null; bytes are exact integers.
QJsonObject oomExplanationJson(const OomMessage &m, const OomExplanation &e);

} // namespace shardscope
