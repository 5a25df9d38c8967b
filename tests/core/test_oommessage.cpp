// PyTorch's out-of-memory message read into bytes (core/oommessage.h). The messages below
// are rebuilt from the format strings of DeviceCachingAllocator::malloc() in PyTorch's
// c10/cuda/CUDACachingAllocator.cpp (the newer wording, with the process sentences of
// reportProcessMemoryInfo() in the same file; the older one, "reserved in total by
// PyTorch"; the oldest, "cached"), with sizes as format_size() there prints them: "N
// bytes" up to 1 KiB, then KiB, MiB or GiB with two decimals.
#include "oommessage.h"

#include <QTest>
#include <string>

using namespace shardscope;

namespace {

constexpr std::int64_t KiB = std::int64_t(1) << 10, MiB = std::int64_t(1) << 20,
                       GiB = std::int64_t(1) << 30;

/// The hand calculation of a printed size: `hundredths` / 100 of `unit`, to the nearest
/// byte (79.15 GiB = 7915 x 2^30 / 100 = 84,986,665,369.6 -> 84,986,665,370 bytes).
std::int64_t printed(std::int64_t hundredths, std::int64_t unit)
{
    return (hundredths * unit + 50) / 100;
}

/// True when `bytes` is within 0.01 GiB of `gib` GiB (the bar).
bool within(std::optional<std::int64_t> bytes, double gib)
{
    return bytes && std::abs(double(*bytes) / double(GiB) - gib) <= 0.01;
}

OomMessage parsed(const std::string &text)
{
    const OomParse p = parseOomMessage(text);
    if (!p.valid())
        qWarning("%s", p.error.c_str());
    return p.message.value_or(OomMessage{});
}

bool hasNote(const OomMessage &m, const char *part)
{
    for (const std::string &n : m.notes)
        if (n.find(part) != std::string::npos)
            return true;
    return false;
}

// The newer wording (PyTorch 2.1 on) with one "Process N has" sentence (a container: NVML's
// PID is not this process's), as torch.OutOfMemoryError prints it.
const std::string newer =
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
    "total capacity of 79.15 GiB of which 1.53 GiB is free. Process 12345 has 77.61 GiB "
    "memory in use. Of the allocated memory 75.10 GiB is allocated by PyTorch, and 1.24 GiB "
    "is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try "
    "setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
    "documentation for Memory Management  "
    "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)";

// The older wording (PyTorch 1.4 to 2.0) of the same state: no in-use figure, and
// "reserved in total" = allocated + reserved-but-unallocated.
const std::string older =
    "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total "
    "capacity; 75.10 GiB already allocated; 1.53 GiB free; 76.34 GiB reserved in total by "
    "PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to "
    "avoid fragmentation.  See documentation for Memory Management and "
    "PYTORCH_CUDA_ALLOC_CONF";

} // namespace

class TestOomMessage : public QObject
{
    Q_OBJECT
private slots:
    void newerWording()
    {
        const OomMessage m = parsed(newer);
        QCOMPARE(m.wording, OomWording::Newer);
        QCOMPARE(m.device, 0);
        QCOMPARE(*m.triedToAllocateBytes, 2 * GiB);
        QCOMPARE(*m.totalCapacityBytes, printed(7915, GiB)); // 84,986,665,370
        QCOMPARE(*m.freeBytes, printed(153, GiB));
        QCOMPARE(*m.inUseBytes, printed(7761, GiB)); // the only process listed
        QCOMPARE(*m.allocatedByPytorchBytes, printed(7510, GiB));
        QCOMPARE(*m.reservedUnallocatedBytes, printed(124, GiB));
        QVERIFY(within(m.totalCapacityBytes, 79.15));
        QVERIFY(within(m.reservedUnallocatedBytes, 1.24));
        // Reserved = allocated + reserved-but-unallocated (the source prints reserved -
        // allocated), derived.
        QCOMPARE(*m.reservedBytes, printed(7510, GiB) + printed(124, GiB));
        QVERIFY(m.otherProcesses.empty());
        QVERIFY(hasNote(m, "process 12345"));
        QCOMPARE(m.messagesFound, 1);
    }

    void pytorch21Spelling()
    {
        // PyTorch 2.1 printed "total capacty" (its CUDACachingAllocator.cpp at v2.1.0): the
        // same figures are read, the process sentence after it too (a message posted in
        // a public issue, with one process of a container).
        std::string typo = newer;
        typo.replace(typo.find("capacity of"), 8, "capacty");
        const OomMessage m = parsed(typo);
        QCOMPARE(m.wording, OomWording::Newer);
        QCOMPARE(*m.totalCapacityBytes, printed(7915, GiB));
        QCOMPARE(*m.freeBytes, printed(153, GiB));
        QCOMPARE(*m.inUseBytes, printed(7761, GiB));
        QCOMPARE(*m.allocatedByPytorchBytes, printed(7510, GiB));
        QCOMPARE(*m.reservedUnallocatedBytes, printed(124, GiB));
        QVERIFY(!hasNote(m, "Not in the message"));
        const OomMessage small = parsed(
            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 27.12 GiB. GPU "
            "0 has a total capacty of 11.99 GiB of which 0 bytes is free. Of the allocated "
            "memory 16.16 GiB is allocated by PyTorch, and 144.59 MiB is reserved by PyTorch "
            "but unallocated.");
        QCOMPARE(*small.totalCapacityBytes, printed(1199, GiB));
        QCOMPARE(*small.freeBytes, std::int64_t(0));
        QCOMPARE(*small.triedToAllocateBytes, printed(2712, GiB));
    }

    void figuresThatDoNotFitTheCardAreNoted()
    {
        // 500 GiB free on a card of 79 GiB: no GPU prints that, so the message says so.
        const OomMessage m =
            parsed("CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity "
                   "of 79.00 GiB of which 500.00 GiB is free. Of the allocated memory 1.00 GiB "
                   "is allocated by PyTorch, and 0 bytes is reserved by PyTorch but "
                   "unallocated.");
        QVERIFY(hasNote(m, "The message's figures do not fit its card: free (500.00 GiB) is "
                           "more than the total capacity (79.00 GiB). Was it edited?"));
        // The real message above fits its card: no such note.
        QVERIFY(!hasNote(parsed(newer), "do not fit its card"));
    }

    void olderWording()
    {
        const OomMessage m = parsed(older);
        QCOMPARE(m.wording, OomWording::Older);
        QCOMPARE(*m.triedToAllocateBytes, 2 * GiB);
        QCOMPARE(*m.totalCapacityBytes, printed(7915, GiB));
        QCOMPARE(*m.freeBytes, printed(153, GiB));
        QCOMPARE(*m.allocatedByPytorchBytes, printed(7510, GiB));
        QCOMPARE(*m.reservedBytes, printed(7634, GiB));
        // Derived: 76.34 - 75.10 = 1.24 GiB, from the two printed figures.
        QCOMPARE(*m.reservedUnallocatedBytes, printed(7634, GiB) - printed(7510, GiB));
        QVERIFY(within(m.reservedUnallocatedBytes, 1.24));
        QVERIFY(!m.inUseBytes); // the older wording has none: empty, not guessed
        QVERIFY(hasNote(m, "derived"));
        QVERIFY(hasNote(m, "no in-use figure"));
    }

    void oldestWordingCached()
    {
        // PyTorch 1.0 to 1.3: "cached" was cached - allocated bytes.
        const OomMessage m =
            parsed("RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB (GPU 1; 11.17 GiB "
                   "total capacity; 10.66 GiB already allocated; 2.31 MiB free; 1.33 MiB cached)");
        QCOMPARE(m.wording, OomWording::Oldest);
        QCOMPARE(m.device, 1);
        QCOMPARE(*m.triedToAllocateBytes, 2 * MiB);
        QCOMPARE(*m.totalCapacityBytes, printed(1117, GiB));
        QCOMPARE(*m.allocatedByPytorchBytes, printed(1066, GiB));
        QCOMPARE(*m.freeBytes, printed(231, MiB));
        QCOMPARE(*m.reservedUnallocatedBytes, printed(133, MiB));
        QCOMPARE(*m.reservedBytes, printed(1066, GiB) + printed(133, MiB));
        QVERIFY(!m.inUseBytes);
    }

    void smallUnitsAndAbsentFields()
    {
        // No NVML: reportProcessMemoryInfo() says nothing, so no in-use figure. Sizes in
        // KiB, MiB and "0 bytes".
        const OomMessage m =
            parsed("CUDA out of memory. Tried to allocate 512.00 KiB. GPU 0 has a total "
                   "capacity of 8.00 GiB of which 0 bytes is free. Of the allocated memory "
                   "7.51 GiB is allocated by PyTorch, and 15.90 MiB is reserved by PyTorch but "
                   "unallocated.");
        QCOMPARE(m.wording, OomWording::Newer);
        QCOMPARE(*m.triedToAllocateBytes, 512 * KiB);
        QCOMPARE(*m.totalCapacityBytes, 8 * GiB);
        QCOMPARE(*m.freeBytes, std::int64_t(0));
        QCOMPARE(*m.reservedUnallocatedBytes, printed(1590, MiB));
        QVERIFY(!m.inUseBytes);
        QVERIFY(hasNote(m, "Not in the message (left empty): in use."));
        // 1.50 KiB = 1,536 bytes; 1000 bytes as printed below 1 KiB.
        const OomMessage k =
            parsed("CUDA out of memory. Tried to allocate 1.50 KiB. GPU 0 has a total "
                   "capacity of 1000 bytes of which 0 bytes is free.");
        QCOMPARE(*k.triedToAllocateBytes, std::int64_t(1536));
        QCOMPARE(*k.totalCapacityBytes, std::int64_t(1000));
        QVERIFY(!k.allocatedByPytorchBytes);
        QVERIFY(!k.reservedUnallocatedBytes);
    }

    void processesAllowedAndPrivatePools()
    {
        const OomMessage m = parsed(
            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB. GPU 3 "
            "has a total capacity of 79.11 GiB of which 300.00 MiB is free. Process 111 has "
            "10.00 GiB memory in use. Including non-PyTorch memory, this process has 60.50 GiB "
            "memory in use. Process 222 has 512.00 MiB memory in use. 64.00 GiB allowed; Of "
            "the allocated memory 58.00 GiB is allocated by PyTorch, with 1.50 GiB allocated "
            "in private pools (e.g., CUDA Graphs), and 2.25 GiB is reserved by PyTorch but "
            "unallocated.");
        QCOMPARE(m.device, 3);
        QCOMPARE(*m.inUseBytes, printed(6050, GiB));
        QCOMPARE(m.otherProcesses.size(), std::size_t(2));
        QCOMPARE(m.otherProcesses[0].pid, std::int64_t(111));
        QCOMPARE(m.otherProcesses[0].bytes, 10 * GiB);
        QCOMPARE(m.otherProcesses[1].bytes, 512 * MiB);
        QCOMPARE(*m.allowedBytes, 64 * GiB);
        QCOMPARE(*m.privatePoolBytes, printed(150, GiB));
        QCOMPARE(*m.allocatedByPytorchBytes, 58 * GiB);
        QCOMPARE(*m.reservedUnallocatedBytes, printed(225, GiB));
        // Several processes, none this one: in use is not guessed.
        const OomMessage two =
            parsed("CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity "
                   "of 79.11 GiB of which 0 bytes is free. Process 1 has 40.00 GiB memory in "
                   "use. Process 2 has 39.00 GiB memory in use. Of the allocated memory 38.00 "
                   "GiB is allocated by PyTorch, and 1.00 GiB is reserved by PyTorch but "
                   "unallocated.");
        QVERIFY(!two.inUseBytes);
        QCOMPARE(two.otherProcesses.size(), std::size_t(2));
    }

    void insideATraceback()
    {
        // torchrun prefixes every line with the rank, and a terminal may wrap the message;
        // two ranks failed, the first is read.
        std::string log;
        for (int i = 0; i < 200; ++i)
            log += "[rank3]: step " + std::to_string(i) + " loss 2.31 lr 3e-4\n";
        log += "[rank3]: Traceback (most recent call last):\n"
               "[rank3]:   File \"train.py\", line 412, in <module>\n"
               "[rank3]:     loss.backward()\n"
               "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate\n"
               "[rank3]: 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.53 GiB\n"
               "[rank3]: is free. Including non-PyTorch memory, this process has 77.61 GiB\n"
               "[rank3]:   memory in use. Of the allocated memory 75.10 GiB is allocated by "
               "PyTorch,\n[rank3]: and 1.24 GiB is reserved by PyTorch but unallocated.\n"
               "[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 "
               "GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.00 GiB is free.\n";
        const OomMessage m = parsed(log);
        QCOMPARE(m.wording, OomWording::Newer);
        QCOMPARE(*m.triedToAllocateBytes, 2 * GiB);
        QCOMPARE(*m.inUseBytes, printed(7761, GiB));
        QCOMPARE(*m.reservedUnallocatedBytes, printed(124, GiB));
        QCOMPARE(m.messagesFound, 2);
        QVERIFY(hasNote(m, "the first is read"));
    }

    void refusals()
    {
        QVERIFY(!parseOomMessage("").valid());
        QVERIFY(!parseOomMessage("Segmentation fault (core dumped)\n\x01\xff").valid());
        const OomParse cudaError = parseOomMessage(
            "RuntimeError: CUDA error: out of memory\nCUDA kernel errors might be asynchronously "
            "reported");
        QVERIFY(!cudaError.valid());
        QVERIFY(cudaError.error.find("outside PyTorch's caching allocator") != std::string::npos);
        const OomParse none = parseOomMessage("loss 2.3\nloss 2.2\n");
        QVERIFY(none.error.find("no PyTorch out-of-memory message") == 0);
        const std::string huge(maxOomTextBytes + 1, ' ');
        QVERIFY(parseOomMessage(huge).error.find("16 MiB") != std::string::npos);
    }

    void cutShortAndOutOfRange()
    {
        // The first line only: the request is read, the rest is empty and said so.
        const OomMessage first = parsed("torch.OutOfMemoryError: CUDA out of memory. Tried to "
                                        "allocate 764.00 MiB");
        QCOMPARE(first.wording, OomWording::Unknown);
        QCOMPARE(*first.triedToAllocateBytes, 764 * MiB);
        QVERIFY(!first.totalCapacityBytes);
        // A size above 1 PiB is not a size; 130206.04 GiB (a real message) still is.
        const OomMessage big =
            parsed("CUDA out of memory. Tried to allocate 999999999.00 GiB. GPU 0 has a total "
                   "capacity of 23.56 GiB of which 16.57 GiB is free.");
        QVERIFY(!big.triedToAllocateBytes);
        QCOMPARE(*big.totalCapacityBytes, printed(2356, GiB));
        QVERIFY(hasNote(big, "above 1 PiB"));
        const OomMessage real = parsed("CUDA out of memory. Tried to allocate 130206.04 GiB.");
        QCOMPARE(*real.triedToAllocateBytes, printed(13020604, GiB));
    }
};

QTEST_APPLESS_MAIN(TestOomMessage)
#include "test_oommessage.moc"
