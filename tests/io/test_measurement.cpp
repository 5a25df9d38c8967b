// Measured memory (io/measurement.h) and the safe pickle reader under it (io/pickle.h).
// The fixtures in data/measurement/ are written by scripts/make-measurement-fixtures.py,
// which holds the hand sums asserted here and checks them itself.
#include "measurement.h"
#include "pickle.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>
#include <algorithm>

using namespace shardscope;

namespace {

constexpr std::int64_t MiB = 1024 * 1024;
/// The bytes of a string literal, NULs included (not the terminating one).
template <std::size_t N> QByteArray raw(const char (&s)[N])
{
    return QByteArray(s, qsizetype(N - 1));
}

const char *const ranMarker = "/tmp/shardscope-hostile-pickle-ran";

QByteArray fixture(const QString &name)
{
    QFile f(QFINDTESTDATA("data/measurement/" + name));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing fixture %s", qPrintable(name));
    return f.readAll();
}

/// `trace` as (seconds, bytes) pairs, for QCOMPARE.
std::vector<std::pair<double, std::int64_t>> points(const std::vector<MeasuredPoint> &trace)
{
    std::vector<std::pair<double, std::int64_t>> out;
    for (const MeasuredPoint &p : trace)
        out.emplace_back(p.seconds, p.bytes);
    return out;
}

std::optional<PickleDocument> pickle(const QByteArray &bytes, QString *error,
                                     const PickleLimits &limits = {})
{
    return readPickle(std::string_view(bytes.constData(), std::size_t(bytes.size())), error,
                      limits);
}

} // namespace

class TestMeasurement : public QObject
{
    Q_OBJECT
private slots:
    void snapshotBytesExact_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("protocol 4 (pickle.dump's default)") << "snapshot.pickle";
        QTest::newRow("protocol 2 (torch's C++ Pickler)") << "snapshot-protocol2.pickle";
    }
    void snapshotBytesExact()
    {
        QFETCH(QString, file);
        QString error;
        const auto m = readMeasurement(fixture(file), &error);
        QVERIFY2(m, qPrintable(error));
        QCOMPARE(m->source, MeasurementSource::Snapshot);
        // Reserved: segment A 20 MiB + segment B 2 MiB.
        QCOMPARE(*m->reservedBytes, 20 * MiB + 2 * MiB);
        QCOMPARE(*m->reservedBytes, std::int64_t(23'068'672));
        // Allocated: the active_allocated blocks 8 MiB + (4 MiB + 512) + 512 + 1536; the
        // 2 MiB active_pending_free block and the inactive ones are not counted.
        QCOMPARE(*m->allocatedBytes, std::int64_t(12'585'472));
        // Trace replay: 8 MiB + (4 MiB + 512) + the 6_290_944-byte temporary.
        QCOMPARE(*m->peakAllocatedBytes, std::int64_t(18'874'368));
        // Segment A and the 4 MiB segment held and freed before B: 24 MiB.
        QCOMPARE(*m->peakReservedBytes, 24 * MiB);
        QVERIFY(!m->peakUsedBytes);
        QVERIFY(m->categories.empty());
        // 14 trace entries, 12 of which change allocated or reserved bytes.
        QCOMPARE(m->samples, std::int64_t(12));
        QCOMPARE(m->gpus.size(), std::size_t(1));
        QCOMPARE(m->gpus[0].index, 0);
        QCOMPARE(*m->gpus[0].reservedBytes, std::int64_t(23'068'672));
        QCOMPARE(*m->gpus[0].peakAllocatedBytes, std::int64_t(18'874'368));
        // The trace: allocated bytes at entry 0 (12,585,472 at the snapshot less the
        // replayed +12,585,472 = 0), then after each alloc / free_requested, entries 1 ms
        // apart (time_us 1000 x i in the generator).
        QCOMPARE(m->traceGpu, 0);
        const std::vector<std::pair<double, std::int64_t>> expected = {
            {0.0, 0},
            {0.001, 8 * MiB},              // alloc 8 MiB
            {0.002, 12 * MiB + 512},       // alloc 4 MiB + 512
            {0.003, 18'874'368},           // alloc 6,290,944: the peak
            {0.004, 12 * MiB + 512},       // free_requested 6,290,944
            {0.009, 12 * MiB + 1024},      // alloc 512 (segment B)
            {0.010, 12'585'472},           // alloc 1536
            {0.011, 12'585'472 + 2 * MiB}, // alloc 2 MiB
            {0.012, 12'585'472}};          // free_requested 2 MiB
        QCOMPARE(points(m->trace), expected);
    }

    void snapshotWithoutTraceHasNoPeak()
    {
        QString error;
        const auto m = readMeasurement(fixture("snapshot-no-trace.pickle"), &error);
        QVERIFY2(m, qPrintable(error));
        QCOMPARE(*m->reservedBytes, std::int64_t(23'068'672));
        QCOMPARE(*m->allocatedBytes, std::int64_t(12'585'472));
        QVERIFY(!m->peakAllocatedBytes);
        QVERIFY(!m->peakReservedBytes);
        QVERIFY(m->trace.empty());
    }

    void hostilePickleRefusedAndNothingRuns_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("message");
        // PROTO 2 (bytes 0-1), then GLOBAL 'os system' at byte 2.
        QTest::newRow("GLOBAL os.system + REDUCE")
            << "hostile-global.pickle"
            << "snapshot pickle: byte 2: refused opcode GLOBAL";
        // pickletools.dis: STACK_GLOBAL at byte 44, inside the segments list.
        QTest::newRow("STACK_GLOBAL posix.system + REDUCE in a snapshot dict")
            << "hostile-stack-global.pickle"
            << "snapshot pickle: byte 44: refused opcode STACK_GLOBAL";
    }
    void hostilePickleRefusedAndNothingRuns()
    {
        QFETCH(QString, file);
        QFETCH(QString, message);
        // Had the pickle run, `touch /tmp/shardscope-hostile-pickle-ran` would make this.
        QFile::remove(QString::fromLatin1(ranMarker));
        QString error;
        QVERIFY(!readMeasurement(fixture(file), &error));
        QVERIFY2(error.startsWith(message), qPrintable(error));
        QVERIFY(error.contains(QLatin1String("never runs code")));
        QVERIFY(!QFile::exists(QString::fromLatin1(ranMarker)));
    }

    void callingOpcodesRefused_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("message");
        QTest::newRow("REDUCE") << raw("\x80\x02N)R.") << "byte 4: refused opcode REDUCE";
        QTest::newRow("BUILD") << raw("\x80\x02}}b.") << "byte 4: refused opcode BUILD";
        QTest::newRow("INST") << raw("\x80\x02(ios\nsystem\n.") << "byte 3: refused opcode INST";
        QTest::newRow("OBJ") << raw("\x80\x02(No.") << "byte 4: refused opcode OBJ";
        QTest::newRow("NEWOBJ") << raw("\x80\x02N)\x81.") << "byte 4: refused opcode NEWOBJ";
        QTest::newRow("BINPERSID") << raw("\x80\x02NQ.") << "byte 3: refused opcode BINPERSID";
        QTest::newRow("EXT1") << raw("\x80\x02\x82\x01.") << "byte 2: refused opcode EXT1";
    }
    void callingOpcodesRefused()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, message);
        QString error;
        QVERIFY(!pickle(bytes, &error));
        QVERIFY2(error.startsWith(message), qPrintable(error));
    }

    void malformedPicklesRefused_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("message");
        const QByteArray snapshot = fixture("snapshot.pickle");
        QTest::newRow("truncated snapshot") << snapshot.left(snapshot.size() / 2) << "byte ";
        QTest::newRow("no STOP") << raw("\x80\x02N") << "byte 3: ends before STOP";
        QTest::newRow("bytes after STOP") << raw("\x80\x02N.x") << "byte 4: 1 bytes after STOP";
        QTest::newRow("protocol 1") << raw("\x80\x01N.") << "byte 0: protocol 1";
        QTest::newRow("unset memo")
            << raw("\x80\x02h\x05.") << "byte 2: fetches memo slot 5, which was never set";
        QTest::newRow("int wider than 64 bits") << raw("\x80\x02\x8a\x09"
                                                       "123456789.")
                                                << "byte 2: an integer of 9 bytes";
        QTest::newRow("APPEND to a dict")
            << raw("\x80\x02}Na.") << "byte 4: APPEND on a value that is not a list";
        QTest::newRow("SETITEMS without MARK") << raw("\x80\x02}u.") << "byte 3: needs a MARK";
        QTest::newRow("empty stack") << raw("\x80\x02\x85.") << "byte 2: needs 1 values";
        QTest::newRow("not an opcode")
            << raw("\x80\x02\xff.") << "byte 2: 0xff is not a pickle opcode";
        QTest::newRow("memo slot past the bytes read")
            << raw("\x80\x02Nr\xff\xff\xff\x01.") << "byte 3: memo index 33554431";
        QTest::newRow("string past its bytes") << raw("\x80\x02X\xff\x00\x00\x00"
                                                      "ab.")
                                               << "byte 2: ends inside";
    }
    void malformedPicklesRefused()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, message);
        QString error;
        QVERIFY(!pickle(bytes, &error));
        QVERIFY2(error.startsWith(message), qPrintable(error));
    }

    void boundsRefused()
    {
        QString error;
        // 66 lists, each APPENDed into the one before: 65 levels below the outermost.
        const QByteArray deep =
            QByteArray("\x80\x02") + QByteArray(66, ']') + QByteArray(65, 'a') + QByteArray(".");
        QVERIFY(!pickle(deep, &error));
        QVERIFY2(error.contains(QLatin1String("containers nested deeper than 64")),
                 qPrintable(error));
        // 64 levels are read; 65 with a bound of 65.
        const QByteArray ok =
            QByteArray("\x80\x02") + QByteArray(65, ']') + QByteArray(64, 'a') + QByteArray(".");
        QVERIFY2(pickle(ok, &error), qPrintable(error));
        PickleLimits deeper;
        deeper.maxDepth = 65;
        QVERIFY2(pickle(deep, &error, deeper), qPrintable(error));

        PickleLimits small;
        small.maxStringBytes = 4;
        QVERIFY(!pickle(raw("\x80\x02\x8c\x05hello."), &error, small));
        QVERIFY2(
            error.startsWith(QLatin1String("byte 2: a string of 5 bytes, past the bound of 4")),
            qPrintable(error));
        small = {};
        small.maxNodes = 3;
        QVERIFY(!pickle(raw("\x80\x02(NNNNt."), &error, small));
        QVERIFY2(error.startsWith(QLatin1String("byte 6: more than 3 values")), qPrintable(error));
        small = {};
        small.maxInputBytes = 3;
        QVERIFY(!pickle(raw("\x80\x02N."), &error, small));
        QVERIFY2(error.contains(QLatin1String("larger than the 3 bytes")), qPrintable(error));
    }

    void pickleValues()
    {
        // {'a': (-2, -1, 2**40, 1.5, None, True, b'xy'), 'b': <memo 1 again: 'a'>}
        // Hand-assembled: PROTO 2, EMPTY_DICT, MARK, SHORT_BINUNICODE 'a', BINPUT 1,
        // MARK, BININT -2, LONG1 1 byte 0xff, LONG1 6 bytes 2^40, BINFLOAT 1.5 (big-endian
        // 3f f8 00 ..), NONE, NEWTRUE, SHORT_BINBYTES 'xy', TUPLE, SHORT_BINUNICODE 'b',
        // BINGET 1, SETITEMS, STOP.
        const QByteArray bytes =
            raw("\x80\x02}(\x8c\x01"
                "aq\x01(J\xfe\xff\xff\xff\x8a\x01\xff\x8a\x06\x00\x00\x00\x00\x00\x01"
                "G\x3f\xf8\x00\x00\x00\x00\x00\x00N\x88"
                "C\x02xyt\x8c\x01"
                "bh\x01u.");
        QString error;
        const auto doc = pickle(bytes, &error);
        QVERIFY2(doc, qPrintable(error));
        const PickleNode &root = doc->at(doc->root);
        QCOMPARE(root.kind, PickleKind::Dict);
        const PickleNode *t = doc->find(root, "a");
        QVERIFY(t && t->kind == PickleKind::Tuple);
        QCOMPARE(t->kids.size(), std::size_t(7));
        QCOMPARE(doc->at(t->kids[0]).integer, std::int64_t(-2));
        QCOMPARE(doc->at(t->kids[1]).integer, std::int64_t(-1));
        QCOMPARE(doc->at(t->kids[2]).integer, std::int64_t(1) << 40);
        QCOMPARE(doc->at(t->kids[3]).real, 1.5);
        QCOMPARE(doc->at(t->kids[4]).kind, PickleKind::None);
        QCOMPARE(doc->at(t->kids[5]).boolean, true);
        QCOMPARE(doc->at(t->kids[6]).text, std::string("xy"));
        const PickleNode *b = doc->find(root, "b");
        QVERIFY(b && b->kind == PickleKind::String);
        QCOMPARE(b->text, std::string("a"));
    }

    void profilerTimeline()
    {
        QString error;
        const auto m = readMeasurement(fixture("profiler-timeline.json"), &error);
        QVERIFY2(m, qPrintable(error));
        QCOMPARE(m->source, MeasurementSource::ProfilerTimeline);
        // Row 2: 1_000_000 + 4096 + 131072 + 6_000_000 + 1_000_000 + 20480 + 512.
        QCOMPARE(*m->peakAllocatedBytes, std::int64_t(8'156'160));
        // Last row: 1_000_000 + 2_000_000 + 512.
        QCOMPARE(*m->allocatedBytes, std::int64_t(3'000'512));
        QVERIFY(!m->reservedBytes);
        QCOMPARE(m->samples, std::int64_t(5));
        // Each row's total at its time, microseconds 1000 to 5000 from the first.
        const std::vector<std::pair<double, std::int64_t>> trace = {
            {0.0, 1'000'000 + 4096 + 512},
            {0.001, 1'000'000 + 4096 + 65'536 + 3'000'000 + 512},
            {0.002, 8'156'160},
            {0.003, 1'000'000 + 2'000'000 + 4096 + 1'000'000 + 512},
            {0.004, 3'000'512}};
        QCOMPARE(points(m->trace), trace);
        const std::vector<std::pair<std::string, std::int64_t>> expected = {
            {"parameter", 1'000'000},    {"optimizer_state", 0},    {"input", 4096},
            {"temporary", 131'072},      {"activation", 6'000'000}, {"gradient", 1'000'000},
            {"autograd_detail", 20'480}, {"unknown", 512}};
        QCOMPARE(m->categories.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            QCOMPARE(m->categories[i].name, expected[i].first);
            QCOMPARE(m->categories[i].bytes, expected[i].second);
        }
    }

    void nvidiaSmiPeaks_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("--format=csv") << "nvidia-smi.csv";
        QTest::newRow("--format=csv,noheader,nounits") << "nvidia-smi-noheader.csv";
    }
    void nvidiaSmiPeaks()
    {
        QFETCH(QString, file);
        QString error;
        const auto m = readMeasurement(fixture(file), &error);
        QVERIFY2(m, qPrintable(error));
        QCOMPARE(m->source, MeasurementSource::NvidiaSmiCsv);
        QCOMPARE(m->gpus.size(), std::size_t(2));
        // GPU 0: 1024, 61440, 60000 MiB; GPU 1: 2048, [N/A] (skipped), 63488 MiB.
        QCOMPARE(*m->gpus[0].peakUsedBytes, 61440 * MiB);
        QCOMPARE(*m->gpus[0].peakUsedBytes, std::int64_t(64'424'509'440));
        QCOMPARE(m->gpus[0].samples, std::int64_t(3));
        QCOMPARE(*m->gpus[1].peakUsedBytes, std::int64_t(66'571'993'088));
        QCOMPARE(m->gpus[1].samples, std::int64_t(2));
        QCOMPARE(*m->gpus[1].totalBytes, 81559 * MiB);
        QCOMPARE(*m->peakUsedBytes, std::int64_t(66'571'993'088));
        QVERIFY(!m->allocatedBytes);
        // The trace follows GPU 1, which peaks: 2048 MiB at 10:00:00, [N/A] at 10:00:01
        // (skipped), 63488 MiB at 10:00:02.
        QCOMPARE(m->traceGpu, 1);
        const std::vector<std::pair<double, std::int64_t>> trace = {{0.0, 2048 * MiB},
                                                                    {2.0, 63488 * MiB}};
        QCOMPARE(points(m->trace), trace);
    }

    void longTraceKeepsItsPeak()
    {
        // 10,000 profiler rows, 1 ms apart, of 1000 + i bytes, with one spike of 5e9 at
        // row 7777: the trace keeps 4096 points, the spike among them at 7.777 s.
        QJsonArray times, sizes;
        for (int i = 0; i < 10'000; ++i) {
            times.append(qint64(1'000) * i);
            const double bytes = i == 7777 ? 5e9 : 1000.0 + i;
            sizes.append(QJsonArray{0.0, bytes, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0});
        }
        QString error;
        const auto m = readMeasurement(QJsonDocument(QJsonArray{times, sizes}).toJson(), &error);
        QVERIFY2(m, qPrintable(error));
        QCOMPARE(m->trace.size(), maxMeasuredTracePoints);
        const auto peak = std::max_element(
            m->trace.begin(), m->trace.end(),
            [](const MeasuredPoint &a, const MeasuredPoint &b) { return a.bytes < b.bytes; });
        QCOMPARE(peak->bytes, std::int64_t(5'000'000'000));
        QCOMPARE(peak->seconds, 7.777);
        // Runs are 10000/4096 rows: the first keeps row 1 (1001 bytes beat 1000), the last
        // row 9999.
        QCOMPARE(m->trace.front().bytes, std::int64_t(1001));
        QCOMPARE(m->trace.back().bytes, std::int64_t(10'999));
        QVERIFY(std::is_sorted(
            m->trace.begin(), m->trace.end(),
            [](const MeasuredPoint &a, const MeasuredPoint &b) { return a.seconds < b.seconds; }));
    }

    void malformedMeasurementsRefused_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty") << QByteArray() << "empty file";
        QTest::newRow("gzip") << raw("\x1f\x8b\x08\x00") << "a gzip file";
        QTest::newRow("timeline row of 8")
            << QByteArray("[[1],[[0,1,2,3,4,5,6,7]]]")
            << "profiler memory timeline: row 0 is not a list of 9 numbers";
        QTest::newRow("timeline lengths") << QByteArray("[[1,2],[[0,0,0,0,0,0,0,0,0]]]")
                                          << "profiler memory timeline: 2 times but 1 rows";
        QTest::newRow("timeline JSON error") << QByteArray("[[1], [")
                                             << "profiler memory "
                                                "timeline: JSON error";
        QTest::newRow("smi bad used")
            << QByteArray("timestamp, index, memory.used [MiB]\nx, 0, lots MiB\n")
            << "nvidia-smi CSV line 2: memory.used is not a whole number of MiB";
        // An H100 SXM's 81,559 MiB cannot hold 90,000 in use.
        QTest::newRow("smi used above total")
            << QByteArray("timestamp, index, memory.used [MiB], memory.total [MiB]\n"
                          "2026/12/07 10:00:00.000, 0, 81559 MiB, 81559 MiB\n"
                          "2026/12/07 10:00:01.000, 0, 90000 MiB, 81559 MiB\n")
            << "nvidia-smi CSV line 3: memory.used (90000 MiB) is above memory.total (81559 MiB)";
        QTest::newRow("snapshot without segments")
            << raw("\x80\x02}.") << "snapshot: no list of segments";
        QTest::newRow("block without state")
            << raw("\x80\x02}(\x8c\x08segments](}(\x8c\x0atotal_sizeK\x04\x8c\x06"
                   "blocks](}\x8c\x04sizeK\x04seueu.")
            << "snapshot: segment 0 block 0 has no state";
        QTest::newRow("something else") << QByteArray("hello\n") << "not a PyTorch memory snapshot";
    }
    void malformedMeasurementsRefused()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, message);
        QString error;
        QVERIFY(!readMeasurement(bytes, &error));
        QVERIFY2(error.startsWith(message), qPrintable(error));
        QVERIFY(!error.contains(QLatin1Char('\n')));
    }

    void comparesWithThePeakGroup()
    {
        // One hand-made group: 21_500_000 bytes per GPU, of which CUDA context 1_000_000
        // and fragmentation 200_000.
        MemoryReport report;
        GpuGroup g;
        g.label = "all 8 GPUs";
        g.gpuCount = 8;
        g.bytes = {.weights = 10'000'000,
                   .gradients = 5'000'000,
                   .masterWeights = 0,
                   .optimizerStates = 2'000'000,
                   .activations = 3'000'000,
                   .buffers = 1'500'000};
        g.buffers = {.cudaContext = 1'000'000,
                     .communicationBuckets = 200'000,
                     .gatheredUnits = 100'000,
                     .fragmentation = 200'000};
        report.groups = {g};
        QString error;
        const auto snap = readMeasurement(fixture("snapshot.pickle"), &error);
        QVERIFY2(snap, qPrintable(error));
        const MeasurementGap s = compareMeasurement(*snap, report);
        QCOMPARE(s.predictedPeakBytes, std::int64_t(21'500'000));
        QCOMPARE(s.comparisons.size(), std::size_t(4));
        QCOMPARE(s.comparisons[0].measure, std::string("peak_allocated"));
        QCOMPARE(s.comparisons[0].predictedBytes, std::int64_t(20'300'000)); // less 1.2 MB
        QCOMPARE(s.comparisons[0].gapBytes(), std::int64_t(18'874'368 - 20'300'000));
        QCOMPARE(s.comparisons[3].measure, std::string("reserved"));
        QCOMPARE(s.comparisons[3].predictedBytes, std::int64_t(20'500'000)); // less the context
        QCOMPARE(s.comparisons[3].gapBytes(), std::int64_t(2'568'672));
        QVERIFY(s.categories.empty());

        const auto prof = readMeasurement(fixture("profiler-timeline.json"), &error);
        QVERIFY2(prof, qPrintable(error));
        const MeasurementGap p = compareMeasurement(*prof, report);
        QCOMPARE(p.comparisons.size(), std::size_t(1));
        QCOMPARE(p.comparisons[0].gapBytes(), std::int64_t(8'156'160 - 20'300'000));
        QCOMPARE(p.categories.size(), std::size_t(5));
        QCOMPARE(p.categories[0].key, std::string("parameters"));
        QCOMPARE(p.categories[0].gapBytes(), std::int64_t(1'000'000 - 10'000'000));
        // activation 6_000_000 + autograd_detail 20_480 + input 4096 against 3_000_000.
        QCOMPARE(p.categories[3].key, std::string("activations"));
        QCOMPARE(p.categories[3].measuredBytes, std::int64_t(6'024'576));
        // temporary 131_072 + unknown 512 against buckets 200_000 + gathered 100_000.
        QCOMPARE(p.categories[4].measuredBytes, std::int64_t(131'584));
        QCOMPARE(p.categories[4].predictedBytes, std::int64_t(300'000));

        const auto smi = readMeasurement(fixture("nvidia-smi.csv"), &error);
        QVERIFY2(smi, qPrintable(error));
        const MeasurementGap n = compareMeasurement(*smi, report);
        QCOMPARE(n.comparisons.size(), std::size_t(1));
        QCOMPARE(n.comparisons[0].measure, std::string("peak_used"));
        QCOMPARE(n.comparisons[0].measuredBytes, std::int64_t(66'571'993'088)); // GPU 1
        QCOMPARE(n.comparisons[0].predictedBytes, std::int64_t(21'500'000));
    }
};

QTEST_GUILESS_MAIN(TestMeasurement)
#include "test_measurement.moc"
