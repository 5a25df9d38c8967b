// The settings table (core/settings.h): one entry per scalar Scenario setting, whose
// ranges are the engine's own limits (core/inputlimits.h), whose choices are the
// enums' own ids, and whose accessors reach the right field.
#include "estimate.h"
#include "settings.h"
#include "steptime.h"
#include "testscenarios.h"

#include <QTest>
#include <set>

using namespace shardscope;

namespace {

/// A valid 8-GPU dense scenario to perturb.
Scenario base()
{
    return test::llama7bOnH100(8);
}

} // namespace

class TestSettings : public QObject
{
    Q_OBJECT
private slots:
    void keysAndFlagsAreUnique()
    {
        std::set<std::string_view> keys, flags;
        for (const Setting &s : settings()) {
            QVERIFY2(keys.insert(s.key).second, s.key.data());
            QVERIFY2(flags.insert(s.flag).second, s.flag.data());
            QVERIFY(!s.label.empty());
            QVERIFY(!s.help.empty());
            QCOMPARE(settingByKey(s.key), &s);
            QCOMPARE(settingByFlag(s.flag), &s);
        }
        // Every scalar field of Layout, Training, Overheads, Throughput and FineTuning, and
        // modelStatesOnly.
        // + fp8, activation_offload, paged, NICs, stage3_max_reuse_distance, lora_dropout,
        // fp32_unquantized, loss_chunks, optimizer_in_backward, use_cache, torch_compile,
        // norm_kernel
        QCOMPARE(settings().size(), std::size_t(59));
    }

    void accessorsRoundTrip()
    {
        for (const Setting &s : settings()) {
            for (const std::int64_t v : {s.min, s.max, (s.min + s.max) / 2}) {
                if (!checkSettingValue(s, v).empty())
                    continue; // activation_bytes allows 1, 2, 4, 8 only
                Scenario sc = base();
                s.set(sc, v);
                QCOMPARE(s.get(sc), v);
            }
        }
        // Spot checks that each accessor reaches its own field.
        Scenario sc = base();
        settingByKey("tp")->set(sc, 8);
        settingByKey("host_ram_bytes_per_node")->set(sc, 123'000'000'000);
        settingByKey("strategy")->set(sc, 3);
        settingByKey("dropout")->set(sc, 1);
        QCOMPARE(sc.layout.tensorParallel, 8);
        QCOMPARE(sc.overheads.hostRamBytesPerNode, 123'000'000'000LL);
        QCOMPARE(sc.layout.zeroStage, ZeroStage::Zero3);
        QVERIFY(sc.training.dropout);
    }

    void choicesAreTheEnumIds()
    {
        QCOMPARE(settingByKey("strategy")->choices.size(), std::size_t(4));
        for (int i = 0; i < 4; ++i)
            QCOMPARE(settingByKey("strategy")->choices[std::size_t(i)], zeroStageId(ZeroStage(i)));
        for (int i = 0; i < 4; ++i)
            QCOMPARE(settingByKey("schedule")->choices[std::size_t(i)],
                     pipelineScheduleId(PipelineSchedule(i)));
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(settingByKey("recompute")->choices[std::size_t(i)], recomputeId(Recompute(i)));
            QCOMPARE(settingByKey("offload")->choices[std::size_t(i)], offloadId(Offload(i)));
        }
        QCOMPARE(settingByKey("loss_kernel")->choices[1], lossKernelId(LossKernel::Eager));
        QCOMPARE(settingByKey("norm_kernel")->choices[1], normKernelId(NormKernel::Eager));
    }

    void rangesAreTheEngineLimits()
    {
        QCOMPARE(settingByKey("gpus")->max, maxGpus);
        QCOMPARE(settingByKey("pp")->max, std::int64_t(maxPipelineStages));
        QCOMPARE(settingByKey("tp")->max, std::int64_t(maxParallelDegree));
        QCOMPARE(settingByKey("microbatches")->max, std::int64_t(maxMicroBatches));
        QCOMPARE(settingByKey("chunks")->max, std::int64_t(maxModelChunks));
        QCOMPARE(settingByKey("seq")->max, maxSequenceLength);
        // Display ranges: floor(1e12 / 2^20) = 953,674 MiB; floor(2^53 / 1e9) = 9,007,199 GB.
        QCOMPARE(settingByKey("cuda_context_bytes")->displayMax(), 953'674LL);
        QCOMPARE(settingByKey("host_ram_bytes_per_node")->displayMax(), 9'007'199LL);
    }

    void engineRefusesJustPastEveryRange()
    {
        // One past the table's bound is refused by validate(): the engine and the table
        // agree, so no front end can hand the engine what the table allows it to refuse.
        // The step-time settings, which estimate() never reads, by validateThroughput().
        const auto validate = [](const Scenario &sc) {
            const std::string e = shardscope::validate(sc);
            return e.empty() ? validateThroughput(sc.throughput) : e;
        };
        for (const Setting &s : settings()) {
            if (s.kind != SettingKind::Integer || s.key == "ep")
                continue; // ep: past its range on a dense model is refused for that reason
            Scenario sc = base();
            if (s.key == "chunks") {
                sc.training.schedule = PipelineSchedule::Interleaved1F1B;
                sc.layout.pipelineParallel = 2;
            }
            if (s.key == "gathered_units")
                sc.layout.zeroStage = ZeroStage::Zero3;
            s.set(sc, s.max + 1);
            QVERIFY2(!validate(sc).empty(), s.key.data());
            if (s.min > 0) {
                Scenario low = base();
                s.set(low, s.min - 1);
                QVERIFY2(!validate(low).empty(), s.key.data());
            }
        }
        Scenario ep = base();
        ep.layout.expertParallel = maxParallelDegree + 1;
        QCOMPARE(validate(ep), std::string("expert parallel size must be between 1 and 65536 "
                                           "(got 65537)"));
    }

    void textInDisplayUnits()
    {
        std::string error;
        const Setting &ctx = *settingByKey("cuda_context_bytes");
        QCOMPARE(parseSettingText(ctx, "512", &error), std::optional<std::int64_t>(536'870'912));
        QCOMPARE(settingText(ctx, 536'870'912), std::string("512"));
        QVERIFY(!parseSettingText(ctx, "953675", &error));
        QCOMPARE(error, std::string("must be a whole number from 0 to 953674 MiB (got '953675')"));
        const Setting &host = *settingByKey("host_ram_bytes_per_node");
        QCOMPARE(parseSettingText(host, "2000", &error),
                 std::optional<std::int64_t>(2'000'000'000'000));
        const Setting &z = *settingByKey("strategy");
        QCOMPARE(parseSettingText(z, "FSDP", &error), std::optional<std::int64_t>(3));
        QVERIFY(!parseSettingText(z, "zero4", &error));
        QCOMPARE(error, std::string("unknown strategy 'zero4' (known: ddp, zero1, zero2, zero3)"));
        const Setting &flash = *settingByKey("flash_attention");
        QCOMPARE(parseSettingText(flash, "OFF", &error), std::optional<std::int64_t>(0));
        QVERIFY(!parseSettingText(flash, "yes", &error));
        QCOMPARE(error, std::string("must be on or off (got 'yes')"));
        const Setting &act = *settingByKey("activation_bytes");
        QCOMPARE(parseSettingText(act, "4", &error), std::optional<std::int64_t>(4));
        QVERIFY(!parseSettingText(act, "3", &error));
        QCOMPARE(error, std::string("must be 1, 2, 4 or 8 (got '3')"));
        QCOMPARE(settingRangeText(*settingByKey("pp")), std::string("1 to 1,024"));
        // Element counts as DeepSpeed configs write them (reduce_bucket_size: 5e8): exact
        // whole numbers in scientific notation; a fraction or a negative exponent is not.
        const Setting &bucket = *settingByKey("zero_bucket_elements");
        QCOMPARE(parseSettingText(bucket, "5e8", &error), std::optional<std::int64_t>(500'000'000));
        QCOMPARE(parseSettingText(bucket, "2.5E8", &error),
                 std::optional<std::int64_t>(250'000'000));
        QCOMPARE(parseSettingText(bucket, "1.250e3", &error), std::optional<std::int64_t>(1250));
        for (const char *bad : {"1.5e0", "5e-1", "5e", "e5", "-5e8", "5e8x", "1e19", "9.9e18"})
            QVERIFY2(!parseSettingText(bucket, bad, &error), bad);
        QCOMPARE(error, std::string("must be a whole number from 0 to 1000000000000 elements (got "
                                    "'9.9e18')"));
        // Every display-unit value parses back to itself.
        for (const Setting &s : settings())
            for (const std::int64_t v : {s.min, s.max}) {
                if (!checkSettingValue(s, v).empty() || v % s.scale != 0)
                    continue;
                QCOMPARE(parseSettingText(s, settingText(s, v), &error),
                         std::optional<std::int64_t>(v));
            }
    }

    void scheduleWithoutChunksTakesItsDefault()
    {
        Scenario s = base();
        const SettingValue interleaved{settingByKey("schedule"), 2};
        applySettings(s, {&interleaved, 1});
        QCOMPARE(s.training.chunks, 2);
        const SettingValue both[] = {{settingByKey("schedule"), 2}, {settingByKey("chunks"), 4}};
        applySettings(s, both);
        QCOMPARE(s.training.chunks, 4);
        const SettingValue gpipe{settingByKey("schedule"), 0};
        applySettings(s, {&gpipe, 1});
        QCOMPARE(s.training.chunks, 1);
    }
};

QTEST_APPLESS_MAIN(TestSettings)
#include "test_settings.moc"
