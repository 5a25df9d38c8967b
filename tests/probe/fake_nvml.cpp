// A stand-in for libnvidia-ml.so with canned readings, loaded by the probe
// through SHARDSCOPE_NVML_LIBRARY. Its structs are written from the NVML API
// reference independently of probe/nvmlapi.h, so a layout slip in the probe
// shows up as wrong numbers rather than being copied into both sides.
//
// Variants (compile definitions, one .so each):
//   (none)               every symbol the probe uses, including the versioned ones
//   FAKE_NVML_LEGACY     no nvmlDeviceGetMemoryInfo_v2, no _v3/_v2 process or PCI calls
//   FAKE_NVML_NO_INIT_V2 no nvmlInit_v2 (only the old nvmlInit)
//
// Behaviour switches read from the environment at each call:
//   FAKE_NVML_FAIL=init              nvmlInit_v2 -> NVML_ERROR_DRIVER_NOT_LOADED
//   FAKE_NVML_FAIL=init_permission   nvmlInit_v2 -> NVML_ERROR_NO_PERMISSION
//   FAKE_NVML_FAIL=chatty            nvmlInit_v2 prints a line to stdout, then succeeds
//   FAKE_NVML_FAIL=init_hang         nvmlInit_v2 blocks until fake_nvml_release_init(),
//                                    then -> NVML_ERROR_UNKNOWN (never, in a probe process)
//   FAKE_NVML_FAIL=count             nvmlDeviceGetCount_v2 -> NVML_ERROR_UNKNOWN
//   FAKE_NVML_FAIL=memory            both memory calls -> NVML_ERROR_GPU_IS_LOST
//   FAKE_NVML_FAIL=memory_v2_not_supported   the v2 memory call -> NOT_SUPPORTED
//   FAKE_NVML_FAIL=processes         process lists -> NVML_ERROR_NO_PERMISSION
//   FAKE_NVML_FAIL=huge_count        nvmlDeviceGetCount_v2 -> 4294967295 GPUs
//   FAKE_NVML_FAIL=huge_processes    process lists -> INSUFFICIENT_SIZE, count 4294967295
//   FAKE_NVML_FAIL=huge_memory       memory total -> ~0ULL (2^64 - 1 bytes)
//   FAKE_NVML_FAIL=used_over_total   memory used -> total + 1 GiB
//   FAKE_NVML_COUNT_FAILS_AFTER=N    nvmlDeviceGetCount_v2 fails from call N+1 on
//   FAKE_NVML_GPUS=0                 no GPU

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

struct nvmlDevice_st
{
    unsigned index;
};

namespace {

using Return = int;
constexpr Return kSuccess = 0;
constexpr Return kInvalidArgument = 2;
constexpr Return kNotSupported = 3;
constexpr Return kNoPermission = 4;
constexpr Return kInsufficientSize = 7;
constexpr Return kDriverNotLoaded = 9;
constexpr Return kGpuIsLost = 15;
constexpr Return kUninitialized = 1;
constexpr Return kArgumentVersionMismatch = 25;
constexpr Return kUnknown = 999;

struct MemoryV1
{
    unsigned long long total, free, used;
};
struct MemoryV2
{
    unsigned int version;
    unsigned long long total, reserved, free, used;
};
struct PciInfo
{
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
};
struct PciInfoLegacy // the pre-_v2 nvmlPciInfo_t
{
    char busId[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    unsigned int reserved0, reserved1, reserved2, reserved3;
};
struct ProcessV1
{
    unsigned int pid;
    unsigned long long usedGpuMemory;
};
struct ProcessV2
{
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
};
static_assert(sizeof(MemoryV2) == 40 && sizeof(PciInfo) == 68 && sizeof(ProcessV2) == 24 &&
              sizeof(ProcessV1) == 16);

constexpr unsigned long long kNotAvailable = ~0ULL;

struct FakeProcess
{
    unsigned pid;
    unsigned long long used;
};

struct FakeGpu
{
    const char *name;
    const char *uuid;
    const char *busId;
    const char *busIdLegacy;
    unsigned bus;
    unsigned long long total, reserved, used, free;
    FakeProcess processes[2];
    unsigned processCount;
};

constexpr FakeGpu kGpus[2] = {
    {"NVIDIA H100 80GB HBM3",
     "GPU-0f6a2c4e-1b3d-4e5f-8a9b-0c1d2e3f4a50",
     "00000000:18:00.0",
     "0000:18:00.0",
     0x18,
     85520809984ULL,
     553648128ULL,
     10737418240ULL,
     74229743616ULL,
     {{4242, 8589934592ULL}, {4343, 2147483648ULL}},
     2},
    {"NVIDIA H100 80GB HBM3",
     "GPU-0f6a2c4e-1b3d-4e5f-8a9b-0c1d2e3f4a51",
     "00000000:2A:00.0",
     "0000:2A:00.0",
     0x2a,
     85520809984ULL,
     553648128ULL,
     5368709120ULL,
     79598452736ULL,
     {{5151, kNotAvailable}, {0, 0}},
     1},
};
static_assert(kGpus[0].total == kGpus[0].reserved + kGpus[0].used + kGpus[0].free);
static_assert(kGpus[1].total == kGpus[1].reserved + kGpus[1].used + kGpus[1].free);

nvmlDevice_st g_handles[2] = {{0}, {1}};
int g_initCount = 0;
int g_shutdownCount = 0;
int g_countCalls = 0;
unsigned g_lastMemoryVersion = 0;
std::atomic<bool> g_releaseInit{false};

bool failing(const char *what)
{
    const char *v = std::getenv("FAKE_NVML_FAIL");
    return v && std::strcmp(v, what) == 0;
}

unsigned gpuCount()
{
    const char *v = std::getenv("FAKE_NVML_GPUS");
    return v && std::strcmp(v, "0") == 0 ? 0 : 2;
}

const FakeGpu *gpuOf(nvmlDevice_st *device)
{
    if (g_initCount <= g_shutdownCount || !device || device->index >= gpuCount())
        return nullptr;
    return &kGpus[device->index];
}

void copyText(char *to, std::size_t length, const char *text)
{
    if (length == 0)
        return;
    const std::size_t n = std::min(std::strlen(text), length - 1);
    std::memcpy(to, text, n);
    to[n] = '\0';
}

// A string field of the device's GPU into the caller's buffer, as NVML's getters copy
// it: NVML_ERROR_INVALID_ARGUMENT for an unknown handle or no buffer.
Return deviceText(nvmlDevice_st *device, const char *FakeGpu::*field, char *to, unsigned length)
{
    const FakeGpu *gpu = gpuOf(device);
    if (!gpu || !to || length == 0)
        return kInvalidArgument;
    copyText(to, length, gpu->*field);
    return kSuccess;
}

template <typename Info> Return listProcesses(nvmlDevice_st *device, unsigned *count, Info *infos)
{
    const FakeGpu *gpu = gpuOf(device);
    if (!gpu || !count)
        return kInvalidArgument;
    if (failing("processes"))
        return kNoPermission;
    if (failing("huge_processes")) {
        *count = 4294967295U;
        return kInsufficientSize;
    }
    if (*count < gpu->processCount) {
        *count = gpu->processCount;
        return gpu->processCount == 0 ? kSuccess : kInsufficientSize;
    }
    if (!infos && gpu->processCount > 0)
        return kInvalidArgument;
    for (unsigned i = 0; i < gpu->processCount; ++i) {
        infos[i] = Info{};
        infos[i].pid = gpu->processes[i].pid;
        infos[i].usedGpuMemory = gpu->processes[i].used;
    }
    *count = gpu->processCount;
    return kSuccess;
}

} // namespace

// ---- test hooks (not NVML) ----
FAKE_EXPORT unsigned fake_nvml_last_memory_version()
{
    return g_lastMemoryVersion;
}
FAKE_EXPORT int fake_nvml_init_count()
{
    return g_initCount;
}
// Lets a blocked FAKE_NVML_FAIL=init_hang call return.
FAKE_EXPORT void fake_nvml_release_init()
{
    g_releaseInit.store(true);
}

FAKE_EXPORT int fake_nvml_shutdown_count()
{
    return g_shutdownCount;
}

// ---- NVML ----
FAKE_EXPORT Return nvmlInit()
{
    ++g_initCount;
    return kSuccess;
}

#ifndef FAKE_NVML_NO_INIT_V2
FAKE_EXPORT Return nvmlInit_v2()
{
    if (failing("chatty")) {
        std::fputs("fake driver: NVRM version banner\n", stdout);
        std::fflush(stdout);
    }
    if (failing("init_hang")) {
        while (!g_releaseInit.load())
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return kUnknown;
    }
    if (failing("init"))
        return kDriverNotLoaded;
    if (failing("init_permission"))
        return kNoPermission;
    ++g_initCount;
    return kSuccess;
}
#endif

FAKE_EXPORT Return nvmlShutdown()
{
    if (g_initCount <= g_shutdownCount)
        return kUninitialized;
    ++g_shutdownCount;
    return kSuccess;
}

FAKE_EXPORT const char *nvmlErrorString(Return rc)
{
    switch (rc) {
    case kSuccess:
        return "Success";
    case kUninitialized:
        return "Uninitialized";
    case kInvalidArgument:
        return "Invalid Argument";
    case kNotSupported:
        return "Not Supported";
    case kNoPermission:
        return "Insufficient Permissions";
    case kDriverNotLoaded:
        return "Driver Not Loaded";
    case kGpuIsLost:
        return "GPU is lost";
    case kArgumentVersionMismatch:
        return "Argument version mismatch";
    default:
        return "Unknown Error";
    }
}

FAKE_EXPORT Return nvmlSystemGetDriverVersion(char *version, unsigned length)
{
    if (!version || length < 80)
        return kInvalidArgument;
    copyText(version, length, "550.54.15");
    return kSuccess;
}

FAKE_EXPORT Return nvmlDeviceGetCount_v2(unsigned *count)
{
    if (g_initCount <= g_shutdownCount)
        return kUninitialized;
    ++g_countCalls;
    if (failing("count"))
        return kUnknown;
    if (const char *after = std::getenv("FAKE_NVML_COUNT_FAILS_AFTER")) {
        if (g_countCalls > std::atoi(after))
            return kUnknown;
    }
    *count = failing("huge_count") ? 4294967295U : gpuCount();
    return kSuccess;
}

FAKE_EXPORT Return nvmlDeviceGetHandleByIndex_v2(unsigned index, nvmlDevice_st **device)
{
    if (g_initCount <= g_shutdownCount)
        return kUninitialized;
    if (index >= gpuCount() || !device)
        return kInvalidArgument;
    *device = &g_handles[index];
    return kSuccess;
}

FAKE_EXPORT Return nvmlDeviceGetName(nvmlDevice_st *device, char *name, unsigned length)
{
    return deviceText(device, &FakeGpu::name, name, length);
}

FAKE_EXPORT Return nvmlDeviceGetUUID(nvmlDevice_st *device, char *uuid, unsigned length)
{
    return deviceText(device, &FakeGpu::uuid, uuid, length);
}

FAKE_EXPORT Return nvmlDeviceGetPciInfo(nvmlDevice_st *device, PciInfoLegacy *pci)
{
    const FakeGpu *gpu = gpuOf(device);
    if (!gpu || !pci)
        return kInvalidArgument;
    *pci = PciInfoLegacy{};
    copyText(pci->busId, sizeof pci->busId, gpu->busIdLegacy);
    pci->bus = gpu->bus;
    pci->pciDeviceId = 0x233010de;
    return kSuccess;
}

#ifndef FAKE_NVML_LEGACY
FAKE_EXPORT Return nvmlDeviceGetPciInfo_v3(nvmlDevice_st *device, PciInfo *pci)
{
    const FakeGpu *gpu = gpuOf(device);
    if (!gpu || !pci)
        return kInvalidArgument;
    *pci = PciInfo{};
    copyText(pci->busIdLegacy, sizeof pci->busIdLegacy, gpu->busIdLegacy);
    copyText(pci->busId, sizeof pci->busId, gpu->busId);
    pci->bus = gpu->bus;
    pci->pciDeviceId = 0x233010de;
    return kSuccess;
}

FAKE_EXPORT Return nvmlDeviceGetMemoryInfo_v2(nvmlDevice_st *device, MemoryV2 *memory)
{
    const FakeGpu *gpu = gpuOf(device);
    if (!gpu || !memory)
        return kInvalidArgument;
    g_lastMemoryVersion = memory->version;
    // NVML_STRUCT_VERSION(Memory, 2): the size in the low bits, 2 in the top byte.
    if (memory->version != (unsigned(sizeof(MemoryV2)) | (2U << 24)))
        return kArgumentVersionMismatch;
    if (failing("memory"))
        return kGpuIsLost;
    if (failing("memory_v2_not_supported"))
        return kNotSupported;
    memory->total = failing("huge_memory") ? ~0ULL : gpu->total;
    memory->reserved = gpu->reserved;
    memory->free = gpu->free;
    memory->used = failing("used_over_total") ? gpu->total + (1ULL << 30) : gpu->used;
    return kSuccess;
}

FAKE_EXPORT Return nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_st *device, unsigned *count,
                                                           ProcessV2 *infos)
{
    return listProcesses(device, count, infos);
}

FAKE_EXPORT Return nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_st *device, unsigned *count,
                                                           ProcessV2 *infos)
{
    return listProcesses(device, count, infos);
}
#endif

FAKE_EXPORT Return nvmlDeviceGetMemoryInfo(nvmlDevice_st *device, MemoryV1 *memory)
{
    const FakeGpu *gpu = gpuOf(device);
    if (!gpu || !memory)
        return kInvalidArgument;
    if (failing("memory"))
        return kGpuIsLost;
    // v1 folds the reserved memory into "used", as real drivers do.
    memory->total = gpu->total;
    memory->free = gpu->free;
    memory->used = gpu->used + gpu->reserved;
    return kSuccess;
}

FAKE_EXPORT Return nvmlDeviceGetComputeRunningProcesses(nvmlDevice_st *device, unsigned *count,
                                                        ProcessV1 *infos)
{
    return listProcesses(device, count, infos);
}
