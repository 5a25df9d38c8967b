// Framework profiles (docs/frameworks.md): what DeepSpeed, PyTorch FSDP2 / torchtitan and
// Megatron-Core really allocate, each checked against the framework's own estimator or a
// hand calculation written out here. The sources, file and line, are in
// docs/frameworks.md.
#include "estimate.h"
#include "framework.h"
#include "settings.h"
#include "testscenarios.h"

#include <QTest>
#include <algorithm>

using namespace shardscope;

namespace {

constexpr qint64 P = 6738415616LL;

/// Llama 2 7B with mixed-precision AdamW (2 + 2 + 4 + 8 bytes per parameter) under
/// `framework`, `gpus` ranks of ZeRO stage `z`.
Scenario llama7b(Framework framework, std::int64_t gpus, ZeroStage z, int t = 1, int p = 1)
{
    Scenario s = test::onH100s(test::llama2_7b(), gpus, z, t, p);
    s.layout.framework = framework;
    return s;
}

} // namespace

class TestFrameworks : public QObject
{
    Q_OBJECT
private slots:
    void frameworkSetting();
    void profilesAreOneRowEach();
    void genericZero2IsTheZeroPaper();
    void deepSpeedZero2Estimator();
    void deepSpeedZero1KeepsFullBf16Gradients();
    void deepSpeedZero3ModelStates();
    void deepSpeedZero3Buffers();
    void deepSpeedOffloadHostRamIsItsEstimator();
    void fsdp2HasNoReduceBucket();
    void fsdp2SelectiveIsOpLevel();
    void fsdp2UnderPipelineKeepsWholeStates();
    void fsdp2ReshardAfterForwardNever();
    void megatronEighteenBytes();
    void megatronDistributedOptimizer();
    void megatronTheoreticalMemoryT2P2();
    void megatronRefusesZero2();
};

void TestFrameworks::frameworkSetting()
{
    const Setting *f = settingByKey("framework");
    QVERIFY(f);
    QCOMPARE(f->kind, SettingKind::Choice);
    std::string error;
    QCOMPARE(parseSettingText(*f, "torchtitan", &error).value_or(-1), qint64(Framework::Fsdp2));
    QCOMPARE(parseSettingText(*f, "DeepSpeed", &error).value_or(-1), qint64(Framework::DeepSpeed));
    QVERIFY(!parseSettingText(*f, "jax", &error));
    QCOMPARE(
        QString::fromStdString(error),
        QStringLiteral("unknown framework 'jax' (known: generic, deepspeed, fsdp2, megatron)"));
    QCOMPARE(Scenario().layout.framework, Framework::Generic); // today's accounting by default
}

/// The registry (core/framework.cpp) lists one profile per Framework value in enum order;
/// ids, names and aliases parse back; each profile's policies are the facts its file
/// cites (docs/frameworks.md).
void TestFrameworks::profilesAreOneRowEach()
{
    const std::span<const FrameworkProfile> all = frameworkProfiles();
    QCOMPARE(all.size(), std::size_t(4));
    QCOMPARE(frameworkIds().size(), all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        const auto f = Framework(i);
        QCOMPARE(&frameworkProfile(f), &all[i]);
        QCOMPARE(frameworkIds()[i], all[i].id);
        QCOMPARE(parseFramework(all[i].id), std::optional<Framework>(f));
        for (std::string_view alias : all[i].aliases)
            if (!alias.empty())
                QCOMPARE(parseFramework(alias), std::optional<Framework>(f));
        // A profile that caps the ZeRO stage says why.
        QCOMPARE(all[i].highestZeroStage < ZeroStage::Zero3, !all[i].zeroStageRefusal.empty());
        // Only an op-level selective policy has a selective note to add.
        QVERIFY(all[i].selectiveNote.empty() || all[i].selective == SelectivePolicy::OpLevel);
    }
    QCOMPARE(frameworkName(Framework::Fsdp2), std::string_view("PyTorch FSDP2 / torchtitan"));
    QCOMPARE(parseFramework("mcore"), std::optional<Framework>(Framework::Megatron));
    QCOMPARE(parseFramework(""), std::optional<Framework>());
    // Out of range falls back to the generic profile.
    QCOMPARE(frameworkProfile(Framework(99)).id, std::string_view("generic"));

    const FrameworkProfile &ds = frameworkProfile(Framework::DeepSpeed);
    QCOMPARE(ds.fp32Gradients, Fp32GradientPolicy::PartitionCopy);
    QVERIFY(ds.zero3ReduceBucket);
    QCOMPARE(ds.zero3Gather, GatherPolicy::LiveParameterBudget);
    const FrameworkProfile &fsdp = frameworkProfile(Framework::Fsdp2);
    QCOMPARE(fsdp.reduceBucket, ReduceBucketPolicy::OneUnitGradient);
    QCOMPARE(fsdp.fp8, Fp8Implementation::TorchaoFloat8);
    QCOMPARE(fsdp.selective, SelectivePolicy::OpLevel);
    const FrameworkProfile &mc = frameworkProfile(Framework::Megatron);
    QCOMPARE(mc.fp32Gradients, Fp32GradientPolicy::FullMainGradBuffer);
    QCOMPARE(mc.reduceBucket, ReduceBucketPolicy::InPlace);
    QCOMPARE(mc.highestZeroStage, ZeroStage::Zero1);
    const FrameworkProfile &g = frameworkProfile(Framework::Generic);
    QCOMPARE(g.fp32Gradients, Fp32GradientPolicy::RecipeOnly);
    QVERIFY(g.note.empty());
}

void TestFrameworks::genericZero2IsTheZeroPaper()
{
    // Rajbhandari et al. 2020, Figure 1: ZeRO-2 = 2 Psi + (2 + 12) Psi / N_d.
    Scenario s = llama7b(Framework::Generic, 8, ZeroStage::Zero2);
    s.modelStatesOnly = true;
    const MemoryReport r = estimate(s);
    QCOMPARE(qint64(r.groups[0].bytes.modelStates()), 2 * P + 14 * P / 8);
    QVERIFY(r.notes.size() == 1); // only "Model states only": no framework note
}

void TestFrameworks::deepSpeedZero2Estimator()
{
    // DeepSpeed deepspeed/runtime/zero/stage_1_and_2.py, estimate_zero2_model_states_mem_needs
    // (line 2444 at 38327e0): gpu_mem = 2 x total_params + 18 x total_params / total_gpus
    // (corrected in PR #5099 after issues #4076 and #5102). 18 = 2 (bf16 gradient
    // partition) + 4 (its fp32 copy) + 4 (fp32 master) + 8 (Adam m, v).
    Scenario s = llama7b(Framework::DeepSpeed, 8, ZeroStage::Zero2);
    s.modelStatesOnly = true;
    const MemoryReport r = estimate(s);
    QVERIFY(r.valid());
    const GpuGroup &g = r.groups[0];
    QCOMPARE(qint64(g.bytes.modelStates()), 2 * P + 18 * P / 8); // 28,638,266,368 bytes
    QCOMPARE(qint64(g.bytes.modelStates()), 28638266368LL);
    QCOMPARE(qint64(g.bytes.gradients), 6 * P / 8);
    QCOMPARE(QString::fromStdString(r.notes.back()).left(21),
             QStringLiteral("Framework: DeepSpeed "));
}

void TestFrameworks::deepSpeedOffloadHostRamIsItsEstimator()
{
    // DeepSpeed's estimators (stage_1_and_2.py estimate_zero2_model_states_mem_needs, line
    // 2440 at 38327e0): with cpu_offload, cpu_mem = total_params x max(4 x gpus, 16) x 1.5.
    // On one node of 8 ranks each rank's fp32 model at load (4 x 8 = 32 bytes per
    // parameter) outweighs the offloaded states: 48 P.
    Scenario s = llama7b(Framework::DeepSpeed, 8, ZeroStage::Zero2);
    s.layout.offload = Offload::Optimizer;
    s.layout.gpusPerNode = 8;
    const MemoryReport ds = estimate(s);
    QVERIFY(ds.valid());
    QCOMPARE(qint64(ds.hostBytesPerNode), 48 * P); // 323,443,949,568 bytes
    QVERIFY(std::any_of(ds.notes.begin(), ds.notes.end(), [](const std::string &n) {
        return n.starts_with("Host RAM: 323.4 GB per node as DeepSpeed's own estimator");
    }));
    // The generic accounting counts only the offloaded states: master weights, Adam and
    // the gradient shard (4 + 8 + 2 bytes per parameter, sharded over 8, times 8 GPUs).
    s.layout.framework = Framework::Generic;
    const MemoryReport generic = estimate(s);
    QCOMPARE(qint64(generic.hostBytesPerNode), 8 * qint64(generic.groups[0].hostBytes));
    QCOMPARE(qint64(generic.hostBytesPerNode), 14 * P);
    // Two ranks on a node: the offloaded states (4 + 8 + 2 + 4 bytes per parameter: the
    // fp32 gradient partition DeepSpeed keeps too) outweigh 2 fp32 copies: 18 P x 1.5 =
    // 27 P. DeepSpeed's estimator writes max(4 x 2, 16) x 1.5 = 24 P: it leaves out the
    // bf16 gradient partition.
    s.layout.framework = Framework::DeepSpeed;
    s.layout.gpus = 2;
    s.layout.gpusPerNode = 2;
    QCOMPARE(qint64(estimate(s).hostBytesPerNode), 27 * P);
    // ZeRO-3 builds the model partitioned (zero.Init), so no load-time copy: the offloaded
    // states x 1.5 (stage3.py estimate_zero3_model_states_mem_needs, line 3026, writes
    // 18 P x 1.5; the engine's 20 P adds the bf16 gradient partition, as
    // deepSpeedZero3ModelStates explains).
    s = llama7b(Framework::DeepSpeed, 8, ZeroStage::Zero3);
    s.layout.offload = Offload::OptimizerAndParams;
    s.layout.gpusPerNode = 8;
    QCOMPARE(qint64(estimate(s).hostBytesPerNode), 30 * P);
}

void TestFrameworks::deepSpeedZero1KeepsFullBf16Gradients()
{
    // ZeRO-1 (same stage_1_and_2.py): bf16 gradients whole, their fp32 partition
    // sharded: 2P + 2P + (4 + 4 + 8) P / 8 = 4P + 16P/8.
    Scenario s = llama7b(Framework::DeepSpeed, 8, ZeroStage::Zero1);
    s.modelStatesOnly = true;
    QCOMPARE(qint64(estimate(s).groups[0].bytes.modelStates()), 4 * P + 16 * P / 8);
}

void TestFrameworks::deepSpeedZero3ModelStates()
{
    // deepspeed/runtime/zero/stage3.py: bf16 parameter and gradient partitions (2 + 2), the
    // fp32 gradient of one optimizer sub-group (sub_group_size 1e9 elements, line 1905:
    // fp32_partitioned_groups_flat[sub_group_id].grad), fp32 master and Adam (12).
    // P / 8 = 842,301,952 < 1e9, so the whole shard's fp32 gradient exists: 20 P / 8.
    // estimate_zero3_model_states_mem_needs (line 3038) writes 18 P / G: it leaves out
    // the bf16 gradient partition (2 P / G).
    Scenario s = llama7b(Framework::DeepSpeed, 8, ZeroStage::Zero3);
    s.modelStatesOnly = true;
    QCOMPARE(qint64(estimate(s).groups[0].bytes.modelStates()), 20 * P / 8);
    QCOMPARE(qint64(estimate(s).groups[0].bytes.modelStates()) - 18 * P / 8, 2 * P / 8);
    // A sub-group of 1e8 elements: 16 P / 8 + 4 x 1e8.
    s.overheads.subGroupElements = 100'000'000;
    QCOMPARE(qint64(estimate(s).groups[0].bytes.modelStates()), 16 * P / 8 + 400'000'000LL);
}

void TestFrameworks::deepSpeedZero3Buffers()
{
    // DeepSpeed ZeRO-3 buffers for Llama 2 7B on 8 GPUs (config.py defaults), no
    // fragmentation reserve (sources in core/frameworks/deepspeed.h):
    //  - ipg reduce bucket, reduce_bucket_size 5e8 elements in bf16 (stage3.py), and the
    //    reduce-scatter's interleaved copy of it (coalesced_collectives.py torch.cat):
    //    2 x 5e8 x 2 = 2,000,000,000 bytes;
    //  - parameters kept from the forward into the backward under
    //    stage3_max_reuse_distance 1e9: the head (32,000 x 4096 = 131,072,000) and the
    //    last k blocks (202,383,360 each) with 2 x 131,072,000 + 2 k x 202,383,360 < 1e9:
    //    k = 0 (262,144,000) and 1 (666,910,720), not 2 (1,071,677,440); 131,072,000 +
    //    2 x 202,383,360 = 535,838,720, above the one block in use;
    //  - the prefetch, 5e7, fits under stage3_max_live_parameters 1e9 - 535,838,720;
    //  - the largest parameter's whole gradient: the head, 131,072,000;
    //    (535,838,720 + 50,000,000 + 131,072,000) x 2 = 1,433,821,440 bytes;
    //  - persistent parameters (numel <= 1e5): the 65 RMSNorm weights of 4096,
    //    65 x 4096 x 2 = 532,480 bytes.
    Scenario s = llama7b(Framework::DeepSpeed, 8, ZeroStage::Zero3);
    s.overheads.fragmentationPercent = 0;
    const GpuGroup g = estimate(s).groups[0];
    QCOMPARE(qint64(g.buffers.communicationBuckets), 2'000'000'000LL);
    QCOMPARE(qint64(g.buffers.gatheredUnits), 1'433'821'440LL + 532'480LL);
    // stage3_max_reuse_distance 0 releases every module after its forward: the block in
    // use and the prefetch, (202,383,360 + 50,000,000 + 131,072,000) x 2.
    s.overheads.stage3MaxReuseDistance = 0;
    QCOMPARE(qint64(estimate(s).groups[0].buffers.gatheredUnits),
             (202'383'360LL + 50'000'000 + 131'072'000) * 2 + 532'480);
    // The generic profile: no bucket under ZeRO-3, (2 + 1) units x 202,383,360 x 2.
    s.layout.framework = Framework::Generic;
    const GpuGroup generic = estimate(s).groups[0];
    QCOMPARE(qint64(generic.buffers.communicationBuckets), 0LL);
    QCOMPARE(qint64(generic.buffers.gatheredUnits), 3 * 202'383'360LL * 2);
}

void TestFrameworks::fsdp2HasNoReduceBucket()
{
    // FSDP2 reduce-scatters each unit's gradient as it is produced
    // (torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py foreach_reduce): no
    // 5e8-element DeepSpeed bucket; under reshard_after_forward=False (ZeRO-2) one
    // unit's bf16 gradient, 202,383,360 x 2 bytes.
    Scenario s = llama7b(Framework::Fsdp2, 8, ZeroStage::Zero2);
    QCOMPARE(qint64(estimate(s).groups[0].buffers.communicationBuckets), 202'383'360LL * 2);
    s.layout.framework = Framework::Generic;
    QCOMPARE(qint64(estimate(s).groups[0].buffers.communicationBuckets), 500'000'000LL * 2);
    // ZeRO-3: the gathered-units buffer already holds that gradient; no bucket.
    s.layout.framework = Framework::Fsdp2;
    s.layout.zeroStage = ZeroStage::Zero3;
    QCOMPARE(qint64(estimate(s).groups[0].buffers.communicationBuckets), 0LL);
}

void TestFrameworks::fsdp2SelectiveIsOpLevel()
{
    // torchtitan's "selective" is op-level checkpointing
    // (torchtitan/distributed/activation_checkpoint.py SelectiveAC lines 257-274 at
    // b5bcd76: every second matmul recomputed); under fsdp2 the engine counts it and
    // says so. Llama 2 7B (h 4096, ffn 11008, 32 heads, MHA), s 4096, b 1, on 8 GPUs,
    // bytes per block:
    //   op-level: block input, wq, wv, w2, SDPA outputs 5 x 4096 x 4096 x 2 = 167,772,160,
    //   w1 4096 x 11008 x 2 = 90,177,536, logsumexp 4 x 32 x 4096 = 524,288:  258,473,984
    //   Megatron's selective (generic): 8 x 4096 x 4096 x 2 + 3 x 4096 x 11008 x 2
    //                                                                          538,968,064
    //   difference                                                             280,494,080
    // The activations hold 32 kept blocks. One block's recomputed working set (its
    // no-recomputation terms, 538,968,064 + 524,288, less what it kept, and under
    // op-level less w2's saved output too, 4096 x 4096 x 2 = 33,554,432) is under both
    // profiles smaller than the final norm and logits, 2 x 4096 x 4096 x 2 + 4096 x
    // 32,000 x 4 = 591,396,864 bytes, which the head's backward frees before any block
    // is recomputed (ActivationBytes::transient): it adds nothing. So the generic
    // profile's exceed fsdp2's by 32 x 280,494,080.
    Scenario s = llama7b(Framework::Fsdp2, 8, ZeroStage::Zero3);
    s.training.recompute = Recompute::Selective;
    const MemoryReport r = estimate(s);
    QVERIFY(r.valid());
    const QString note = QString::fromStdString(r.notes.back());
    QVERIFY(note.contains(QStringLiteral("op-level")));
    QVERIFY(note.contains(QStringLiteral("every other matmul")));
    Scenario g = s;
    g.layout.framework = Framework::Generic;
    const MemoryReport rg = estimate(g);
    QVERIFY(rg.valid());
    QCOMPARE(qint64(rg.groups[0].bytes.activations - r.groups[0].bytes.activations),
             32LL * 280'494'080);
    QCOMPARE(r.groups[0].activations.transient, 0LL);
    QCOMPARE(r.groups[0].activations.workingSet - rg.groups[0].activations.workingSet,
             280'494'080LL + 33'554'432);
    // Full and none mean the same under every profile.
    s.training.recompute = g.training.recompute = Recompute::Full;
    QCOMPARE(estimate(s).groups[0].bytes.activations, estimate(g).groups[0].bytes.activations);
}

void TestFrameworks::fsdp2UnderPipelineKeepsWholeStates()
{
    // torchtitan with PP (its default fsdp_reshard_after_forward) and PyTorch pipelining's
    // no-sync backward: every GPU of a stage keeps the stage's weights gathered and its
    // gradients unsharded in fp32 until the last micro-batch; master weights and AdamW
    // states stay sharded. Llama 2 7B (32 layers) on 32 GPUs, t 1, p 4, d 8: each stage
    // holds 8 layers and each GPU psi of them (the report's parametersPerGpu), so
    //   weights 2 psi, gradients 4 psi, master 4 ceil(psi / 8), AdamW 8 ceil(psi / 8).
    Scenario s = llama7b(Framework::Fsdp2, 32, ZeroStage::Zero3, 1, 4);
    const MemoryReport r = estimate(s);
    QVERIFY2(r.valid(), r.error.c_str());
    QCOMPARE(r.groups.size(), std::size_t(4));
    for (const GpuGroup &g : r.groups) {
        const std::int64_t psi = g.parametersPerGpu;
        const std::int64_t shard = (psi + 7) / 8;
        QCOMPARE(g.bytes.weights, 2 * psi);
        QCOMPARE(g.bytes.gradients, 4 * psi);
        QCOMPARE(g.bytes.masterWeights, 4 * shard);
        QCOMPARE(g.bytes.optimizerStates, 8 * shard);
        // Nothing gathered per unit, no unit's gradient bucket: both are whole already.
        QCOMPARE(g.buffers.gatheredUnits, std::int64_t(0));
        QCOMPARE(g.buffers.communicationBuckets, std::int64_t(0));
        // Traffic: the weights gathered once and the fp32 gradients reduce-scattered once
        // a step, the ring's share of (2 + 4) psi bytes over 8 ranks (b - ceil(b / 8)), not
        // every micro-batch's.
        const std::int64_t bytes = (2 + 4) * psi;
        QCOMPARE(g.communication.dataParallel, bytes - (bytes + 7) / 8);
    }
    // The generic profile keeps ZeRO-3's table: everything sharded, 16 ceil(psi / 8).
    s.layout.framework = Framework::Generic;
    const MemoryReport generic = estimate(s);
    const std::int64_t psi0 = generic.groups[0].parametersPerGpu;
    QCOMPARE(generic.groups[0].bytes.modelStates(), 16 * ((psi0 + 7) / 8));
    // Without pipeline parallelism FSDP2 re-shards as before (torchtitan's "default").
    Scenario flat = llama7b(Framework::Fsdp2, 8, ZeroStage::Zero3);
    const GpuGroup g = estimate(flat).groups[0];
    QCOMPARE(g.bytes.weights, 2 * ((P + 7) / 8));
    QCOMPARE(g.bytes.gradients, 2 * ((P + 7) / 8));
}

void TestFrameworks::fsdp2ReshardAfterForwardNever()
{
    // fsdp_reshard_after_forward "never" without PP: the weights stay gathered from the
    // forward to the backward (whole, 2 P), gradients are still reduce-scattered every
    // micro-batch (sharded, 2 ceil(P / 8)), and only one unit's unsharded gradient is
    // held before its reduce-scatter: the largest unit, 2 x 202,383,360 bytes.
    Scenario s = llama7b(Framework::Fsdp2, 8, ZeroStage::Zero3);
    const Setting *setting = settingByKey("fsdp_reshard_after_forward");
    QVERIFY(setting);
    std::string error;
    const auto never = parseSettingText(*setting, "never", &error);
    QVERIFY(never);
    const SettingValue v{setting, *never};
    applySettings(s, {&v, 1});
    QCOMPARE(s.layout.fsdpReshard, FsdpReshard::Never);
    const GpuGroup g = estimate(s).groups[0];
    QCOMPARE(g.bytes.weights, 2 * P);
    QCOMPARE(g.bytes.gradients, 2 * ((P + 7) / 8));
    QCOMPARE(g.buffers.gatheredUnits, 202'383'360LL * 2);
    // The generic and DeepSpeed profiles do not read torchtitan's setting.
    s.layout.framework = Framework::Generic;
    QCOMPARE(estimate(s).groups[0].bytes.weights, 2 * ((P + 7) / 8));
}

void TestFrameworks::megatronEighteenBytes()
{
    // megatron/training/theoretical_memory_usage.py num_bytes_per_parameter (line 296 at
    // d98e8a6): 18 without the distributed optimizer (bf16 weights 2, fp32 main
    // gradients 4, fp32 main params and Adam 12). One stage, t = 1: 18 P.
    Scenario s = llama7b(Framework::Megatron, 8, ZeroStage::Ddp);
    s.modelStatesOnly = true;
    QCOMPARE(qint64(estimate(s).groups[0].bytes.modelStates()), 18 * P);
    // Megatron reduces in its grad buffer: no extra bucket with buffers on.
    s.modelStatesOnly = false;
    QCOMPARE(qint64(estimate(s).groups[0].buffers.communicationBuckets), 0LL);
}

void TestFrameworks::megatronDistributedOptimizer()
{
    // Same file: 6 + 12 / d with the distributed optimizer; d = 8: 6 P + 12 P / 8.
    Scenario s = llama7b(Framework::Megatron, 8, ZeroStage::Zero1);
    s.modelStatesOnly = true;
    QCOMPARE(qint64(estimate(s).groups[0].bytes.modelStates()), 6 * P + 12 * P / 8);
}

void TestFrameworks::megatronTheoreticalMemoryT2P2()
{
    // theoretical_memory_usage.py for Llama 2 7B, t = 2, p = 2, d = 2, distributed
    // optimizer: 6 + 12 / 2 = 12 bytes per parameter on the most loaded shard (stage 0).
    // Per layer 4 h^2 + 3 h ffn = 202,375,168 split t ways, 2 h = 8,192 replicated;
    // embedding V h = 131,072,000; Megatron's transformer block adds the final norm
    // (h = 4,096) to the replicated parameters and divides them by p:
    //   (32 x 202,375,168 / 2 + 131,072,000) / 2 + (32 x 8,192 + 4,096) / 2
    //   = 1,684,537,344 + 133,120 = 1,684,670,464 parameters -> 20,216,045,568 bytes.
    // The engine keeps the final norm on the last stage (where Megatron-Core builds it),
    // so stage 0 holds h / 2 = 2,048 parameters fewer:
    //   16 x (101,187,584 + 8,192) + 65,536,000 = 1,684,668,416 -> 20,216,020,992 bytes.
    Scenario s = llama7b(Framework::Megatron, 8, ZeroStage::Zero1, 2, 2);
    s.modelStatesOnly = true;
    const MemoryReport r = estimate(s);
    QVERIFY(r.valid());
    QCOMPARE(qint64(r.groups[0].parametersPerGpu), 1684668416LL);
    QCOMPARE(qint64(r.groups[0].bytes.modelStates()), 20216020992LL);
    QCOMPARE(20216045568LL - qint64(r.groups[0].bytes.modelStates()), 12 * 2048LL);
}

void TestFrameworks::megatronRefusesZero2()
{
    Scenario s = llama7b(Framework::Megatron, 8, ZeroStage::Zero2);
    QCOMPARE(QString::fromStdString(validate(s)),
             QStringLiteral("megatron: Megatron-Core's distributed optimizer shards optimizer "
                            "states only: pick ddp or zero1 (or the deepspeed or fsdp2 "
                            "framework)"));
}

QTEST_APPLESS_MAIN(TestFrameworks)
#include "test_frameworks.moc"
