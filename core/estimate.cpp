#include "estimate.h"

#include "enumtable.h"
#include "estimate/activationstage.h"
#include "estimate/buffers.h"
#include "estimate/communication.h"
#include "estimate/context.h"
#include "estimate/host.h"
#include "estimate/modelstates.h"
#include "estimate/notes.h"
#include "estimate/stageplan.h"
#include "estimate/validation.h"
#include "format.h"
#include "intmath.h"

#include <algorithm>
#include <atomic>
#include <string_view>

namespace shardscope {

using stages::FillPath;

int stepValueAt(const std::vector<std::pair<double, int>> &steps, double time)
{
    auto it =
        std::upper_bound(steps.begin(), steps.end(), time,
                         [](double t, const std::pair<double, int> &e) { return t < e.first; });
    return it == steps.begin() ? 0 : (it - 1)->second;
}

std::int64_t stageBytesHolding(const GpuGroup &g, int inFlight, int embeddingInFlight,
                               int headInFlight)
{
    return g.totalBytes() - g.activations.layers - g.activations.embedding - g.activations.output +
           std::int64_t(inFlight) * g.chunkActivationBytes +
           std::int64_t(embeddingInFlight) * g.embeddingBytesPerMicroBatch +
           std::int64_t(headInFlight) * g.outputBytesPerMicroBatch;
}

ScheduleParams scheduleParams(const Scenario &s)
{
    ScheduleParams p;
    p.schedule = s.training.schedule;
    p.stages = s.layout.pipelineParallel;
    p.microBatches = int(std::min<std::int64_t>(s.training.microBatches, 1 << 30));
    p.chunks = s.training.schedule == PipelineSchedule::Interleaved1F1B ? s.training.chunks : 1;
    return p;
}

std::vector<MemoryStep> stageMemoryOverTime(const GpuGroup &g, const StageTimeline &stage,
                                            double makespan)
{
    return stageMemoryOverTime(g, stage.inFlight, stage.embeddingInFlight, stage.headInFlight,
                               makespan);
}

std::vector<MemoryStep> stageMemoryOverTime(const GpuGroup &g, const InFlightSteps &inFlight,
                                            const InFlightSteps &embeddingInFlight,
                                            const InFlightSteps &headInFlight, double makespan)
{
    std::vector<double> times;
    times.reserve(inFlight.size() + embeddingInFlight.size() + headInFlight.size() + 1);
    for (const auto *steps : {&inFlight, &embeddingInFlight, &headInFlight})
        for (const auto &step : *steps)
            times.push_back(step.first);
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    if (times.empty() || times.back() < makespan)
        times.push_back(makespan);
    std::vector<MemoryStep> out;
    out.reserve(times.size());
    for (const double t : times)
        out.push_back(
            {t, stageBytesHolding(g, stepValueAt(inFlight, t), stepValueAt(embeddingInFlight, t),
                                  stepValueAt(headInFlight, t))});
    return out;
}

std::int64_t shardElements(std::int64_t n, std::int64_t d)
{
    return d <= 1 ? n : quotient(n + d - 1, d);
}

int stageLayerCount(int layers, int stages, int stage, bool balanced)
{
    if (stages <= 0)
        return 0;
    if (balanced && stages >= 2) {
        const int k = int(quotient(std::int64_t(layers) + 2, stages));
        return stage == 0 || stage == stages - 1 ? k - 1 : k;
    }
    return int(quotient(layers, stages)) + (stage < remainder(layers, stages) ? 1 : 0);
}

std::string validateRecipe(const Recipe &r)
{
    const std::int64_t fields[] = {r.weightBytes, r.gradientBytes, r.masterWeightBytes,
                                   r.optimizerBytes};
    if (stages::recipeInRange(r))
        return {};
    const char *names[] = {"weight", "gradient", "master-weight", "optimizer"};
    for (int i = 0; i < 4; ++i) {
        if (fields[i] < 0 || fields[i] > 64)
            return std::string(names[i]) + " bytes per parameter must be between 0 and 64 (got " +
                   stages::str(fields[i]) + ")";
    }
    if (r.totalBytesPerParameter() <= 0)
        return "a recipe needs at least one byte per parameter";
    return {};
}

namespace {

/// BaseFormat's names; the aliases are bitsandbytes' load_in_8bit / load_in_4bit.
constexpr EnumTable<BaseFormat, 4> baseFormats{{
    {BaseFormat::Bf16, "bf16"},
    {BaseFormat::Fp16, "fp16"},
    {BaseFormat::Int8, "int8", {}, {"8bit"}},
    {BaseFormat::Nf4, "nf4", {}, {"4bit"}},
}};

} // namespace

std::string_view baseFormatId(BaseFormat f)
{
    return enumId(baseFormats, f, "bf16");
}

std::optional<BaseFormat> parseBaseFormat(std::string_view text)
{
    return parseEnum(baseFormats, text);
}

std::int64_t frozenMatrixBytes(BaseFormat f, std::int64_t elements, std::int64_t rows)
{
    switch (f) {
    case BaseFormat::Bf16:
    case BaseFormat::Fp16:
        return 2 * elements;
    case BaseFormat::Int8:
        return elements + 4 * rows;
    case BaseFormat::Nf4: {
        const std::int64_t blocks = (elements + 63) / 64;
        return (elements + 1) / 2 + blocks + 4 * ((blocks + 255) / 256) + nf4QuantStateBytes;
    }
    }
    return 2 * elements;
}

std::int64_t dequantizationWorkspaceBytes(BaseFormat f, std::int64_t elements,
                                          std::int64_t activationBytes)
{
    switch (f) {
    case BaseFormat::Bf16:
    case BaseFormat::Fp16:
        return 0;
    case BaseFormat::Int8:
        return elements * activationBytes;
    case BaseFormat::Nf4:
        return elements * activationBytes + 4 * ((elements + 63) / 64);
    }
    return 0;
}

namespace {

/// The activation figures of this thread's last estimate on a prepared model: its
/// serial (0: none yet), the settings they were computed for, and the figures.
struct FiguresMemo
{
    std::uint64_t serial = 0;
    ActivationSettings settings;
    ActivationFigures figures;
};
thread_local FiguresMemo lastFigures;

/// The next PreparedModel::serial (prepare() may run on several threads).
std::atomic<std::uint64_t> nextSerial{1};

/// Activation figures of a model without an architecture (all zero: none modelled).
const ActivationFigures noFigures;

/// validate(prepared, s) for the engine: true when the scenario can be estimated, else
/// false with validate()'s reason in `error` (which is not written otherwise). Once the
/// checks reach them, `figures` points at the activation figures (this thread's memo of
/// them, valid until its next check; all zero without an architecture): the engine reads
/// them instead of computing them again.
[[gnu::always_inline]] inline bool check(const PreparedModel &prepared, const Scenario &s,
                                         std::string &error, const ActivationFigures *&figures)
{
    figures = &noFigures;
    if (!stages::checkScenario(prepared, s, error))
        return false;
    if (const auto &arch = prepared.architecture) {
        // A re-estimate that changes only what activations do not depend on (the GPU
        // count, the ZeRO stage, the buffers: a GPU-count slider or a strategy button)
        // reuses the figures it computed last; figures that passed their checks pass them
        // again for the same model and settings, so the reason (none) is the same too.
        const ActivationSettings settings = stages::activationSettings(s);
        FiguresMemo &memo = lastFigures;
        if (prepared.serial == 0 || memo.serial != prepared.serial ||
            !(memo.settings == settings)) {
            memo.serial = 0; // computed in place: not a memo until they pass
            if (auto e = activationFigures(*arch, settings, memo.figures); !e.empty())
                return stages::refuse(error, "activations: " + e);
            memo.serial = prepared.serial;
            memo.settings = settings;
        }
        figures = &memo.figures;
    }
    return stages::checkOverheads(s, error);
}

} // namespace

PreparedModel prepare(const Model &model)
{
    PreparedModel prepared;
    prepared.serial = nextSerial.fetch_add(1, std::memory_order_relaxed);
    prepared.architecture = model.architecture;
    if (model.architecture) {
        if (auto e = validateArchitecture(*model.architecture); !e.empty()) {
            prepared.error = "model: " + e;
            return prepared;
        }
    }
    const std::int64_t params = model.parameters();
    prepared.parameters = params;
    if (params <= 0) {
        prepared.error = "parameters must be positive (got " + stages::str(params) + ")";
        return prepared;
    }
    if (params > maxParameters) {
        prepared.error = "parameters must be at most 1e14 (got " + stages::str(params) + ")";
        return prepared;
    }
    prepared.activeParameters = model.activeParameters();
    if (const auto &arch = model.architecture) {
        // Block 0 is dense whenever any block is (Architecture::isMoeLayer).
        if (arch->layers - arch->moeLayerCount() > 0)
            prepared.dense = stages::prepareBlock(*arch, 0);
        if (arch->isMoe()) {
            prepared.moe = stages::prepareBlock(*arch, arch->firstMoeLayer());
            prepared.moeNotePrefix =
                "Mixture of experts: " + formatParameters(prepared.activeParameters) + " of " +
                formatParameters(params) + " parameters active per token; each GPU holds ";
        }
        prepared.keyValueWidth = arch->keyWidth() + arch->valueWidth();
    }
    return prepared;
}

std::string validate(const PreparedModel &prepared, const Scenario &s)
{
    std::string error;
    const ActivationFigures *figures = nullptr;
    check(prepared, s, error, figures);
    return error;
}

std::string validate(const Scenario &s)
{
    return validate(prepare(s.model), s);
}

MemoryReport estimate(const Scenario &s)
{
    MemoryReport report;
    estimate(prepare(s.model), s, report);
    return report;
}

MemoryReport estimate(const PreparedModel &prepared, const Scenario &s)
{
    MemoryReport report;
    estimate(prepared, s, report);
    return report;
}

namespace {

/// The estimate of a valid scenario, the stages of core/estimate/ in order
/// (docs/architecture.md "The memory model"): `report` (whose error is empty and whose
/// other fields are reset) is filled; on a refusal found while estimating (a byte count
/// past 1 EB) its error is set and its groups cleared. `noteCount` is how many notes it
/// wrote. Compiled once per FillPath, each instance its own function: inlined into
/// estimateInto() the data-parallel one measured slower (BM_Estimate).
template <FillPath Path>
[[gnu::noinline]] void runStages(const PreparedModel &prepared, const Scenario &s,
                                 const ActivationFigures &figures, MemoryReport &report,
                                 std::size_t &noteCount)
{
    using namespace stages;
    EstimateContext x = resolveContext<Path>(prepared, s);
    planBlocks(x);
    planBlockActivations(x, figures);
    planFp8Weights(x);
    report.parameters = prepared.parameters;
    report.capacityBytes = s.gpu.usableBytes();
    report.hostCapacityBytesPerNode = s.overheads.hostRamBytesPerNode;
    report.activationsModelled = x.activationsModelled;
    planFineTuning(x, report);
    openingNotes(x, report, noteCount);

    report.groups.resize(std::size_t(x.p));
    int firstLayer = 0;
    std::int64_t maxHostPerGpu = 0, mostPaged = 0, mostParametersPerGpu = 0;
    for (int i = 0; i < x.p; ++i) {
        GpuGroup &g = report.groups[std::size_t(i)];
        const StageShare share = planStage(x, i, firstLayer, g);
        const std::int64_t trained = modelStates(x, share, g);
        if (!stageActivations(x, i, share, g, report.error)) {
            report.groups.clear();
            return;
        }
        stageBuffers(x, share, trained, g);
        mostPaged = std::max(mostPaged, pageOptimizer(x, g));
        if (!stageCommunication(x, i, share, g, report.error)) {
            report.groups.clear();
            return;
        }
        maxHostPerGpu = std::max(maxHostPerGpu, g.hostBytes);
        mostParametersPerGpu = std::max(mostParametersPerGpu, g.parametersPerGpu);
    }
    Checked ck;
    report.hostBytesPerNode = offloadHostBytesPerNode(
        *x.profile, x.offload, x.z,
        hostBytesPerNode(maxHostPerGpu, s.layout.gpusPerNode, s.layout.gpus, ck),
        mostParametersPerGpu, std::min(s.layout.gpusPerNode, s.layout.gpus), ck);
    if (ck.overflow || report.hostBytesPerNode > maxReportBytes) {
        report.error = "host RAM per node exceeds 1 EB: lower the micro-batch size or sequence "
                       "length, or offload less";
        report.hostBytesPerNode = 0;
        report.groups.clear();
        return;
    }
    closingNotes(x, mostPaged, report, noteCount);
}

/// The scenarios of FillPath::Plain: a dense architecture, the full report, and none of
/// context or expert parallelism, HSDP, CPU or activation offload, FP8, a paged
/// optimizer or LoRA (the settings that path fixes at their defaults).
bool plainScenario(const PreparedModel &prepared, const Scenario &s)
{
    const Layout &l = s.layout;
    const Training &t = s.training;
    return prepared.architecture.has_value() && !prepared.architecture->isMoe() &&
           !s.modelStatesOnly && l.contextParallel == 1 && l.expertParallel == 1 &&
           l.hsdpShardSize == 0 && l.offload == Offload::None && t.fp8 == Fp8Recipe::Off &&
           !t.activationOffload && !t.pagedOptimizer && !s.fineTuning.enabled();
}

/// estimate(prepared, s, report), through the instance of runStages() for its FillPath when
/// `plainPath` (the engine) or always through the general one (estimateGeneral).
void estimateInto(const PreparedModel &prepared, const Scenario &s, MemoryReport &report,
                  bool plainPath)
{
    const ActivationFigures *figures = nullptr;
    report.error.clear();
    const bool valid = check(prepared, s, report.error, figures);
    report.parameters = 0;
    report.trainableParameters = 0;
    report.capacityBytes = 0;
    report.activationsModelled = false;
    report.hostBytesPerNode = 0;
    report.hostCapacityBytesPerNode = 0;
    std::size_t noteCount = 0;
    if (!valid)
        report.groups.clear();
    else if (!plainPath || !plainScenario(prepared, s))
        runStages<FillPath::General>(prepared, s, *figures, report, noteCount);
    else if (s.layout.tensorParallel == 1 && s.layout.pipelineParallel == 1)
        runStages<FillPath::DataParallel>(prepared, s, *figures, report, noteCount);
    else
        runStages<FillPath::Plain>(prepared, s, *figures, report, noteCount);
    report.notes.resize(noteCount);
}

} // namespace

void estimate(const PreparedModel &prepared, const Scenario &s, MemoryReport &report)
{
    estimateInto(prepared, s, report, true);
}

void estimateGeneral(const PreparedModel &prepared, const Scenario &s, MemoryReport &report)
{
    estimateInto(prepared, s, report, false);
}

} // namespace shardscope
