#include "reportjson.h"

#include "estimate.h"
#include "qtext.h"
#include "scenariofile.h"
#include "schedule.h"
#include "settings.h"
#include "steptime.h"

#include <QJsonArray>

namespace shardscope {

namespace {

QJsonObject communicationJson(const CommunicationBytes &c)
{
    return {{"data_parallel", qint64(c.dataParallel)},
            {"tensor_parallel", qint64(c.tensorParallel)},
            {"pipeline_parallel", qint64(c.pipelineParallel)},
            {"context_parallel", qint64(c.contextParallel)},
            {"expert_parallel", qint64(c.expertParallel)},
            {"total", qint64(c.total())}};
}

/// The step time of `s` (core/steptime.h) into `out`: step_seconds, mfu, hfu,
/// tokens_per_second, train_seconds, gpu_hours, cost_dollars, step_breakdown and
/// matmul_efficiency, and its notes appended to `notes`; each null, with a note saying
/// why, when the step cannot be timed (a GPU speed the catalog does not know).
/// The report's "model" object: id, name, parameters, source and, with an
/// architecture, its shape (and a MoE model's experts and active parameters).
QJsonObject modelJson(const Scenario &s, const MemoryReport &r)
{
    QJsonObject model{{"id", QString::fromStdString(s.model.id)},
                      {"name", QString::fromStdString(s.model.displayName)},
                      {"parameters", qint64(r.parameters)},
                      {"source", QString::fromStdString(s.model.source)}};
    if (const auto &a = s.model.architecture) {
        QJsonObject arch{{"layers", a->layers},       {"hidden", qint64(a->hidden)},
                         {"ffn", qint64(a->ffn)},     {"heads", a->heads},
                         {"kv_heads", a->kvHeads},    {"vocab", qint64(a->vocab)},
                         {"tied", a->tiedEmbeddings}, {"gated_mlp", a->gatedMlp}};
        if (a->isMoe()) {
            arch.insert("experts", a->experts);
            arch.insert("active_experts", a->activeExperts);
            arch.insert("expert_ffn", qint64(a->effectiveExpertFfn()));
            arch.insert("shared_experts", a->sharedExperts);
            arch.insert("dense_layers", a->denseLayers);
            if (a->moeLayerStep != 1) // interleaved (Llama 4 Maverick: 2); absent means 1
                arch.insert("moe_layer_step", a->moeLayerStep);
            model.insert("active_parameters", qint64(s.model.activeParameters()));
        }
        model.insert("architecture", arch);
    }
    return model;
}

void insertStepTime(QJsonObject &out, QJsonArray &notes, const Scenario &s, const MemoryReport &r)
{
    const StepTime st = stepTime(s, r);
    if (st.valid()) {
        out.insert("step_seconds", st.stepSeconds);
        out.insert("mfu", st.mfu);
        out.insert("hfu", st.hfu);
        out.insert("tokens_per_second", st.tokensPerSecond);
        out.insert("train_seconds", st.trainSeconds);
        out.insert("gpu_hours", st.gpuHours);
        out.insert("cost_dollars", st.costDollars);
        out.insert("step_breakdown", stepBreakdownToJson(stepBreakdown(st)));
        out.insert("matmul_efficiency", st.matmulEfficiency);
        if (!st.notes.empty()) {
            for (const auto &n : st.notes)
                notes.append(QString::fromStdString(n));
            out.insert("notes", notes);
        }
        return;
    }
    for (const char *k : {"step_seconds", "mfu", "hfu", "tokens_per_second", "train_seconds",
                          "gpu_hours", "cost_dollars", "step_breakdown", "matmul_efficiency"})
        out.insert(QLatin1String(k), QJsonValue::Null);
    notes.append(QStringLiteral("Step time not computed: ") + QString::fromStdString(st.error));
    out.insert("notes", notes);
}

} // namespace

QJsonObject stepBreakdownToJson(const StepBreakdown &b)
{
    return {{"forward", b.forward},
            {"backward", b.backward},
            {"recompute", b.recompute},
            {"bubble", b.bubble},
            {"optimizer", b.optimizer},
            {"offload", b.offload},
            {"cpu_optimizer", b.cpuOptimizer},
            {"exposed_communication", QJsonObject{{"tensor_parallel", b.tensorParallel},
                                                  {"context_parallel", b.contextParallel},
                                                  {"expert_parallel", b.expertParallel},
                                                  {"pipeline_parallel", b.pipelineParallel},
                                                  {"data_parallel", b.dataParallel},
                                                  {"total", b.exposedCommunication()}}}};
}

QJsonObject timelineToJson(const Scenario &s)
{
    const ScheduleParams p = scheduleParams(s);
    const Timeline t = schedule(p);
    if (!t.valid())
        return {{"error", QString::fromStdString(t.error)}};
    QJsonArray stages;
    for (std::size_t i = 0; i < t.stages.size(); ++i)
        stages.append(QJsonObject{{"stage", qint64(i)},
                                  {"busy", t.stages[i].busy},
                                  {"bubble_fraction", t.stages[i].bubbleFraction},
                                  {"peak_in_flight", t.stages[i].peakInFlight}});
    return {{"schedule", toQString(pipelineScheduleId(p.schedule))},
            {"stages", p.stages},
            {"microbatches", p.microBatches},
            {"chunks", p.chunks},
            {"makespan", t.makespan},
            {"bubble_fraction", t.bubbleFraction},
            {"bubble_over_ideal", t.bubbleOverIdeal},
            {"per_stage", stages}};
}

QJsonObject reportToJson(const Scenario &s, const MemoryReport &r, bool withTimeline)
{
    if (!r.valid())
        return {{"error", QString::fromStdString(r.error)}};

    const QJsonObject model = modelJson(s, r);
    const QJsonObject recipe{{"id", QString::fromStdString(s.recipe.id)},
                             {"weights", qint64(s.recipe.weightBytes)},
                             {"gradients", qint64(s.recipe.gradientBytes)},
                             {"master_weights", qint64(s.recipe.masterWeightBytes)},
                             {"optimizer_states", qint64(s.recipe.optimizerBytes)},
                             {"bytes_per_parameter", qint64(s.recipe.totalBytesPerParameter())}};
    const QJsonObject gpu{{"id", QString::fromStdString(s.gpu.id)},
                          {"name", QString::fromStdString(s.gpu.name)},
                          {"capacity_bytes", qint64(s.gpu.usableBytes())},
                          {"datasheet_bytes", qint64(s.gpu.capacityBytes)},
                          {"driver_reported_bytes", qint64(s.gpu.driverReportedBytes)},
                          {"source", QString::fromStdString(s.gpu.source)}};
    const Layout &l = s.layout;
    const QJsonObject layout{{"gpus", qint64(l.gpus)},
                             {"data_parallel", qint64(l.dataParallel())},
                             {"tensor_parallel", l.tensorParallel},
                             {"pipeline_parallel", l.pipelineParallel},
                             {"context_parallel", l.contextParallel},
                             {"expert_parallel", l.expertParallel},
                             {"strategy", toQString(zeroStageId(l.zeroStage))},
                             {"zero_stage", int(l.zeroStage)},
                             {"shard_group", qint64(l.shardGroup())},
                             {"hsdp_shard_size", qint64(l.hsdpShardSize)},
                             {"offload", toQString(offloadId(l.offload))},
                             {"gpus_per_node", qint64(l.gpusPerNode)}};
    const Training &t = s.training;
    const QJsonObject training{{"micro_batch_size", qint64(t.microBatchSize)},
                               {"sequence_length", qint64(t.sequenceLength)},
                               {"microbatches", qint64(t.microBatches)},
                               {"global_batch", qint64(t.globalBatch(l.dataParallel()))},
                               {"recompute", toQString(recomputeId(t.recompute))},
                               {"flash_attention", t.flashAttention},
                               {"sequence_parallel", t.sequenceParallel},
                               {"fp32_logits", t.fp32Logits},
                               {"loss_kernel", toQString(lossKernelId(t.lossKernel))},
                               {"dropout", t.dropout},
                               {"activation_bytes", qint64(t.activationBytes)},
                               {"schedule", toQString(pipelineScheduleId(t.schedule))},
                               {"chunks", t.chunks}};
    const Overheads &o = s.overheads;
    const QJsonObject overheads{{"cuda_context_bytes", qint64(o.cudaContextBytes)},
                                {"ddp_bucket_bytes", qint64(o.ddpBucketBytes)},
                                {"zero_bucket_elements", qint64(o.zeroBucketElements)},
                                {"gathered_units", o.gatheredUnits},
                                {"fragmentation_percent", o.fragmentationPercent},
                                {"host_ram_bytes_per_node", qint64(o.hostRamBytesPerNode)}};

    QJsonArray groups;
    for (const auto &g : r.groups) {
        QJsonObject bytes;
        for (int c = 0; c < componentCount; ++c)
            bytes.insert(QString::fromStdString(componentKey(Component(c))),
                         qint64(componentValue(g.bytes, Component(c))));
        groups.append(QJsonObject{
            {"label", QString::fromStdString(g.label)},
            {"pipeline_stage", g.pipelineStage},
            {"first_rank", qint64(g.firstRank)},
            {"gpus", qint64(g.gpuCount)},
            {"first_layer", g.firstLayer},
            {"layers", g.layerCount},
            {"holds_embedding", g.holdsEmbedding},
            {"holds_output_head", g.holdsOutputHead},
            {"parameters_per_gpu", qint64(g.parametersPerGpu)},
            {"peak_in_flight_microbatches", g.peakInFlight},
            {"embedding_in_flight_microbatches", g.embeddingInFlight},
            {"output_in_flight_microbatches", g.outputInFlight},
            {"bytes", bytes},
            {"total_bytes", qint64(g.totalBytes())},
            {"activation_bytes",
             QJsonObject{{"layers", qint64(g.activations.layers)},
                         {"recompute_working_set", qint64(g.activations.workingSet)},
                         {"loss_backward", qint64(g.activations.lossBackward)},
                         {"backward_transient", qint64(g.activations.transient)},
                         {"embedding", qint64(g.activations.embedding)},
                         {"output", qint64(g.activations.output)},
                         {"per_microbatch", qint64(g.activationBytesPerMicroBatch())}}},
            {"buffer_bytes",
             QJsonObject{{"cuda_context", qint64(g.buffers.cudaContext)},
                         {"communication_buckets", qint64(g.buffers.communicationBuckets)},
                         {"gathered_units", qint64(g.buffers.gatheredUnits)},
                         {"fragmentation", qint64(g.buffers.fragmentation)}}},
            {"host_bytes", qint64(g.hostBytes)},
            {"communication_bytes_per_step", communicationJson(g.communication)}});
    }
    QJsonArray notes;
    for (const auto &n : r.notes)
        notes.append(QString::fromStdString(n));
    const GpuGroup *busiest = nullptr;
    for (const auto &g : r.groups)
        if (!busiest || g.communication.total() > busiest->communication.total())
            busiest = &g;
    QJsonObject out{{"parameters", qint64(r.parameters)},
                    {"capacity_bytes", qint64(r.capacityBytes)},
                    {"datasheet_bytes", qint64(s.gpu.capacityBytes)},
                    {"peak_bytes", qint64(r.peakBytes())},
                    {"headroom_bytes", qint64(r.headroomBytes())},
                    {"fits", r.fits()},
                    {"model", model},
                    {"recipe", recipe},
                    {"gpu", gpu},
                    {"layout", layout},
                    {"training", training},
                    {"overheads", overheads},
                    {"model_states_only", s.modelStatesOnly},
                    {"modelled", QJsonObject{{"activations", r.activationsModelled},
                                             {"buffers", !s.modelStatesOnly}}},
                    {"host_bytes_per_node", qint64(r.hostBytesPerNode)},
                    {"host_capacity_bytes_per_node", qint64(r.hostCapacityBytesPerNode)},
                    {"host_fits", r.hostFits()},
                    {"communication_bytes_per_step",
                     busiest ? communicationJson(busiest->communication) : QJsonObject{}},
                    {"notes", notes},
                    {"groups", groups}};
    // Every input the numbers came from, by its settings-table key (the scenario file's).
    out.insert("inputs", settingsToJson(s));
    // Which framework profile produced the numbers (core/layout.h Framework).
    out.insert("framework", toQString(frameworkId(s.layout.framework)));
    // Whether FP8 training and activation offload produced the numbers (core/recipe.h
    // Fp8Recipe, Training::activationOffload), beside the profile that implements them.
    out.insert("fp8", toQString(fp8RecipeId(s.training.fp8)));
    out.insert("activation_offload", s.training.activationOffload);
    out.insert("paged_optimizer", s.training.pagedOptimizer);
    // What trains (the LoRA adapters, or every parameter) beside `parameters`.
    out.insert("trainable_parameters", qint64(r.trainableParameters));
    if (const FineTuning &f = s.fineTuning; f.enabled()) {
        const Setting *targets = settingByKey("lora_targets");
        out.insert(
            "lora",
            QJsonObject{{"rank", f.loraRank},
                        {"alpha", f.loraAlpha},
                        {"targets", QString::fromStdString(settingText(*targets, f.loraTargets))},
                        {"base_format", toQString(baseFormatId(f.baseFormat))}});
    }
    insertStepTime(out, notes, s, r);
    if (withTimeline && l.pipelineParallel > 1)
        out.insert("timeline", timelineToJson(s));
    return out;
}

} // namespace shardscope
