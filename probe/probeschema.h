#pragma once
// The probe's reading document, `shardscope-probe/1` (docs/probe.md "Reading"): the one
// list of its keys, which the probe writes (probe/sampler.cpp, probe/prometheus.cpp,
// probe/probeerror.cpp) and the app reads (io/probedocument.cpp). QtCore only, header
// only, so the probe still builds on its own (cmake -S probe).

#include <QLatin1StringView>

namespace shardscope::probeschema {

/// The document's "schema" value; a reader refuses any other.
inline constexpr QLatin1StringView id{"shardscope-probe/1"};

// Top level of a reading.
inline constexpr QLatin1StringView schema{"schema"};                ///< always `id`
inline constexpr QLatin1StringView source{"source"};                ///< "nvml" or "prometheus"
inline constexpr QLatin1StringView timestampMs{"timestamp_ms"};     ///< Unix time, ms
inline constexpr QLatin1StringView driverVersion{"driver_version"}; ///< NVML driver string
inline constexpr QLatin1StringView memoryApi{"nvml_memory_api"};    ///< "v2" or "v1"
inline constexpr QLatin1StringView prometheusUrl{"prometheus_url"}; ///< server, password ***
inline constexpr QLatin1StringView gpus{"gpus"};                    ///< array of GPU objects
inline constexpr QLatin1StringView error{"error"};                  ///< one-line message
inline constexpr QLatin1StringView errorCode{"error_code"};         ///< e.g. "no_driver"

// One GPU of "gpus".
inline constexpr QLatin1StringView index{"index"};       ///< device index on its host
inline constexpr QLatin1StringView hostname{"hostname"}; ///< Prometheus readings only
inline constexpr QLatin1StringView name{"name"};
inline constexpr QLatin1StringView uuid{"uuid"};
inline constexpr QLatin1StringView pciBusId{"pci_bus_id"};
inline constexpr QLatin1StringView totalBytes{"total_bytes"};         ///< bytes
inline constexpr QLatin1StringView reservedBytes{"reserved_bytes"};   ///< bytes, or null
inline constexpr QLatin1StringView usedBytes{"used_bytes"};           ///< bytes
inline constexpr QLatin1StringView freeBytes{"free_bytes"};           ///< bytes
inline constexpr QLatin1StringView processes{"processes"};            ///< array, or null
inline constexpr QLatin1StringView processesError{"processes_error"}; ///< why null
inline constexpr QLatin1StringView pid{"pid"};                        ///< of one process

} // namespace shardscope::probeschema
