// Mixture of experts: exact total and active counts of Mixtral 8x7B and DeepSeek-V3,
// expert parallelism in the engine (placement, ZeRO groups, validation) and the MoE
// activation terms. Every expected value is a published figure (named) or a hand
// calculation written next to it; docs/models.md derives the same numbers.
#include "estimate.h"
#include "testscenarios.h"

#include <QTest>

using namespace shardscope;

Q_DECLARE_METATYPE(shardscope::Scenario)

namespace {

using test::mixtral8x7b;

/// DeepSeek-V3, config.json (deepseek-ai/DeepSeek-V3): hidden 7168, intermediate 18432,
/// moe_intermediate 2048, 61 layers (first 3 dense), 128 heads, vocab 129280,
/// 256 routed experts (8 per token) plus 1 shared, q_lora_rank 1536, kv_lora_rank 512,
/// qk_rope_head_dim 64, qk_nope_head_dim 128, v_head_dim 128, untied; the router has
/// an e_score_correction_bias per expert.
Architecture deepseekV3()
{
    return {.layers = 61,
            .hidden = 7168,
            .ffn = 18432,
            .heads = 128,
            .kvHeads = 128,
            .vocab = 129280,
            .experts = 256,
            .activeExperts = 8,
            .expertFfn = 2048,
            .sharedExperts = 1,
            .denseLayers = 3,
            .routerBias = true,
            .qLoraRank = 1536,
            .kvLoraRank = 512,
            .qkRopeHeadDim = 64,
            .qkNopeHeadDim = 128,
            .vHeadDim = 128};
}

/// Llama 4 Maverick's language model, text_config of meta-llama/Llama-4-Maverick-17B-128E
/// (tests/io/data/llama-4-maverick-17b-128e.json): hidden 5120, 48 layers, 40 heads, 8 KV
/// heads, head_dim 128, vocab 202048, untied; interleave_moe_layer_step 2 (MoE in blocks
/// 1, 3, ..., 47), 128 routed experts (top-1) and one shared expert of intermediate_size
/// 8192 each; the dense blocks' MLP is intermediate_size_mlp 16384 wide.
Architecture llama4Maverick()
{
    return {.layers = 48,
            .hidden = 5120,
            .ffn = 16384,
            .heads = 40,
            .kvHeads = 8,
            .vocab = 202048,
            .headDim = 128,
            .experts = 128,
            .activeExperts = 1,
            .expertFfn = 8192,
            .sharedExperts = 1,
            .moeLayerStep = 2};
}

Scenario moeScenario(const Architecture &a, qint64 gpus, ZeroStage z, int ep)
{
    Scenario s = test::onH100s(a, gpus, z);
    s.model.id = "moe";
    s.layout.expertParallel = ep;
    return s;
}

} // namespace

class TestMoe : public QObject
{
    Q_OBJECT
private slots:
    void mixtralCounts();
    void deepseekV3Counts();
    void deepseekV3HubTotal();
    void denseModelsAreAllActive();
    void interleavedLayerPattern();
    void llama4MaverickCounts();
    void interleavedStageParameters_data();
    void interleavedStageParameters();
    void interleavedStageActivations();
    void expertParallelShrinksReplicatedStates();
    void fullShardingIsIndependentOfExpertParallel();
    void expertParallelValidation_data();
    void expertParallelValidation();
    void moeActivationTerms();
    void latentAttentionActivationTerms();
    void expertAllToAll();
    void architectureValidation_data();
    void architectureValidation();
};

void TestMoe::mixtralCounts()
{
    const Architecture a = mixtral8x7b();
    QVERIFY(validateArchitecture(a).empty());
    // One expert: SwiGLU 3 x 4096 x 14336 = 176,160,768.
    QCOMPARE(qint64(expertParameterCount(a)), 176160768LL);
    // One block: attention 2 x 4096^2 + 2 x 4096 x 1024 = 41,943,040; 8 experts
    // 1,409,286,144; router 8 x 4096 = 32,768; two RMSNorms 8,192.
    QCOMPARE(qint64(layerParameterCount(a, 0)), 41943040LL + 1409286144LL + 32768LL + 8192LL);
    // Mistral AI, "Mixtral of experts" (2023) and the Hub's safetensors total: 46.7B,
    // exactly 46,702,792,704 = 32 x 1,451,270,144 + 2 x 32000 x 4096 + 4096.
    QCOMPARE(qint64(parameterCount(a)), 46702792704LL);
    // Active: 2 of 8 experts per block, everything else: "12.9B active parameters".
    const qint64 activeBlock = 41943040LL + 2 * 176160768LL + 32768LL + 8192LL;
    QCOMPARE(qint64(activeParameterCount(a)), 32 * activeBlock + 2 * 32000LL * 4096 + 4096);
    QCOMPARE(qint64(activeParameterCount(a)), 12879925248LL);
    QCOMPARE(qRound64(activeParameterCount(a) / 1e8), 129LL); // 12.9B
}

void TestMoe::deepseekV3Counts()
{
    const Architecture a = deepseekV3();
    QVERIFY2(validateArchitecture(a).empty(), validateArchitecture(a).c_str());
    // MLA attention per block: q_a 7168 x 1536 = 11,010,048; q_a_layernorm 1,536;
    // q_b 1536 x 128 x 192 = 37,748,736; kv_a 7168 x 576 = 4,128,768;
    // kv_a_layernorm 512; kv_b 512 x 128 x 256 = 16,777,216; o 16384 x 7168 =
    // 117,440,512: 187,107,328. Two RMSNorms: 14,336.
    const qint64 attention =
        11010048LL + 1536 + 37748736LL + 4128768LL + 512 + 16777216LL + 117440512LL;
    QCOMPARE(attention, 187107328LL);
    // Dense block (layers 0-2): SwiGLU 3 x 7168 x 18432 = 396,361,728.
    QCOMPARE(qint64(layerParameterCount(a, 0)), attention + 14336 + 396361728LL);
    QCOMPARE(qint64(layerParameterCount(a, 2)), 583483392LL);
    // MoE block: 257 experts of 3 x 7168 x 2048 = 44,040,192 (256 routed + 1 shared),
    // router 256 x 7168 = 1,835,008 plus 256 correction biases.
    QCOMPARE(qint64(expertParameterCount(a)), 44040192LL);
    QCOMPARE(qint64(layerParameterCount(a, 3)),
             attention + 14336 + 257 * 44040192LL + 1835008LL + 256);
    QCOMPARE(qint64(layerParameterCount(a, 3)), 11507286272LL);
    // Total: 3 dense + 58 MoE blocks, embedding and head 129280 x 7168 each, final norm:
    // 671,026,419,200, the card's "671B" (README_WEIGHTS.md: main model 671B; the hub's
    // 685B adds the 14B MTP module, not counted here).
    QCOMPARE(qint64(parameterCount(a)),
             3 * 583483392LL + 58 * 11507286272LL + 2 * 129280LL * 7168 + 7168);
    QCOMPARE(qint64(parameterCount(a)), 671026419200LL);
    // Active: 8 routed experts + the shared one per MoE block: 37,552,297,472, the
    // card's "37B activated". README_WEIGHTS.md's corrected figure, "36.6B", leaves out
    // the 0.9B input embedding: 37,552,297,472 - 926,679,040 = 36,625,618,432.
    const qint64 activeMoeBlock = attention + 14336 + 9 * 44040192LL + 1835008LL + 256;
    QCOMPARE(qint64(activeLayerParameterCount(a, 3)), activeMoeBlock);
    QCOMPARE(qint64(activeParameterCount(a)),
             3 * 583483392LL + 58 * activeMoeBlock + 2 * 129280LL * 7168 + 7168);
    QCOMPARE(qint64(activeParameterCount(a)), 37552297472LL);
    QCOMPARE(qRound64((activeParameterCount(a) - 129280LL * 7168) / 1e8), 366LL); // 36.6B
}

void TestMoe::deepseekV3HubTotal()
{
    // The Hub lists deepseek-ai/DeepSeek-V3 at 684,531,386,000 parameters ("685B"):
    // BF16 3,918,786,560 + F8_E4M3 680,571,043,840 + F32 41,555,600. It holds the main
    // model, the one MTP module (README_WEIGHTS.md: a full MoE block, eh_proj 2h x h,
    // enorm, hnorm and shared_head.norm, plus its own copies of the embedding and head)
    // and the FP8 weights' 128 x 128 block scales (weight_scale_inv, F32).
    const Architecture a = deepseekV3();
    const qint64 h = 7168, vocab = 129280;
    const qint64 mtp = layerParameterCount(a, 3) + 2 * h * h + 3 * h + 2 * vocab * h;
    QCOMPARE(mtp, 13463426304LL);
    // Block scales: ceil(out / 128) x ceil(in / 128) per FP8 matrix. Attention: q_a
    // 12 x 56, q_b 192 x 12, kv_a 5 x 56, kv_b 256 x 4, o 56 x 128 = 11,448; a SwiGLU
    // MLP f wide: 2 (f / 128) 56 + 56 (f / 128).
    auto blocks = [](qint64 n) { return (n + 127) / 128; };
    const qint64 attentionScales = blocks(1536) * blocks(h) + blocks(24576) * blocks(1536) +
                                   blocks(576) * blocks(h) + blocks(32768) * blocks(512) +
                                   blocks(h) * blocks(16384);
    QCOMPARE(attentionScales, 11448LL);
    auto mlpScales = [&](qint64 f) { return 3 * blocks(f) * blocks(h); };
    const qint64 scales = 3 * (attentionScales + mlpScales(18432)) +
                          59 * (attentionScales + 257 * mlpScales(2048)); // 58 MoE + MTP
    QCOMPARE(scales, 41555600LL - 59 * 256); // F32 minus the 59 correction biases
    QCOMPARE(qint64(parameterCount(a)) + mtp + scales, 684531386000LL);
}

void TestMoe::denseModelsAreAllActive()
{
    const Architecture llama = test::llama3_70b();
    QCOMPARE(qint64(activeParameterCount(llama)), 70553706496LL);
    QCOMPARE(qint64(expertParameterCount(llama)), 0LL);
    QCOMPARE(llama.moeLayerCount(), 0);
}

void TestMoe::interleavedLayerPattern()
{
    // transformers configuration_llama4.py (Llama4TextConfig.__post_init__): moe_layers =
    // range(interleave_moe_layer_step - 1, num_hidden_layers, step); step 2 of 48 layers
    // gives 1, 3, ..., 47 (24 blocks), step 1 every block (Scout).
    const Architecture a = llama4Maverick();
    QVERIFY(!a.isMoeLayer(0));
    QVERIFY(a.isMoeLayer(1));
    QVERIFY(!a.isMoeLayer(46));
    QVERIFY(a.isMoeLayer(47));
    QCOMPARE(a.moeLayerCount(), 24);
    QCOMPARE(a.firstMoeLayer(), 1);
    // Every count agrees with a block-by-block walk of isMoeLayer, for Maverick, a step
    // of 3 after 2 dense blocks (MoE at 4, 7, 10, ...), Mixtral (step 1) and DeepSeek-V3
    // (3 dense blocks, then step 1).
    Architecture step3 = mixtral8x7b();
    step3.denseLayers = 2;
    step3.moeLayerStep = 3; // MoE at 4, 7, ..., 31: 10 blocks
    QCOMPARE(step3.moeLayerCount(), 10);
    QCOMPARE(step3.firstMoeLayer(), 4);
    for (const Architecture &m : {a, step3, mixtral8x7b(), deepseekV3()}) {
        for (int first = 0; first <= m.layers; ++first)
            for (int count = 0; first + count <= m.layers; ++count) {
                int walked = 0;
                for (int l = first; l < first + count; ++l)
                    walked += m.isMoeLayer(l) ? 1 : 0;
                QCOMPARE(m.moeLayersIn(first, count), walked);
            }
    }
    QCOMPARE(QString::fromStdString(validateArchitecture(a)), QString());
    QCOMPARE(QString::fromStdString(validateArchitecture(step3)), QString());
}

void TestMoe::llama4MaverickCounts()
{
    // modeling_llama4.py: Llama4TextDecoderLayer holds Llama4TextMoe in the moe_layers
    // and Llama4TextMLP(intermediate_size_mlp) elsewhere; use_qk_norm is false for
    // Maverick and would be an L2 norm without weights anyway, and the NoPE blocks
    // (no_rope_layers) differ only in rotary embedding, which has no weights.
    // Attention (no biases): Q and O 5120 x 5120, K and V 5120 x 1024:
    //   2 x 26,214,400 + 2 x 5,242,880 = 62,914,560; 2 RMSNorms 10,240.
    // Dense block: Llama4TextMLP 3 x 5120 x 16384 = 251,658,240
    //   -> 62,914,560 + 10,240 + 251,658,240 = 314,583,040.
    // MoE block: Llama4TextExperts gate_up_proj 128 x 5120 x 16384 + down_proj 128 x
    //   8192 x 5120 = 128 x 125,829,120 = 16,106,127,360; shared_expert (Llama4TextMLP,
    //   intermediate_size 8192) 125,829,120; Llama4Router Linear(5120, 128, bias=False)
    //   655,360 -> 62,924,800 + 16,106,127,360 + 125,829,120 + 655,360 = 16,295,536,640.
    // Outside: embed_tokens and lm_head 2 x 202048 x 5120 + final norm 5120 = 2,068,976,640.
    // Total 24 x (314,583,040 + 16,295,536,640) + 2,068,976,640 = 400,711,848,960, the
    // card's "400B" (with the 871,932,416 of vision_config, as for Scout in docs/models.md:
    // 401,583,781,376).
    const Architecture a = llama4Maverick();
    QCOMPARE(qint64(layerParameterCount(a, 0)), 314583040LL);
    QCOMPARE(qint64(layerParameterCount(a, 1)), 16295536640LL);
    QCOMPARE(qint64(layerParameterCount(a, 46)), 314583040LL);
    QCOMPARE(qint64(layerParameterCount(a, 47)), 16295536640LL);
    QCOMPARE(qint64(nonLayerParameterCount(a)), 2068976640LL);
    QCOMPARE(qint64(parameterCount(a)), 400711848960LL);
    // Active ("17B active"): a MoE block uses one routed expert and the shared one,
    //   62,924,800 + 2 x 125,829,120 + 655,360 = 315,238,400;
    //   24 x (314,583,040 + 315,238,400) + 2,068,976,640 = 17,184,691,200.
    QCOMPARE(qint64(activeLayerParameterCount(a, 1)), 315238400LL);
    QCOMPARE(qint64(activeParameterCount(a)), 17184691200LL);
    // The same blocks with the 24 dense ones first (denseLayers 24, step 1) hold the same
    // total: only where each block sits changes.
    Architecture prefix = a;
    prefix.moeLayerStep = 1;
    prefix.denseLayers = 24;
    QCOMPARE(qint64(parameterCount(prefix)), 400711848960LL);
}

void TestMoe::interleavedStageParameters_data()
{
    QTest::addColumn<int>("stages");
    QTest::addColumn<bool>("uneven");
    QTest::addColumn<QList<qint64>>("perStage");
    // Llama 4 Maverick (llama4MaverickCounts: dense block D = 314,583,040, MoE block M =
    // 16,295,536,640), t = 1, e = 1: parameters each stage holds. Stage 0 adds the
    // embedding V h = 1,034,485,760, the last stage the final norm 5,120 and the head
    // 1,034,485,760.
    // p = 2: 24 blocks a stage, 12 of each kind (blocks 0-23 and 24-47):
    //   12 x (D + M) = 199,321,436,160; + 1,034,485,760 = 200,355,921,920 (stage 0);
    //   + 1,034,490,880 = 200,355,927,040 (stage 1).
    QTest::newRow("p = 2") << 2 << false << QList<qint64>{200355921920LL, 200355927040LL};
    // p = 4: 12 blocks a stage, 6 of each kind: 6 x (D + M) = 99,660,718,080;
    //   stage 0 100,695,203,840, stages 1 and 2 99,660,718,080, stage 3 100,695,208,960.
    QTest::newRow("p = 4") << 4 << false
                           << QList<qint64>{100695203840LL, 99660718080LL, 99660718080LL,
                                            100695208960LL};
    // p = 5, uneven (the first 48 % 5 = 3 stages one block more): blocks 0-9, 10-19,
    // 20-29 (5 of each kind), 30-38 (MoE at 31, 33, 35, 37: 4 MoE, 5 dense) and 39-47
    // (MoE at 39, ..., 47: 5 MoE, 4 dense). 5 (D + M) = 83,050,598,400;
    //   stage 0 84,085,084,160; stage 3 5 D + 4 M = 66,755,061,760;
    //   stage 4 4 D + 5 M = 82,736,015,360 + 1,034,490,880 = 83,770,506,240.
    QTest::newRow("p = 5 uneven") << 5 << true
                                  << QList<qint64>{84085084160LL, 83050598400LL, 83050598400LL,
                                                   66755061760LL, 83770506240LL};
}

void TestMoe::interleavedStageParameters()
{
    QFETCH(int, stages);
    QFETCH(bool, uneven);
    QFETCH(QList<qint64>, perStage);
    Scenario s = test::onH100s(llama4Maverick(), 8 * stages, ZeroStage::Zero1, 1, stages);
    s.layout.allowUnevenStages = uneven;
    s.modelStatesOnly = true;
    const MemoryReport r = estimate(s);
    QVERIFY2(r.valid(), r.error.c_str());
    QCOMPARE(r.groups.size(), std::size_t(stages));
    qint64 sum = 0;
    for (int i = 0; i < stages; ++i) {
        QCOMPARE(qint64(r.groups[std::size_t(i)].parametersPerGpu), perStage[i]);
        sum += perStage[i];
    }
    QCOMPARE(sum, 400711848960LL); // every parameter on exactly one stage
}

void TestMoe::interleavedStageActivations()
{
    // Maverick at p = 2 against the same blocks with the 24 dense ones first: the
    // interleaved stages each hold 12 MoE blocks, so both stages keep the same block
    // activations, while the dense-first layout puts all 24 MoE blocks on stage 1.
    // Per micro-batch, one chunk: dense blocks x a dense block's bytes + MoE blocks x a
    // MoE block's.
    Scenario s = test::onH100s(llama4Maverick(), 16, ZeroStage::Zero1, 1, 2);
    s.training.sequenceLength = 4096;
    s.training.recompute = Recompute::None;
    const MemoryReport r = estimate(s);
    QVERIFY2(r.valid(), r.error.c_str());
    // t = 1, one micro-batch of 4096 tokens, no recomputation, as the scenario sets.
    ActivationSettings as;
    as.sequenceLength = 4096;
    as.recompute = Recompute::None;
    const qint64 dense = layerActivationBytes(llama4Maverick(), as, 0);
    const qint64 moe = layerActivationBytes(llama4Maverick(), as, 1);
    QVERIFY(moe > dense); // routed experts add the router scores and dispatched copies
    QCOMPARE(qint64(layerActivationBytes(llama4Maverick(), as, 47)), moe);
    for (const GpuGroup &g : r.groups)
        QCOMPARE(qint64(g.chunkActivationBytes), 12 * dense + 12 * moe);
    Architecture prefix = llama4Maverick();
    prefix.moeLayerStep = 1;
    prefix.denseLayers = 24;
    s.model.architecture = prefix;
    const MemoryReport q = estimate(s);
    QVERIFY2(q.valid(), q.error.c_str());
    QCOMPARE(qint64(q.groups[0].chunkActivationBytes), 24 * dense);
    QCOMPARE(qint64(q.groups[1].chunkActivationBytes), 24 * moe);
}

void TestMoe::expertParallelShrinksReplicatedStates()
{
    // Mixtral 8x7B, 64 GPUs (d = 64), ZeRO-1, model states only. Without expert
    // parallelism every GPU holds all 46,702,792,704 weights and gradients (2 + 2 bytes)
    // and a 1/64 shard of master weights and Adam states (12 bytes):
    //   46,702,792,704 x 4 + 729,731,136 x 12 = 195,567,944,448.
    Scenario s = moeScenario(mixtral8x7b(), 64, ZeroStage::Zero1, 1);
    s.modelStatesOnly = true;
    MemoryReport r = estimate(s);
    QVERIFY2(r.valid(), r.error.c_str());
    QCOMPARE(qint64(r.groups[0].parametersPerGpu), 46702792704LL);
    QCOMPARE(qint64(r.groups[0].totalBytes()), 46702792704LL * 4 + 729731136LL * 12);

    // e = 8: each GPU holds 1 expert per block. Non-expert parameters: 32 x (attention
    // 41,943,040 + norms 8,192 + router 32,768) + embedding, head and final norm
    // 262,148,096 = 1,605,636,096; experts 32 x 176,160,768 = 5,637,144,576. Master and
    // Adam shards: 1,605,636,096 / 64 + 5,637,144,576 / (64 / 8) = 25,088,064 +
    // 704,643,072 = 729,731,136 (the same total, now over two groups).
    s.layout.expertParallel = 8;
    r = estimate(s);
    QVERIFY2(r.valid(), r.error.c_str());
    const qint64 dense = 32 * (41943040LL + 8192 + 32768) + 262148096LL;
    QCOMPARE(dense, 1605636096LL);
    QCOMPARE(qint64(r.groups[0].parametersPerGpu), dense + 5637144576LL);
    QCOMPARE(qint64(r.groups[0].totalBytes()), (dense + 5637144576LL) * 4 + 729731136LL * 12);
    QCOMPARE(qint64(r.groups[0].totalBytes()), 37727896320LL);
}

void TestMoe::fullShardingIsIndependentOfExpertParallel()
{
    // ZeRO-3 over all 64 ranks holds 46,702,792,704 / 64 = 729,731,136 parameters per
    // GPU whatever e is: with e = 8 the 8 expert-parallel ranks each keep 1/8 of the
    // experts and shard them over the 8 expert data-parallel ranks.
    for (int ep : {1, 2, 4, 8}) {
        Scenario s = moeScenario(mixtral8x7b(), 64, ZeroStage::Zero3, ep);
        s.modelStatesOnly = true;
        const MemoryReport r = estimate(s);
        QVERIFY2(r.valid(), r.error.c_str());
        QCOMPARE(qint64(r.groups[0].totalBytes()), 729731136LL * 16);
    }
    // The gathered unit is one block on one GPU: with e = 8, 41,984,000 non-expert
    // parameters and one 176,160,768-parameter expert, larger than the 131,072,000
    // embedding: 2 prefetched units + 1 gradient, bf16.
    Scenario s = moeScenario(mixtral8x7b(), 64, ZeroStage::Zero3, 8);
    const MemoryReport r = estimate(s);
    QVERIFY2(r.valid(), r.error.c_str());
    QCOMPARE(qint64(r.groups[0].buffers.gatheredUnits), (41984000LL + 176160768LL) * 3 * 2);
}

void TestMoe::expertParallelValidation_data()
{
    QTest::addColumn<Scenario>("scenario");
    QTest::addColumn<QString>("message");
    // Mixtral 8x7B (or, with `moe` false, its shape as a dense model) at ZeRO-3 on `gpus`
    // GPUs with expert parallel size `ep` and HSDP shard size `hsdp`.
    auto scenario = [](bool moe, qint64 gpus, int ep, qint64 hsdp) {
        const Architecture a = moe ? mixtral8x7b() : test::dense(32, 4096, 14336, 32, 8, 32000);
        Scenario s = moeScenario(a, gpus, ZeroStage::Zero3, ep);
        s.layout.hsdpShardSize = hsdp;
        return s;
    };
    QTest::newRow("dense model") << scenario(false, 8LL, 2, 0LL)
                                 << "expert parallelism needs a mixture-of-experts model";
    QTest::newRow("experts not divisible")
        << scenario(true, 6LL, 3, 0LL)
        << "experts (8) are not divisible by expert parallel size (3)";
    QTest::newRow("not inside data x context")
        << scenario(true, 4LL, 8, 0LL)
        << "expert parallel size (8) must divide the data x context parallel ranks (4)";
    QTest::newRow("hsdp shard") << scenario(true, 16LL, 4, 2LL)
                                << "expert parallel size (4) must divide the HSDP shard size (2)";
    QTest::newRow("zero") << scenario(true, 8LL, 0, 0LL)
                          << "expert parallel size must be between 1 and 65536 (got 0)";
}

void TestMoe::expertParallelValidation()
{
    QFETCH(Scenario, scenario);
    QFETCH(QString, message);
    QCOMPARE(QString::fromStdString(validate(scenario)), message);
}

void TestMoe::moeActivationTerms()
{
    // One Mixtral block, b 1, s 4096, t = c = 1, bf16, flash, no recomputation.
    // sbh e = 4096 x 4096 x 2 = 33,554,432.
    ActivationSettings st;
    st.sequenceLength = 4096;
    const Architecture a = mixtral8x7b();
    const LayerActivationTerms t = layerActivationTerms(a, st, 0);
    const qint64 sbhe = 4096LL * 4096 * 2;
    QCOMPARE(qint64(t.mlpInput), sbhe);
    QCOMPARE(qint64(t.upOutput), 0LL); // no shared experts
    // Router scores: s b E in fp32 = 4096 x 8 x 4 = 131,072.
    QCOMPARE(qint64(t.routerScores), 131072LL);
    // k = 2 copies of every token at width h, in and out: 2 sbhe each.
    QCOMPARE(qint64(t.expertInput), 2 * sbhe);
    QCOMPARE(qint64(t.expertOutput), 2 * sbhe);
    // Expert MLP tensors: s b k f_e e = 4096 x 2 x 14336 x 2 = 234,881,024 each.
    QCOMPARE(qint64(t.expertUpOutput), 234881024LL);
    QCOMPARE(qint64(t.expertGateOutput), 234881024LL);
    QCOMPARE(qint64(t.expertDownInput), 234881024LL);
    // Attention: 2 sbhe (norm in/out) + Q sbhe + K, V 4096 x 1024 x 2 each + fp32
    // softmax statistics 4 x 32 x 4096 + projection input sbhe = 151,519,232; MLP:
    // 2 sbhe + 131,072 + 2 x 2 sbhe + 3 x 234,881,024 = 906,100,736.
    QCOMPARE(qint64(t.total()), 151519232LL + 906100736LL);

    // With t = 2 and sequence parallel: norm-region tensors and router scores halve,
    // the dispatched copies stay whole (gathered over the expert tensor ranks), the
    // expert MLP tensors halve.
    st.tensorParallel = 2;
    const LayerActivationTerms t2 = layerActivationTerms(a, st, 0);
    QCOMPARE(qint64(t2.routerScores), 131072LL / 2);
    QCOMPARE(qint64(t2.expertInput), 2 * sbhe);
    QCOMPARE(qint64(t2.expertUpOutput), 234881024LL / 2);

    // DeepSeek-V3's first blocks are dense: no expert terms; its MoE blocks keep the
    // shared expert (2048 wide) in the dense-MLP fields.
    st.tensorParallel = 1;
    const Architecture ds = deepseekV3();
    QCOMPARE(qint64(layerActivationTerms(ds, st, 2).expertInput), 0LL);
    QCOMPARE(qint64(layerActivationTerms(ds, st, 2).upOutput), 4096LL * 18432 * 2);
    QCOMPARE(qint64(layerActivationTerms(ds, st, 3).upOutput), 4096LL * 2048 * 2);
    QCOMPARE(qint64(layerActivationTerms(ds, st, 3).expertInput), 4096LL * 8 * 7168 * 2);
    // Full recomputation keeps only the block input, MoE or not.
    st.recompute = Recompute::Full;
    QCOMPARE(qint64(layerActivationBytes(a, st, 0)), sbhe);
}

void TestMoe::latentAttentionActivationTerms()
{
    // DeepSeek-V3 MLA, b 1, s 4096, t = 1, bf16, flash: queries and keys are
    // 128 x (128 + 64) = 24,576 wide, values and the attention output 128 x 128 = 16,384.
    ActivationSettings st;
    st.sequenceLength = 4096;
    const LayerActivationTerms t = layerActivationTerms(deepseekV3(), st, 0);
    QCOMPARE(qint64(t.query), 4096LL * 24576 * 2);
    QCOMPARE(qint64(t.key), 4096LL * 24576 * 2);
    QCOMPARE(qint64(t.value), 4096LL * 16384 * 2);
    QCOMPARE(qint64(t.projectionInput), 4096LL * 16384 * 2);
    // Latents: q before and after q_a_layernorm (2 x 1536), kv before and after
    // kv_a_layernorm (2 x 512) and the shared rotary key (64): 4,160 wide.
    QCOMPARE(qint64(t.attentionLatents), 4096LL * 4160 * 2);
}

void TestMoe::expertAllToAll()
{
    // Mixtral, 64 GPUs, e = 8, t = 1, b 1, s 4096, m 8, full recomputation: each MoE
    // block sends the 2 copies of 4096 tokens at h 4096 in bf16 (67,108,864 bytes),
    // 7/8 of it to other GPUs, 6 times (dispatch and combine in forward, recomputed
    // forward and backward): 32 blocks x 8 micro-batches x 6 x 58,720,256 = 90.2 GB.
    Scenario s = moeScenario(mixtral8x7b(), 64, ZeroStage::Zero3, 8);
    const MemoryReport r = estimate(s);
    QVERIFY2(r.valid(), r.error.c_str());
    QCOMPARE(qint64(r.groups[0].communication.expertParallel), 32LL * 8 * 6 * 58'720'256);
    QCOMPARE(r.groups[0].communication.total(),
             r.groups[0].communication.dataParallel + r.groups[0].communication.expertParallel);
    // Without expert parallelism nothing leaves the GPU for the experts.
    Scenario noEp = moeScenario(mixtral8x7b(), 64, ZeroStage::Zero3, 1);
    QCOMPARE(qint64(estimate(noEp).groups[0].communication.expertParallel), 0LL);
    QStringList notes;
    for (const auto &n : r.notes)
        notes << QString::fromStdString(n);
    QVERIFY2(notes.join('\n').contains(QStringLiteral("1 of 8 routed experts")),
             qPrintable(notes.join('\n')));
}

void TestMoe::architectureValidation_data()
{
    QTest::addColumn<int>("which");
    QTest::addColumn<QString>("message");
    QTest::newRow("top-k above experts") << 0
                                         << "active experts must be between 1 and experts "
                                            "(8), got 9";
    QTest::newRow("no moe layer") << 1 << "dense layers (32) leave no MoE layer of 32";
    QTest::newRow("expert settings on a dense model")
        << 2 << "expert settings need routed experts (experts is 0)";
    QTest::newRow("mla sizes without a kv rank")
        << 3 << "latent attention sizes need a kv lora rank (kv_lora_rank is 0)";
    QTest::newRow("mla with grouped kv heads")
        << 4 << "latent attention has one key/value head per query head (kv heads 8, heads 128)";
    // Each field within its cap, but 100,000 layers of 100,000 experts would overflow
    // the exact count: refused before it is computed.
    QTest::newRow("too large to count") << 5 << "architecture is too large to be a real model";
    QTest::newRow("step leaves no moe layer")
        << 6 << "MoE layer step 40 after 0 dense layers leaves no MoE layer of 32";
    QTest::newRow("step on a dense model")
        << 7 << "expert settings need routed experts (experts is 0)";
    QTest::newRow("step of 0") << 8 << "MoE layer step must be between 1 and 100000 (got 0)";
}

void TestMoe::architectureValidation()
{
    QFETCH(int, which);
    QFETCH(QString, message);
    Architecture a = mixtral8x7b();
    if (which == 0)
        a.activeExperts = 9;
    if (which == 1)
        a.denseLayers = 32;
    if (which == 2) {
        a.experts = 0;
        a.activeExperts = 0;
    }
    if (which == 3) {
        a = deepseekV3();
        a.kvLoraRank = 0;
    }
    if (which == 4) {
        a = deepseekV3();
        a.kvHeads = 8;
    }
    if (which == 5) {
        a.layers = 100000;
        a.experts = 100000;
    }
    if (which == 6)
        a.moeLayerStep = 40;
    if (which == 7) {
        a = test::llama2_7b();
        a.moeLayerStep = 2;
    }
    if (which == 8)
        a.moeLayerStep = 0;
    QCOMPARE(QString::fromStdString(validateArchitecture(a)), message);
}

QTEST_APPLESS_MAIN(TestMoe)
#include "test_moe.moc"
