// Byte-identical results: 100,000 pseudo-random scenarios, valid and invalid, run
// through the engine and every field of every report hashed into one 64-bit FNV-1a
// digest (Fowler, Noll and Vo; offset basis 14695981039346656037, prime
// 1099511628211, as published at www.isthe.com/chongo/tech/comp/fnv). The recorded
// digest pins the engine's output exactly, so an optimisation that changes any
// byte, any string or any group of any report fails here.
//
// The generator maps std::mt19937_64's raw output (fully specified by the C++
// standard, [rand.predef]) to ranges with `%`; std::uniform_int_distribution is not
// used because its algorithm differs between standard libraries. Models, recipes and
// GPUs are looked up by id in the built-in catalog (resources/data), so adding a
// catalog entry changes nothing here; editing one that is listed changes the digest.
// Fields added to Scenario after the digest was recorded stay at their defaults.
#include "../settingdraw.h"
#include "catalog.h"
#include "estimate.h"
#include "settings.h"
#include "steptime.h"

#include <QTest>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <iterator>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace shardscope;

namespace {

/// The digest of the 100,000 reports below. Recorded from the unchanged engine of
/// commit 6e4aa68 (before the prepared-model fast path existed), and again when the
/// capacity a report is checked against became the card's usable bytes, the total its
/// driver reports (Gpu::usableBytes(), docs/architecture.md "Units and capacities"): a
/// per-scenario dump of both engines showed MemoryReport::capacityBytes (and with it
/// fits()) as the only field that moved; and again when a stage's activations stopped
/// adding a recomputed block's working set to the loss's backward and the logits, which
/// the head's backward frees first (ActivationBytes::transient, hashed from then on; one
/// draw that passed 1 EB with the sum is now valid); and when the notes of settings
/// without effect began (FP8 on a card with no FP8 peak, a pipeline schedule with p 1,
/// stages::ineffectiveSettingNotes): with them off the draws reproduced the digest
/// before them, so only notes moved. Any change to a result must change
/// this constant deliberately, in the same commit, with the reason.
constexpr std::uint64_t recordedDigest = 6421823202161187571ULL;
/// How many of the 100,000 scenarios are valid (recorded with the digest); guards the
/// generator against silently producing only errors.
constexpr int recordedValid = 53787;
constexpr int scenarioCount = 100'000;
/// The digest of the 100,000 table-drawn scenarios (tableScenario below): each report
/// and its step time. Recorded from commit 925fbe6, before the engine's framework
/// profiles became data, and again when stepTime() began refusing a global batch of
/// more than 2^63 tokens (b x m x d x s overflowed, undefined behaviour that UBSan caught
/// in these draws); when offloaded activations and host RAM per node past int64 became
/// refusals (2 of these draws had wrapped to a negative size) and a LoRA rank above the
/// narrowest targeted matrix did (274 more); and when the fsdp2 profile began keeping a
/// pipeline stage's state whole and the table gained fsdp_reshard_after_forward (a new
/// row changes every draw after it; with that row skipped, the profile's new fact off and
/// its old note, the draws reproduced the digest before it, so nothing else moved); and
/// when the deepspeed profile began counting host RAM under CPU offload as DeepSpeed's
/// own estimator does (with its two new facts at 0 and 100% the draws reproduced the
/// digest before it); and when reports were checked against the usable bytes (as
/// recordedDigest): besides capacityBytes and fits(), only the 80 of 1,658 valid
/// paged-optimizer draws moved, which page less to host RAM now that the card holds
/// more (their groups, host bytes, peak or paging note); no step time moved; and when
/// the deepspeed profile began counting ZeRO-3's runtime state as DeepSpeed keeps it
/// (the blocks kept by stage3_max_reuse_distance, the largest parameter's whole
/// gradient, the reduce-scatter's copy of the bucket), with the new row
/// stage3_max_reuse_distance (a new row changes every draw after it;
/// recordedDigest's draws, which leave the framework at its default, did not move);
/// and when LoRA on a quantized base began counting bitsandbytes' dequantization
/// workspace and quant-state constants, with the new rows lora_dropout and
/// fp32_unquantized (with these and stage3_max_reuse_distance skipped, the draws
/// reproduced the 25,828 valid scenarios before all three, their digest with the new
/// figures 8873349526673962741; recordedDigest's draws leave LoRA off and did not move);
/// and when the table gained the memory-saving switches loss_chunks,
/// optimizer_in_backward, use_cache and torch_compile (appended last; a new row changes
/// every draw after it: with the four skipped the draws reproduced 1698127703747388489
/// and its 25,845 valid scenarios, so nothing else moved; with them 1,677 more draws are
/// refused, mostly an optimizer step in backward with the default 8 micro-batches;
/// recordedDigest's draws leave the switches off and did not move); and when the
/// working set stopped adding to the loss's moment and torch_compile began counting a
/// compiled loss (as recordedDigest; no draw changed validity); and when the table
/// gained norm_kernel after loss_kernel (a new row changes every draw after it: with it
/// skipped and torch.compile's note in its old words the draws reproduced
/// 15313327410183791150 and its 24,168 valid scenarios, so nothing else moved;
/// recordedDigest's draws keep fused norms and did not move); and when an eager norm
/// kernel began adding its note (with the note off the draws reproduced
/// 8773102379067325230); and when the notes of settings without effect began (as
/// recordedDigest: with them off the draws reproduced 3970048828029473455); and when the
/// LoRA note began saying what data-parallel traffic carries (with its old words the draws
/// reproduced 12120129046467008855); and when MXFP8 began needing the card's own MXFP8
/// peak (Gpu::mxfp8FlopsPerSecond: Hopper, Ada and MI300X draws are not timed and are
/// noted; with that off the draws reproduced 17830921299603357750).
/// Like recordedDigest, change it only deliberately.
constexpr std::uint64_t recordedTableDigest = 10839364820770157393ULL;
/// How many of the table-drawn scenarios are valid, recorded with the digest.
constexpr int recordedTableValid = 24115;

/// 64-bit FNV-1a over bytes; integers are fed as 8 little-endian bytes, strings as
/// their length and then their bytes, so the digest is the same on every platform.
struct Fnv
{
    std::uint64_t state = 14695981039346656037ULL;

    void byte(unsigned char b)
    {
        state ^= b;
        state *= 1099511628211ULL;
    }
    void integer(std::int64_t v)
    {
        const auto u = static_cast<std::uint64_t>(v);
        for (int i = 0; i < 8; ++i)
            byte(static_cast<unsigned char>(u >> (8 * i)));
    }
    void text(const std::string &s)
    {
        integer(std::int64_t(s.size()));
        for (char c : s)
            byte(static_cast<unsigned char>(c));
    }
};

/// Every field of a report, in declaration order (memoryreport.h).
void hashReport(Fnv &h, const MemoryReport &r)
{
    h.text(r.error);
    h.integer(r.parameters);
    h.integer(r.capacityBytes);
    h.integer(std::int64_t(r.groups.size()));
    for (const GpuGroup &g : r.groups) {
        h.text(g.label);
        h.integer(g.firstRank);
        h.integer(g.gpuCount);
        h.integer(g.pipelineStage);
        h.integer(g.firstLayer);
        h.integer(g.layerCount);
        h.integer(g.holdsEmbedding);
        h.integer(g.holdsOutputHead);
        h.integer(g.parametersPerGpu);
        h.integer(g.gatheredUnitParameters);
        h.integer(g.peakInFlight);
        h.integer(g.embeddingInFlight);
        h.integer(g.outputInFlight);
        h.integer(g.chunkActivationBytes);
        h.integer(g.embeddingBytesPerMicroBatch);
        h.integer(g.outputBytesPerMicroBatch);
        for (std::int64_t v : {g.bytes.weights, g.bytes.gradients, g.bytes.masterWeights,
                               g.bytes.optimizerStates, g.bytes.activations, g.bytes.buffers})
            h.integer(v);
        for (std::int64_t v : {g.buffers.cudaContext, g.buffers.communicationBuckets,
                               g.buffers.gatheredUnits, g.buffers.fragmentation})
            h.integer(v);
        for (std::int64_t v :
             {g.activations.layers, g.activations.workingSet, g.activations.embedding,
              g.activations.output, g.activations.lossBackward, g.activations.transient})
            h.integer(v);
        h.integer(g.hostBytes);
        for (std::int64_t v : {g.communication.dataParallel, g.communication.tensorParallel,
                               g.communication.pipelineParallel, g.communication.contextParallel,
                               g.communication.expertParallel})
            h.integer(v);
    }
    h.integer(r.activationsModelled);
    h.integer(std::int64_t(r.notes.size()));
    for (const std::string &n : r.notes)
        h.text(n);
    h.integer(r.hostBytesPerNode);
    h.integer(r.hostCapacityBytesPerNode);
}

/// Raw mt19937_64 output mapped to ranges by `%` (portable; the bias is irrelevant here).
struct Draw
{
    std::mt19937_64 engine{20261201};

    std::uint64_t below(std::uint64_t n) { return engine() % n; }
    bool oneIn(std::uint64_t n) { return below(n) == 0; }
    template <typename T> T pick(std::initializer_list<T> values)
    {
        return *(values.begin() + below(values.size()));
    }
};

const char *const modelIds[] = {
    "llama2-7b",   "llama2-13b",   "llama2-70b", "llama3-8b",    "llama3-70b", "llama3.1-405b",
    "llama3.1-8b", "llama3.1-70b", "mistral-7b", "mixtral-8x7b", "qwen2.5-7b", "qwen2.5-72b",
    "gemma2-27b",  "deepseek-v3",  "gpt3-175b",  "plain-70b",    "plain-7.5b"};
const char *const recipeIds[] = {"mixed-adam", "mixed-adam-fp32-grads", "bf16-adamw", "fp32-adam",
                                 "adam-8bit",  "sgd-momentum"};
const char *const gpuIds[] = {"h100-sxm-80gb", "h200-141gb",   "a100-40gb", "b200-180gb",
                              "mi300x-192gb",  "rtx4090-24gb", "v100-16gb"};

/// A few edits of a catalog architecture, valid or not, reaching the branches the
/// catalog alone does not (biases, LayerNorm, tied heads, odd layer counts, ...).
void mutate(Architecture &a, Draw &d)
{
    // The edits that flip a switch, by number; the others set a count.
    const std::pair<std::uint64_t, bool Architecture::*> flips[] = {
        {1, &Architecture::tiedEmbeddings}, {2, &Architecture::linearBiases},
        {3, &Architecture::layerNormBias},  {4, &Architecture::qkvBiases},
        {7, &Architecture::gatedMlp},       {11, &Architecture::routerBias}};
    const int edits = 1 + int(d.below(3));
    for (int i = 0; i < edits; ++i) {
        const std::uint64_t edit = d.below(14);
        if (const auto *f = std::find_if(std::begin(flips), std::end(flips),
                                         [edit](const auto &e) { return e.first == edit; });
            f != std::end(flips)) {
            a.*(f->second) = !(a.*(f->second));
            continue;
        }
        switch (edit) {
        case 0:
            a.layers = d.pick({1, 2, 3, 7, 61, 96, a.layers + 1, a.layers - 1, 0});
            break;
        case 5:
            a.normsPerLayer = d.pick({1, 2, 4, 0, 9});
            break;
        case 6:
            a.positionEmbeddings = d.pick<std::int64_t>({0, 2048, 4096, -1});
            break;
        case 8:
            a.kvHeads = d.pick({1, 2, 4, 8, a.heads, 3});
            break;
        case 9:
            a.ffn = d.pick<std::int64_t>({a.ffn + 1, 4 * a.hidden, 1024, 0});
            break;
        case 10:
            a.denseLayers = d.pick({0, 1, 3, a.layers});
            break;
        case 12:
            a.sharedExperts = d.pick({0, 1, 2});
            break;
        default:
            a.vocab = d.pick<std::int64_t>({32000, 32001, 128256, 256000, 50257});
            break;
        }
    }
}

/// One invalid input, so that every refusal of validate() and of the estimate's
/// overflow checks is reached (a fifth of the scenarios get one).
void spoil(Scenario &s, Draw &d, int *catalogModel)
{
    Layout &l = s.layout;
    Training &t = s.training;
    Overheads &o = s.overheads;
    switch (d.below(28)) {
    case 0:
        l.gpus = d.pick<std::int64_t>({l.gpus + 1, 0, -8, 2'000'000, 1});
        break;
    case 1:
        l.tensorParallel = d.pick({0, 3, 5, 32, 2000});
        break;
    case 2:
        l.pipelineParallel = d.pick({0, 7, 200, 2000});
        break;
    case 3:
        l.contextParallel = d.pick({0, 3, 5, 2000});
        break;
    case 4:
        l.expertParallel = d.pick({0, 2, 3, 32, 2000});
        break;
    case 5:
        s.recipe.weightBytes = d.pick<std::int64_t>({-1, 65});
        break;
    case 6:
        s.recipe = Recipe{"none", "", "", 0, 0, 0, 0};
        break;
    case 7:
        s.gpu.capacityBytes = d.pick<std::int64_t>({0, -1});
        break;
    case 8:
        t.microBatchSize = d.pick<std::int64_t>({0, -1, 1'000'000});
        break;
    case 9:
        t.sequenceLength = d.pick<std::int64_t>({0, 4000, 4097, 1'000'000, 2'000'000'000});
        break;
    case 10:
        t.microBatches = d.pick<std::int64_t>({0, 65536, 70000, 7});
        break;
    case 11:
        t.chunks = d.pick({0, 65, 3});
        break;
    case 12:
        t.activationBytes = d.pick<std::int64_t>({0, 3, 16});
        break;
    case 13:
        l.gpusPerNode = d.pick<std::int64_t>({0, -1, 100'000});
        break;
    case 14:
        l.hsdpShardSize = d.pick<std::int64_t>({-1, 3, 7, l.gpus * 2});
        break;
    case 15:
        l.offload = d.oneIn(2) ? Offload::Optimizer : Offload::OptimizerAndParams;
        l.zeroStage = d.oneIn(2) ? ZeroStage::Ddp : ZeroStage::Zero2;
        break;
    case 16:
        o.cudaContextBytes = d.pick<std::int64_t>({-1, 2'000'000'000'000});
        break;
    case 17:
        o.ddpBucketBytes = d.pick<std::int64_t>({-1, 2'000'000'000'000});
        break;
    case 18:
        o.zeroBucketElements = d.pick<std::int64_t>({-1, 2'000'000'000'000});
        break;
    case 19:
        o.gatheredUnits = d.pick({0, 3});
        break;
    case 20:
        o.fragmentationPercent = d.pick({-1, 101});
        break;
    case 21:
        o.hostRamBytesPerNode = d.pick<std::int64_t>({-1, 1'000'000'000'000'000'000});
        break;
    case 22:
        s.model.plainParameters =
            d.pick<std::int64_t>({0, -1, 100'000'000'000'000, 100'000'000'000'001});
        *catalogModel = -1;
        break;
    case 23:
        // Overflow refusals: the largest batch shapes and step sizes.
        t.microBatchSize = 65536;
        t.sequenceLength = d.pick<std::int64_t>({131072, 1'048'576});
        t.microBatches = 65536;
        t.recompute = Recompute::None;
        t.flashAttention = d.oneIn(2);
        break;
    case 24:
        l.allowUnevenStages = false;
        l.pipelineParallel = d.pick({3, 5, 6});
        break;
    case 25:
        // Either side of the activations' 64-bit refusal (s x s scores without flash).
        t.microBatchSize = d.pick<std::int64_t>({4096, 16384, 65536});
        t.sequenceLength = d.pick<std::int64_t>({1 << 20, 1 << 22, 16'777'216});
        t.flashAttention = d.oneIn(2);
        break;
    case 26:
        // Data-parallel traffic past 1 EB: 1e14 parameters x 65,536 micro-batches.
        s.model.architecture.reset();
        s.model.plainParameters = 100'000'000'000'000;
        l.gpus /= std::int64_t(l.tensorParallel) * l.pipelineParallel;
        l.tensorParallel = l.pipelineParallel = 1;
        t.microBatches = 65536;
        *catalogModel = -1;
        break;
    default:
        t.schedule = PipelineSchedule(d.pick({0, 1, 3, 4}));
        t.chunks = 2;
        break;
    }
}

/// The next scenario of the sequence: every input the engine reads, drawn over
/// ranges that include the edges; a share gets an invalid input (spoil). `*catalogModel`
/// is the index in modelIds of an unedited catalog model, else -1.
Scenario randomScenario(Draw &d, const Catalog &catalog, int *catalogModel)
{
    Scenario s;
    const std::uint64_t modelPick = d.below(std::size(modelIds) + 1);
    *catalogModel = int(modelPick);
    if (modelPick == std::size(modelIds)) {
        // The window's model-size slider (scaledArchitecture).
        s.model.id = "scaled";
        s.model.architecture = scaledArchitecture(d.pick<std::int64_t>(
            {1'000'000'000, 7'000'000'000, 70'000'000'000, 400'000'000'000, 2'000'000'000'000}));
    } else {
        s.model = *catalog.model(modelIds[modelPick]);
    }
    if (modelPick == std::size(modelIds))
        *catalogModel = -1;
    if (s.model.architecture && d.oneIn(8)) {
        mutate(*s.model.architecture, d);
        *catalogModel = -1;
    }
    const bool shaped = s.model.architecture.has_value();
    const bool moe = shaped && s.model.architecture->isMoe();
    s.recipe = *catalog.recipe(recipeIds[d.below(std::size(recipeIds))]);
    s.gpu = *catalog.gpu(gpuIds[d.below(std::size(gpuIds))]);

    Layout &l = s.layout;
    l.tensorParallel = shaped ? d.pick({1, 1, 2, 4, 8, 8, 16}) : 1;
    l.pipelineParallel = shaped ? d.pick({1, 1, 1, 2, 4, 8, 16, 3, 5}) : 1;
    l.contextParallel = d.pick({1, 1, 1, 2, 4});
    l.expertParallel = moe ? d.pick({1, 1, 2, 4, 8, 16}) : 1;
    const std::int64_t dp = d.pick<std::int64_t>({1, 2, 4, 8, 16, 32, 64, 128, 3, 6, 1024});
    l.gpus = dp * l.modelParallel();
    l.zeroStage = ZeroStage(int(d.below(4)));
    const std::int64_t dc = dp * l.contextParallel;
    if (l.zeroStage != ZeroStage::Ddp && d.oneIn(4))
        l.hsdpShardSize = d.pick<std::int64_t>({1, 2, 4, 8, 16, dc, dc / 2});
    if (l.zeroStage != ZeroStage::Ddp && d.oneIn(3))
        l.offload = l.zeroStage == ZeroStage::Zero3 && d.oneIn(2) ? Offload::OptimizerAndParams
                                                                  : Offload::Optimizer;
    l.allowUnevenStages = !d.oneIn(4);
    l.gpusPerNode = d.pick<std::int64_t>({8, 8, 8, 4, 1, 16, 72});

    Training &t = s.training;
    t.microBatchSize = d.pick<std::int64_t>({1, 1, 2, 4, 8, 16});
    t.sequenceLength = d.pick<std::int64_t>({1024, 2048, 4096, 4096, 8192, 16384, 32768, 131072});
    t.microBatches = d.pick<std::int64_t>({1, 2, 4, 8, 8, 16, 32, 64, 128, 256, 4096});
    t.recompute = Recompute(int(d.below(3)));
    t.flashAttention = !d.oneIn(4);
    t.sequenceParallel = !d.oneIn(3);
    t.fp32Logits = !d.oneIn(3);
    t.lossKernel = d.oneIn(3) ? LossKernel::Eager : LossKernel::Fused;
    t.dropout = d.oneIn(4);
    t.activationBytes = d.pick<std::int64_t>({2, 2, 2, 4, 1, 8});
    t.schedule = PipelineSchedule(int(d.below(4)));
    t.chunks = t.schedule == PipelineSchedule::Interleaved1F1B ? d.pick({2, 2, 3, 4, 8}) : 1;

    if (d.oneIn(4)) {
        Overheads &o = s.overheads;
        o.cudaContextBytes = d.pick<std::int64_t>({0, 1LL << 30, 512LL << 20});
        o.ddpBucketBytes = d.pick<std::int64_t>({0, 1, 1LL << 20, 25LL << 20, 1'000'000'000'000});
        o.zeroBucketElements =
            d.pick<std::int64_t>({0, 1000, 500'000'000, 100'000'000'000, 1'000'000'000'000});
        o.gatheredUnits = d.pick({1, 2});
        o.fragmentationPercent = d.pick({0, 5, 10, 100});
        o.hostRamBytesPerNode =
            d.pick<std::int64_t>({0, 1'000'000'000, 2'000'000'000'000, 9'007'199'254'740'992});
    }
    s.modelStatesOnly = d.oneIn(8);
    if (d.oneIn(5))
        spoil(s, d, catalogModel);
    return s;
}

/// randomScenario, then each setting of the settings table (core/settings.h) set with
/// probability 1/8 to a drawn value and applied through applySettings, as every front
/// end applies them: so the framework profile, LoRA, FP8, activation offload, the
/// DeepSpeed stage-3 knobs, the step-time settings and every later table row vary too.
/// A setting added to the table changes the draws, and so the digest, deliberately.
Scenario tableScenario(Draw &d, const Catalog &catalog)
{
    int catalogModel = -1;
    Scenario s = randomScenario(d, catalog, &catalogModel);
    std::vector<SettingValue> values;
    for (const Setting &setting : settings()) {
        if (!d.oneIn(8))
            continue;
        values.push_back({&setting, test::drawSettingValue(setting, setting.get(s), d)});
    }
    applySettings(s, values);
    return s;
}

/// A time in seconds as 12 significant digits (robust to the last bit of a sum).
void hashSeconds(Fnv &h, double seconds)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.12g", seconds);
    h.text(text);
}

/// The step time of a report: its error, its total and every part of its breakdown.
void hashStepTime(Fnv &h, const StepTime &t)
{
    h.text(t.error);
    if (!t.error.empty())
        return;
    const StepBreakdown b = stepBreakdown(t);
    for (double v : {t.stepSeconds, t.matmulEfficiency, b.forward, b.backward, b.recompute,
                     b.bubble, b.optimizer, b.offload, b.cpuOptimizer, b.tensorParallel,
                     b.contextParallel, b.expertParallel, b.pipelineParallel, b.dataParallel})
        hashSeconds(h, v);
}

/// Every model of modelIds prepared once, as a planner keeps them.
std::vector<PreparedModel> preparedCatalogModels(const Catalog &catalog)
{
    std::vector<PreparedModel> prepared;
    for (const char *id : modelIds)
        prepared.push_back(prepare(*catalog.model(id)));
    return prepared;
}

/// True when estimate(model, s) and estimateGeneral(model, s) give the same report,
/// field for field (their hashes); `fast` and `slow` are the reports, written over.
bool samePaths(const PreparedModel &model, const Scenario &s, MemoryReport &fast,
               MemoryReport &slow)
{
    estimate(model, s, fast);
    estimateGeneral(model, s, slow);
    Fnv a, b;
    hashReport(a, fast);
    hashReport(b, slow);
    return a.state == b.state;
}

/// Calls `visit(model, s)` for each scenario of the recorded sequence with its prepared
/// model, as a planner prepares them: each catalog model once and reused, an edited
/// model for its own scenario.
template <typename Visit> void forEachPreparedScenario(Visit visit)
{
    const Catalog &catalog = Catalog::builtIn();
    const std::vector<PreparedModel> prepared = preparedCatalogModels(catalog);
    Draw draw;
    for (int i = 0; i < scenarioCount; ++i) {
        int catalogModel = -1;
        const Scenario s = randomScenario(draw, catalog, &catalogModel);
        const PreparedModel own = catalogModel < 0 ? prepare(s.model) : PreparedModel();
        visit(catalogModel < 0 ? own : prepared[std::size_t(catalogModel)], s);
    }
}

} // namespace

class TestEquivalence : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        const Catalog &catalog = Catalog::builtIn();
        for (const char *id : modelIds)
            QVERIFY2(catalog.model(id), id);
        for (const char *id : recipeIds)
            QVERIFY2(catalog.recipe(id), id);
        for (const char *id : gpuIds)
            QVERIFY2(catalog.gpu(id), id);
    }

    /// estimate(Scenario) on the fixed sequence reproduces the recorded digest.
    void plainPathMatchesRecordedDigest()
    {
        const Catalog &catalog = Catalog::builtIn();
        Draw draw;
        Fnv digest;
        int valid = 0;
        for (int i = 0; i < scenarioCount; ++i) {
            int catalogModel = -1;
            const MemoryReport r = estimate(randomScenario(draw, catalog, &catalogModel));
            valid += r.valid() ? 1 : 0;
            hashReport(digest, r);
        }
        qInfo("valid %d of %d, digest %llu", valid, scenarioCount,
              static_cast<unsigned long long>(digest.state));
        QCOMPARE(valid, recordedValid);
        QCOMPARE(digest.state, recordedDigest);
    }

    /// Scenarios drawn from the settings table (tableScenario): every report and its
    /// step time reproduce the recorded digest, and the prepared path equals the plain one.
    void tableDrawnScenariosMatchRecordedDigest()
    {
        const Catalog &catalog = Catalog::builtIn();
        Draw draw;
        draw.engine.seed(20261203);
        Fnv digest;
        int valid = 0, samePath = 0;
        MemoryReport fast, slow;
        for (int i = 0; i < scenarioCount; ++i) {
            const Scenario s = tableScenario(draw, catalog);
            const MemoryReport r = estimate(s);
            valid += r.valid() ? 1 : 0;
            hashReport(digest, r);
            if (r.valid())
                hashStepTime(digest, stepTime(s, r));
            if (i % 10 == 0) {
                const PreparedModel model = prepare(s.model);
                samePath += samePaths(model, s, fast, slow) ? 1 : 0;
            } else {
                ++samePath;
            }
        }
        qInfo("table-drawn: valid %d of %d, digest %llu", valid, scenarioCount,
              static_cast<unsigned long long>(digest.state));
        QCOMPARE(samePath, scenarioCount);
        QVERIFY(valid > scenarioCount / 5);
        QCOMPARE(valid, recordedTableValid);
        QCOMPARE(digest.state, recordedTableDigest);
    }

    /// The prepared path on the same sequence, as a planner runs it: each catalog model
    /// prepared once and reused, an edited model prepared for its scenario, and one
    /// report overwritten by every estimate (so nothing of an earlier report may
    /// survive into a later one). Both the reused report and estimate(prepared, s)
    /// reproduce the recorded digest, and validate(prepared, s) equals validate(s).
    void preparedPathMatchesRecordedDigest()
    {
        Fnv reused, returned;
        MemoryReport report;
        int valid = 0, sameReason = 0;
        forEachPreparedScenario([&](const PreparedModel &model, const Scenario &s) {
            estimate(model, s, report);
            valid += report.valid() ? 1 : 0;
            hashReport(reused, report);
            hashReport(returned, estimate(model, s));
            sameReason += validate(model, s) == validate(s) ? 1 : 0;
        });
        QCOMPARE(valid, recordedValid);
        QCOMPARE(reused.state, recordedDigest);
        QCOMPARE(returned.state, recordedDigest);
        QCOMPARE(sameReason, scenarioCount);
    }

    /// The engine's general code alone (estimateGeneral: no compiled-in fast path, see
    /// core/estimate.cpp FillPath) on the same sequence: every report equals
    /// estimate(prepared, s)'s, and together they reproduce the recorded digest. The
    /// sequence holds thousands of valid plain scenarios (a dense model, the full report,
    /// none of context or expert parallelism, HSDP, offload, FP8, paging or LoRA) on each
    /// fast path: with tensor or pipeline parallelism (FillPath::Plain) and without
    /// (FillPath::DataParallel, also each scenario's twin with t = p = 1).
    void generalPathMatchesFastPath()
    {
        Fnv general;
        MemoryReport fast, slow;
        int same = 0, sameTwins = 0, plainValid = 0, dataParallelValid = 0;
        forEachPreparedScenario([&](const PreparedModel &model, const Scenario &s) {
            same += samePaths(model, s, fast, slow) ? 1 : 0;
            hashReport(general, slow);
            const Layout &l = s.layout;
            const Training &t = s.training;
            const bool plain = model.architecture && !model.architecture->isMoe() &&
                               !s.modelStatesOnly && l.contextParallel == 1 &&
                               l.expertParallel == 1 && l.hsdpShardSize == 0 &&
                               l.offload == Offload::None && t.fp8 == Fp8Recipe::Off &&
                               !t.activationOffload && !t.pagedOptimizer && !s.fineTuning.enabled();
            if (plain && fast.valid())
                ++(l.tensorParallel == 1 && l.pipelineParallel == 1 ? dataParallelValid
                                                                    : plainValid);
            // Its pure data-parallel twin (t = p = 1, the same GPUs), as the window's
            // default layout runs it.
            Scenario twin = s;
            twin.layout.tensorParallel = 1;
            twin.layout.pipelineParallel = 1;
            sameTwins += samePaths(model, twin, fast, slow) ? 1 : 0;
            dataParallelValid += plain && fast.valid() ? 1 : 0;
        });
        qInfo("plain and valid: %d with t or p > 1, %d with t = p = 1, of %d", plainValid,
              dataParallelValid, scenarioCount);
        QCOMPARE(same, scenarioCount);
        QCOMPARE(sameTwins, scenarioCount);
        QCOMPARE(general.state, recordedDigest);
        QVERIFY2(plainValid >= 10000, "too few plain model-parallel scenarios to compare");
        QVERIFY2(dataParallelValid >= 10000, "too few plain data-parallel scenarios to compare");
    }

    /// The engine's memo of activation figures (core/estimate.cpp, FiguresMemo): a
    /// re-estimate on the same prepared model whose activation settings are unchanged
    /// reuses the last figures. Each random scenario is estimated on the prepared path,
    /// then a twin that differs only where activations do not depend (the data-parallel
    /// degree, the ZeRO stage, the recipe, the GPU, as a GPU-count slider or a strategy
    /// button changes them), then the scenario of another model with the same settings,
    /// and the scenario with FP8 on (a change of the memo's key). Every twin's report
    /// equals its cold estimate(s), field by field.
    void activationMemoMatchesColdEstimates()
    {
        const Catalog &catalog = Catalog::builtIn();
        const std::vector<PreparedModel> prepared = preparedCatalogModels(catalog);
        Draw draw;
        MemoryReport report;
        int same = 0, attempted = 0, validTwins = 0;
        constexpr int pairs = 20'000;
        for (int i = 0; i < pairs; ++i) {
            int catalogModel = -1;
            const Scenario s = randomScenario(draw, catalog, &catalogModel);
            if (catalogModel < 0)
                continue;
            ++attempted;
            Scenario twin = s;
            twin.layout.gpus *= 2;
            twin.layout.zeroStage = ZeroStage((int(s.layout.zeroStage) + 1) % 4);
            twin.layout.hsdpShardSize = 0;
            twin.layout.offload = Offload::None;
            twin.recipe = *catalog.recipe(recipeIds[std::size_t(i) % std::size(recipeIds)]);
            twin.gpu = *catalog.gpu(gpuIds[std::size_t(i) % std::size(gpuIds)]);
            Scenario other = s;
            const std::size_t otherModel = (std::size_t(catalogModel) + 1) % std::size(modelIds);
            other.model = *catalog.model(modelIds[otherModel]);
            // The cold estimates first: each prepares its model again (a new serial).
            Fnv coldTwin, coldOther, memoTwin, memoOther;
            const MemoryReport twinReport = estimate(twin);
            hashReport(coldTwin, twinReport);
            hashReport(coldOther, estimate(other));
            const PreparedModel &model = prepared[std::size_t(catalogModel)];
            estimate(model, s, report);
            estimate(model, twin, report);
            hashReport(memoTwin, report);
            estimate(prepared[otherModel], other, report);
            hashReport(memoOther, report);
            // A setting that is part of the key (FP8 saves the linear inputs in one byte)
            // must miss the memo: the figures change with it.
            Scenario fp8 = s;
            fp8.training.fp8 = Fp8Recipe::Delayed;
            Fnv coldFp8, memoFp8;
            hashReport(coldFp8, estimate(fp8));
            estimate(model, s, report);
            estimate(model, fp8, report);
            hashReport(memoFp8, report);
            same += memoTwin.state == coldTwin.state && memoOther.state == coldOther.state &&
                            memoFp8.state == coldFp8.state
                        ? 1
                        : 0;
            validTwins += twinReport.valid() ? 1 : 0;
            if (i < pairs / 2)
                continue;
            // And back to the first model: its memo was replaced by the other model's.
            Fnv coldAgain, memoAgain;
            hashReport(coldAgain, estimate(s));
            estimate(model, s, report);
            hashReport(memoAgain, report);
            same += memoAgain.state == coldAgain.state ? 0 : -1;
        }
        qInfo("%d of %d twins equal to their cold estimates, %d valid", same, attempted,
              validTwins);
        QVERIFY(validTwins > 1000);
        QCOMPARE(same, attempted);
    }

    /// validate(s) is the report's error: empty exactly for the valid scenarios.
    void validateAgreesWithEstimate()
    {
        const Catalog &catalog = Catalog::builtIn();
        Draw draw;
        int agree = 0;
        for (int i = 0; i < scenarioCount; ++i) {
            int catalogModel = -1;
            const Scenario s = randomScenario(draw, catalog, &catalogModel);
            const MemoryReport r = estimate(s);
            const std::string reason = validate(s);
            // A report refused while estimating (a byte count past 1 EB) passed validate().
            agree +=
                (reason == r.error || (reason.empty() && r.error.find("1 EB") != std::string::npos))
                    ? 1
                    : 0;
        }
        QCOMPARE(agree, scenarioCount);
    }
};

QTEST_GUILESS_MAIN(TestEquivalence)
#include "test_equivalence.moc"
