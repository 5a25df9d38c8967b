// NVML loading and sampling, in-process against the fake libnvidia-ml variants.

#include "nvml.h"
#include "sampler.h"

#include <QJsonArray>
#include <QtTest>
#include <dlfcn.h>

using namespace shardscope::probe;

namespace {

constexpr qint64 kTotal = 85520809984LL;
constexpr qint64 kReserved = 553648128LL;

// The fake's own counters, read through a second dlopen of the same file.
template <typename T> T fakeHook(const char *path, const char *symbol)
{
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
        qFatal("cannot open %s: %s", path, dlerror());
    auto fn = reinterpret_cast<T (*)()>(dlsym(handle, symbol));
    if (!fn)
        qFatal("%s lacks %s", path, symbol);
    const T value = fn();
    dlclose(handle);
    return value;
}

// One sample from a sampler that loads `library` alone.
NvmlSample sampleFrom(const char *library)
{
    NvmlSampler sampler(QStringList{QString::fromUtf8(library)});
    return sampler.sample();
}

QJsonObject sampleWith(const char *library)
{
    return sampleToJson(sampleFrom(library));
}

// One sample from the fake library told to fail `fault` (FAKE_NVML_FAIL; cleanup() clears
// it).
NvmlSample faultySample(const QByteArray &fault)
{
    qputenv("FAKE_NVML_FAIL", fault);
    return sampleFrom(FAKE_NVML_PATH);
}

} // namespace

class TestProbeNvml : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        // Keep the fake loaded so its counters survive each sampler's dlclose.
        m_keep = dlopen(FAKE_NVML_PATH, RTLD_NOW | RTLD_LOCAL);
        QVERIFY2(m_keep, dlerror());
    }

    void cleanupTestCase() { dlclose(m_keep); }

    void cleanup()
    {
        qunsetenv("FAKE_NVML_FAIL");
        qunsetenv("FAKE_NVML_GPUS");
        qunsetenv("SHARDSCOPE_NVML_LIBRARY");
    }

    void memoryV2VersionWord()
    {
        // NVML_STRUCT_VERSION(Memory, 2) = sizeof(nvmlMemory_v2_t) | 2 << 24, not 2.
        QCOMPARE(sizeof(nvml::nvmlMemory_v2_t), std::size_t(40));
        QCOMPARE(nvml::nvmlMemory_v2, 0x02000028U);
        QCOMPARE(nvml::nvmlMemory_v2, unsigned(sizeof(nvml::nvmlMemory_v2_t)) | (2U << 24));
        QVERIFY(nvml::nvmlMemory_v2 != 2U);
        QCOMPARE(nvml::nvmlStructVersion<nvml::nvmlMemory_t>(1), 0x01000018U);
    }

    void candidateFilesHonourEnvironment()
    {
        qunsetenv("SHARDSCOPE_NVML_LIBRARY");
        QCOMPARE(NvmlLibrary::candidateFiles(), (QStringList{QStringLiteral("libnvidia-ml.so.1"),
                                                             QStringLiteral("libnvidia-ml.so")}));
        qputenv("SHARDSCOPE_NVML_LIBRARY", "/opt/x/libfake.so");
        QCOMPARE(NvmlLibrary::candidateFiles(), QStringList{QStringLiteral("/opt/x/libfake.so")});
        qputenv("SHARDSCOPE_NVML_LIBRARY", "");
        QCOMPARE(NvmlLibrary::candidateFiles().size(), 2);
    }

    void libraryResolvesVersionedSymbols()
    {
        NvmlLibrary lib;
        QCOMPARE(lib.load(QStringList{QStringLiteral(FAKE_NVML_PATH)}),
                 NvmlLibrary::Status::Loaded);
        QVERIFY(lib.api().deviceGetMemoryInfoV2);
        QVERIFY(lib.api().deviceGetComputeProcessesV3);
        QVERIFY(lib.api().deviceGetPciInfoV3);
        QVERIFY(!lib.api().deviceGetPciInfoV2);
        QCOMPARE(lib.errorText(15), QStringLiteral("GPU is lost"));

        NvmlLibrary legacy;
        QCOMPARE(legacy.load(QStringList{QStringLiteral(FAKE_NVML_LEGACY_PATH)}),
                 NvmlLibrary::Status::Loaded);
        QVERIFY(!legacy.api().deviceGetMemoryInfoV2);
        QVERIFY(legacy.api().deviceGetMemoryInfo);
        QVERIFY(!legacy.api().deviceGetComputeProcessesV3);
        QVERIFY(legacy.api().deviceGetComputeProcessesV1);
    }

    void readingMatchesCannedValues()
    {
        const QJsonObject doc = sampleWith(FAKE_NVML_PATH);
        QVERIFY2(!doc.contains(QStringLiteral("error")),
                 qPrintable(doc.value(QStringLiteral("error")).toString()));
        QCOMPARE(doc.value(QStringLiteral("schema")).toString(),
                 QStringLiteral("shardscope-probe/1"));
        QCOMPARE(doc.value(QStringLiteral("source")).toString(), QStringLiteral("nvml"));
        QCOMPARE(doc.value(QStringLiteral("driver_version")).toString(),
                 QStringLiteral("550.54.15"));
        QCOMPARE(doc.value(QStringLiteral("nvml_memory_api")).toString(), QStringLiteral("v2"));
        QVERIFY(doc.value(QStringLiteral("timestamp_ms")).toInteger() > 1600000000000LL);

        const QJsonArray gpus = doc.value(QStringLiteral("gpus")).toArray();
        QCOMPARE(gpus.size(), 2);
        const QJsonObject g0 = gpus.at(0).toObject();
        QCOMPARE(g0.value(QStringLiteral("index")).toInteger(), 0);
        QCOMPARE(g0.value(QStringLiteral("name")).toString(),
                 QStringLiteral("NVIDIA H100 80GB HBM3"));
        QCOMPARE(g0.value(QStringLiteral("uuid")).toString(),
                 QStringLiteral("GPU-0f6a2c4e-1b3d-4e5f-8a9b-0c1d2e3f4a50"));
        QCOMPARE(g0.value(QStringLiteral("pci_bus_id")).toString(),
                 QStringLiteral("00000000:18:00.0"));
        QCOMPARE(g0.value(QStringLiteral("total_bytes")).toInteger(), kTotal);
        QCOMPARE(g0.value(QStringLiteral("reserved_bytes")).toInteger(), kReserved);
        QCOMPARE(g0.value(QStringLiteral("used_bytes")).toInteger(), 10737418240LL);
        QCOMPARE(g0.value(QStringLiteral("free_bytes")).toInteger(), 74229743616LL);
        const QJsonArray p0 = g0.value(QStringLiteral("processes")).toArray();
        QCOMPARE(p0.size(), 2);
        QCOMPARE(p0.at(0).toObject().value(QStringLiteral("pid")).toInteger(), 4242);
        QCOMPARE(p0.at(0).toObject().value(QStringLiteral("used_bytes")).toInteger(), 8589934592LL);
        QCOMPARE(p0.at(1).toObject().value(QStringLiteral("pid")).toInteger(), 4343);
        QCOMPARE(p0.at(1).toObject().value(QStringLiteral("used_bytes")).toInteger(), 2147483648LL);

        const QJsonObject g1 = gpus.at(1).toObject();
        QCOMPARE(g1.value(QStringLiteral("index")).toInteger(), 1);
        QCOMPARE(g1.value(QStringLiteral("pci_bus_id")).toString(),
                 QStringLiteral("00000000:2A:00.0"));
        QCOMPARE(g1.value(QStringLiteral("used_bytes")).toInteger(), 5368709120LL);
        QCOMPARE(g1.value(QStringLiteral("free_bytes")).toInteger(), 79598452736LL);
        const QJsonArray p1 = g1.value(QStringLiteral("processes")).toArray();
        QCOMPARE(p1.size(), 1);
        QCOMPARE(p1.at(0).toObject().value(QStringLiteral("pid")).toInteger(), 5151);
        // NVML_VALUE_NOT_AVAILABLE becomes null, not 2^64 - 1.
        QVERIFY(p1.at(0).toObject().value(QStringLiteral("used_bytes")).isNull());
    }

    void fakeSawTheExactVersionWord()
    {
        // The fake answers ARGUMENT_VERSION_MISMATCH to any other word, so a
        // successful v2 reading already proves it; read the word back too.
        const QJsonObject doc = sampleWith(FAKE_NVML_PATH);
        QCOMPARE(doc.value(QStringLiteral("nvml_memory_api")).toString(), QStringLiteral("v2"));
        QCOMPARE(fakeHook<unsigned>(FAKE_NVML_PATH, "fake_nvml_last_memory_version"),
                 unsigned(sizeof(nvml::nvmlMemory_v2_t)) | (2U << 24));
    }

    void legacyLibraryFallsBackToV1()
    {
        const QJsonObject doc = sampleWith(FAKE_NVML_LEGACY_PATH);
        QVERIFY2(!doc.contains(QStringLiteral("error")),
                 qPrintable(doc.value(QStringLiteral("error")).toString()));
        QCOMPARE(doc.value(QStringLiteral("nvml_memory_api")).toString(), QStringLiteral("v1"));
        const QJsonObject g0 = doc.value(QStringLiteral("gpus")).toArray().at(0).toObject();
        QCOMPARE(g0.value(QStringLiteral("total_bytes")).toInteger(), kTotal);
        QVERIFY(g0.value(QStringLiteral("reserved_bytes")).isNull());
        // v1 "used" includes the reserved memory.
        QCOMPARE(g0.value(QStringLiteral("used_bytes")).toInteger(), 10737418240LL + kReserved);
        QCOMPARE(g0.value(QStringLiteral("free_bytes")).toInteger(), 74229743616LL);
        // Legacy PCI struct and legacy (16-byte) process entries.
        QCOMPARE(g0.value(QStringLiteral("pci_bus_id")).toString(), QStringLiteral("0000:18:00.0"));
        const QJsonArray p0 = g0.value(QStringLiteral("processes")).toArray();
        QCOMPARE(p0.size(), 2);
        QCOMPARE(p0.at(1).toObject().value(QStringLiteral("pid")).toInteger(), 4343);
        QCOMPARE(p0.at(1).toObject().value(QStringLiteral("used_bytes")).toInteger(), 2147483648LL);
    }

    void v2NotSupportedFallsBackToV1()
    {
        const QJsonObject doc = sampleToJson(faultySample("memory_v2_not_supported"));
        QVERIFY(!doc.contains(QStringLiteral("error")));
        QCOMPARE(doc.value(QStringLiteral("nvml_memory_api")).toString(), QStringLiteral("v1"));
        for (const QJsonValue &g : doc.value(QStringLiteral("gpus")).toArray())
            QVERIFY(g.toObject().value(QStringLiteral("reserved_bytes")).isNull());
    }

    void missingLibraryIsNvmlNotFound()
    {
        const NvmlSample s = sampleFrom("/nonexistent/libnvidia-ml.so.1");
        QCOMPARE(s.error.code, QStringLiteral("nvml_not_found"));
        QCOMPARE(s.error.exitCode, 0);
        const QJsonObject doc = sampleToJson(s);
        QCOMPARE(doc.value(QStringLiteral("error_code")).toString(),
                 QStringLiteral("nvml_not_found"));
        QVERIFY(
            doc.value(QStringLiteral("error")).toString().contains(QStringLiteral("/nonexistent")));
        QCOMPARE(doc.value(QStringLiteral("gpus")).toArray().size(), 0);
    }

    void environmentVariableSelectsLibrary()
    {
        qputenv("SHARDSCOPE_NVML_LIBRARY", FAKE_NVML_PATH);
        NvmlSampler sampler;
        const NvmlSample s = sampler.sample();
        QVERIFY(!s.error.isError());
        QCOMPARE(int(s.gpus.size()), 2);
        QCOMPARE(sampler.library().fileName(), QStringLiteral(FAKE_NVML_PATH));
    }

    void missingSymbolIsReported()
    {
        NvmlSampler sampler(QStringList{QStringLiteral(FAKE_NVML_NOINIT_PATH)});
        const NvmlSample s = sampler.sample();
        QCOMPARE(s.error.code, QStringLiteral("symbol_missing"));
        QCOMPARE(s.error.exitCode, 0);
        QVERIFY(s.error.message.contains(QStringLiteral("nvmlInit_v2")));
        QCOMPARE(sampler.library().missingSymbol(), QStringLiteral("nvmlInit_v2"));
    }

    void countFailureIsAnNvmlError()
    {
        const NvmlSample s = faultySample("count");
        QCOMPARE(s.error.code, QStringLiteral("nvml_error"));
        QCOMPARE(s.error.exitCode, 1);
        QCOMPARE(s.error.nvmlReturn, 999);
        QVERIFY(s.error.message.contains(QStringLiteral("nvmlDeviceGetCount_v2")));
        QVERIFY(s.error.message.contains(QStringLiteral("Unknown Error")));
        const QJsonObject doc = sampleToJson(s);
        QCOMPARE(doc.value(QStringLiteral("nvml_return")).toInt(), 999);
        QCOMPARE(doc.value(QStringLiteral("gpus")).toArray().size(), 0);
    }

    void memoryFailureNamesTheCall()
    {
        const NvmlSample s = faultySample("memory");
        QCOMPARE(s.error.code, QStringLiteral("nvml_error"));
        QCOMPARE(s.error.nvmlReturn, 15);
        QVERIFY(s.error.message.contains(QStringLiteral("nvmlDeviceGetMemoryInfo_v2")));
        QVERIFY(s.gpus.empty());
    }

    void driverNotLoaded()
    {
        const NvmlSample s = faultySample("init");
        QCOMPARE(s.error.code, QStringLiteral("no_driver"));
        QCOMPARE(s.error.exitCode, 0);
        QCOMPARE(s.error.nvmlReturn, 9);
    }

    void initFailure()
    {
        const NvmlSample s = faultySample("init_permission");
        QCOMPARE(s.error.code, QStringLiteral("nvml_init_failed"));
        QCOMPARE(s.error.exitCode, 0);
        QVERIFY(s.error.message.contains(QStringLiteral("Insufficient Permissions")));
    }

    void noGpus()
    {
        qputenv("FAKE_NVML_GPUS", "0");
        const NvmlSample s = sampleFrom(FAKE_NVML_PATH);
        QCOMPARE(s.error.code, QStringLiteral("no_gpus"));
        QCOMPARE(s.error.exitCode, 0);
        QCOMPARE(sampleToJson(s).value(QStringLiteral("driver_version")).toString(),
                 QStringLiteral("550.54.15"));
    }

    void processListRefusalIsNotFatal()
    {
        const QJsonObject doc = sampleToJson(faultySample("processes"));
        QVERIFY(!doc.contains(QStringLiteral("error")));
        const QJsonObject g0 = doc.value(QStringLiteral("gpus")).toArray().at(0).toObject();
        QVERIFY(g0.value(QStringLiteral("processes")).isNull());
        QVERIFY(g0.value(QStringLiteral("processes_error"))
                    .toString()
                    .contains(QStringLiteral("Insufficient Permissions")));
        QCOMPARE(g0.value(QStringLiteral("used_bytes")).toInteger(), 10737418240LL);
    }

    // Review finding F8: counts near 2^32 and impossible sizes from a
    // faulty driver are refused by name, never allocated or printed negative.
    void hugeDeviceCountIsRefused()
    {
        const NvmlSample s = faultySample("huge_count");
        QCOMPARE(s.error.code, QStringLiteral("nvml_bad_reading"));
        QCOMPARE(s.error.exitCode, 1);
        QCOMPARE(s.error.message, QStringLiteral("nvmlDeviceGetCount_v2 reports 4294967295 GPUs, "
                                                 "more than the 4096 the probe reads"));
        QVERIFY(s.gpus.empty());
    }

    // Review finding F8: an nvmlInit_v2 that never returns hung the probe. Now it is
    // reported once the init timeout passes; the blocked call is left behind (and
    // released here only so that the fake's thread ends with the test).
    void hangingInitIsReported()
    {
        qputenv("FAKE_NVML_FAIL", "init_hang");
        const int shutdowns = fakeHook<int>(FAKE_NVML_PATH, "fake_nvml_shutdown_count");
        NvmlSample s;
        {
            NvmlSampler sampler(QStringList{QStringLiteral(FAKE_NVML_PATH)});
            sampler.setInitTimeout(200);
            s = sampler.sample();
            // Asked again, the sampler keeps its answer and calls nothing.
            QCOMPARE(sampler.open().code, QStringLiteral("nvml_timeout"));
        }
        QCOMPARE(s.error.code, QStringLiteral("nvml_timeout"));
        QCOMPARE(s.error.exitCode, 1);
        QCOMPARE(s.error.message,
                 QStringLiteral("NVML did not answer in 0.2 s: nvmlInit_v2 (%1) is still running; "
                                "the driver or a GPU may be hung (nvidia-smi would wait too)")
                     .arg(QStringLiteral(FAKE_NVML_PATH)));
        QVERIFY(s.gpus.empty());
        // Never initialised, so never shut down.
        QCOMPARE(fakeHook<int>(FAKE_NVML_PATH, "fake_nvml_shutdown_count"), shutdowns);
        auto release = reinterpret_cast<void (*)()>(dlsym(m_keep, "fake_nvml_release_init"));
        QVERIFY(release);
        release();
    }

    void hugeProcessCountLeavesTheListOut()
    {
        const QJsonObject doc = sampleToJson(faultySample("huge_processes"));
        QVERIFY(!doc.contains(QStringLiteral("error")));
        const QJsonObject g0 = doc.value(QStringLiteral("gpus")).toArray().at(0).toObject();
        QVERIFY(g0.value(QStringLiteral("processes")).isNull());
        QCOMPARE(g0.value(QStringLiteral("processes_error")).toString(),
                 QStringLiteral("nvmlDeviceGetComputeRunningProcesses reports 4294967295 "
                                "processes, more than the 1048576 the probe reads"));
        QCOMPARE(g0.value(QStringLiteral("used_bytes")).toInteger(), 10737418240LL);
    }

    void impossibleMemoryIsRefused_data()
    {
        QTest::addColumn<QByteArray>("fault");
        QTest::addColumn<QString>("numbers");
        // The fake's GPU 0: total 85520809984, used 10737418240, free 74229743616,
        // reserved 553648128 bytes; used_over_total adds 2^30 to the total.
        QTest::newRow("total 2^64-1")
            << QByteArray("huge_memory")
            << QStringLiteral("total 18446744073709551615, used 10737418240, free 74229743616, "
                              "reserved 553648128 bytes");
        QTest::newRow("used > total")
            << QByteArray("used_over_total")
            << QStringLiteral("total 85520809984, used 86594551808, free 74229743616, "
                              "reserved 553648128 bytes");
    }

    void impossibleMemoryIsRefused()
    {
        QFETCH(QByteArray, fault);
        QFETCH(QString, numbers);
        const NvmlSample s = faultySample(fault);
        QCOMPARE(s.error.code, QStringLiteral("nvml_bad_reading"));
        QCOMPARE(s.error.exitCode, 1);
        QCOMPARE(s.error.message,
                 QStringLiteral("NVML reported an impossible memory reading for GPU 0: ") +
                     numbers);
        QVERIFY(s.gpus.empty());
    }

    void repeatedSamplesShareOneInit()
    {
        const int inits = fakeHook<int>(FAKE_NVML_PATH, "fake_nvml_init_count");
        const int shutdowns = fakeHook<int>(FAKE_NVML_PATH, "fake_nvml_shutdown_count");
        {
            NvmlSampler sampler(QStringList{QStringLiteral(FAKE_NVML_PATH)});
            for (int i = 0; i < 3; ++i)
                QVERIFY(!sampler.sample().error.isError());
            QCOMPARE(fakeHook<int>(FAKE_NVML_PATH, "fake_nvml_init_count"), inits + 1);
        }
        QCOMPARE(fakeHook<int>(FAKE_NVML_PATH, "fake_nvml_shutdown_count"), shutdowns + 1);
    }

    void readDeviceReadsOneGpu()
    {
        NvmlSampler sampler(QStringList{QStringLiteral(FAKE_NVML_PATH)});
        GpuReading gpu;
        QVERIFY(!sampler.readDevice(1, &gpu).isError());
        QCOMPARE(gpu.index, 1U);
        QCOMPARE(gpu.uuid, QStringLiteral("GPU-0f6a2c4e-1b3d-4e5f-8a9b-0c1d2e3f4a51"));
        QCOMPARE(gpu.totalBytes, quint64(kTotal));
        const ProbeError e = sampler.readDevice(7, &gpu);
        QCOMPARE(e.code, QStringLiteral("nvml_error"));
        QVERIFY(e.message.contains(QStringLiteral("nvmlDeviceGetHandleByIndex_v2")));
    }

private:
    void *m_keep = nullptr;
};

QTEST_GUILESS_MAIN(TestProbeNvml)
#include "test_probe_nvml.moc"
