#pragma once

// The few NVML declarations the probe needs, written here so the probe builds
// without nvml.h and runs on machines with no driver (the library is dlopen'ed).
// Layouts and values follow nvml.h from the NVIDIA driver (R510 and later) and
// the NVML API reference (docs.nvidia.com/deploy/nvml-api). Names keep NVML's
// spelling so each line can be checked against nvml.h.

#include <cstddef>

namespace shardscope::probe::nvml {

/// nvmlReturn_t: an NVML status code (0 is success).
using nvmlReturn_t = int;

/// nvmlDevice_t: an opaque device handle owned by NVML.
using nvmlDevice_t = struct nvmlDevice_st *;

inline constexpr nvmlReturn_t NVML_SUCCESS = 0;
inline constexpr nvmlReturn_t NVML_ERROR_UNINITIALIZED = 1;
inline constexpr nvmlReturn_t NVML_ERROR_INVALID_ARGUMENT = 2;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_SUPPORTED = 3;
inline constexpr nvmlReturn_t NVML_ERROR_NO_PERMISSION = 4;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_FOUND = 6;
inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_SIZE = 7;
inline constexpr nvmlReturn_t NVML_ERROR_DRIVER_NOT_LOADED = 9;
inline constexpr nvmlReturn_t NVML_ERROR_LIBRARY_NOT_FOUND = 12;
inline constexpr nvmlReturn_t NVML_ERROR_FUNCTION_NOT_FOUND = 13;
inline constexpr nvmlReturn_t NVML_ERROR_GPU_IS_LOST = 15;
inline constexpr nvmlReturn_t NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18;
inline constexpr nvmlReturn_t NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25;
inline constexpr nvmlReturn_t NVML_ERROR_UNKNOWN = 999;

/// NVML_VALUE_NOT_AVAILABLE as an unsigned long long: a process memory figure
/// NVML could not measure (always so under Windows WDDM).
inline constexpr unsigned long long NVML_VALUE_NOT_AVAILABLE_ULL = ~0ULL;

/// Buffer sizes from nvml.h (in chars, terminating NUL included).
inline constexpr unsigned NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96;
inline constexpr unsigned NVML_DEVICE_UUID_V2_BUFFER_SIZE = 96;
inline constexpr unsigned NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE = 80;

/// nvmlMemory_t: the v1 reading of nvmlDeviceGetMemoryInfo, in bytes. `used`
/// includes the memory the driver reserves for itself.
struct nvmlMemory_t
{
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};

/// nvmlMemory_v2_t: the reading of nvmlDeviceGetMemoryInfo_v2, in bytes.
/// `version` must be set to nvmlMemory_v2 before the call.
struct nvmlMemory_v2_t
{
    unsigned int version;
    unsigned long long total;
    unsigned long long reserved;
    unsigned long long free;
    unsigned long long used;
};

/// NVML_STRUCT_VERSION(name, ver) from nvml.h: sizeof the struct in the low
/// bits, the version in the top byte. Passing the bare number 2 is a known
/// mistake (nvtop, dxvk-nvapi): NVML then answers FUNCTION_NOT_FOUND or
/// ARGUMENT_VERSION_MISMATCH.
template <typename T> constexpr unsigned int nvmlStructVersion(unsigned int version)
{
    return static_cast<unsigned int>(sizeof(T)) | (version << 24U);
}

/// nvmlMemory_v2 from nvml.h: the version word for nvmlMemory_v2_t (0x02000028).
inline constexpr unsigned int nvmlMemory_v2 = nvmlStructVersion<nvmlMemory_v2_t>(2);

/// nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v3 / _v2. The unsuffixed
/// legacy nvmlDeviceGetPciInfo writes a smaller struct whose first 16 chars
/// are the bus id, so the same buffer serves (read `busIdLegacy` then).
struct nvmlPciInfo_t
{
    char busIdLegacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[32];
};

/// nvmlProcessInfo_v1_t: entries of the unsuffixed
/// nvmlDeviceGetComputeRunningProcesses. `usedGpuMemory` in bytes.
struct nvmlProcessInfo_v1_t
{
    unsigned int pid;
    unsigned long long usedGpuMemory;
};

/// nvmlProcessInfo_t (= nvmlProcessInfo_v2_t): entries of
/// nvmlDeviceGetComputeRunningProcesses_v3 and _v2. `usedGpuMemory` in bytes.
struct nvmlProcessInfo_t
{
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
};

// The ABI as nvml.h lays it out on x86-64 and aarch64 Linux.
static_assert(sizeof(nvmlMemory_t) == 24);
static_assert(sizeof(nvmlMemory_v2_t) == 40);
static_assert(nvmlMemory_v2 == 0x02000028U);
static_assert(sizeof(nvmlPciInfo_t) == 68);
static_assert(offsetof(nvmlPciInfo_t, busId) == 36);
static_assert(sizeof(nvmlProcessInfo_v1_t) == 16);
static_assert(sizeof(nvmlProcessInfo_t) == 24);

// Function types, one per symbol the probe resolves.
using InitFn = nvmlReturn_t (*)();
using ShutdownFn = nvmlReturn_t (*)();
using ErrorStringFn = const char *(*)(nvmlReturn_t);
using SystemGetDriverVersionFn = nvmlReturn_t (*)(char *, unsigned int);
using DeviceGetCountFn = nvmlReturn_t (*)(unsigned int *);
using DeviceGetHandleByIndexFn = nvmlReturn_t (*)(unsigned int, nvmlDevice_t *);
using DeviceGetStringFn = nvmlReturn_t (*)(nvmlDevice_t, char *, unsigned int);
using DeviceGetPciInfoFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlPciInfo_t *);
using DeviceGetMemoryInfoFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t *);
using DeviceGetMemoryInfoV2Fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_v2_t *);
using DeviceGetProcessesV1Fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int *,
                                                nvmlProcessInfo_v1_t *);
using DeviceGetProcessesFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_t *);

} // namespace shardscope::probe::nvml
