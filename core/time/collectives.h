#pragma once

// Collective communication time on a cluster of nodes: NVLink inside a node, NICs
// across, NCCL's ring and tree (hierarchical) algorithms. Every rule and its source:
// docs/steptime.md "Collectives".

#include <cstdint>

namespace shardscope {

/// Share of a link's datasheet bandwidth that NCCL's collectives reach as bus bandwidth
/// for large messages (nccl-tests all_reduce_perf on a DGX A100: about 230 of 300 GB/s
/// over NVLink; InfiniBand runs at a similar share of line rate).
inline constexpr double ncclBusEfficiency = 0.8;

/// Share of a collective's time that still slows the step when it runs behind compute:
/// NCCL runs one thread block per channel (8 to 32 channels on NVLink systems), so while
/// it runs it holds 7-30% of an A100's 108 SMs and shares HBM with the matmuls.
/// Calibrated with the step-time cases (docs/steptime.md "Overlap").
inline constexpr double overlapInterference = 0.1;

/// Seconds a collective of `seconds` adds to a step when up to `window` seconds of
/// compute can hide it: what does not fit the window, plus overlapInterference of what
/// does.
inline double exposedBehind(double seconds, double window)
{
    const double hidden = seconds < window ? seconds : window;
    return seconds - hidden + overlapInterference * hidden;
}

/// The machines a step runs on: nodes of `gpusPerNode` GPUs joined by NVLink (or PCIe),
/// each node with `nicsPerNode` NICs to the network.
struct Topology
{
    std::int64_t gpusPerNode = 8;
    double intraNodeBytesPerSecond = 0; ///< one GPU to its node peers, one direction
    double nicBytesPerSecond = 0;       ///< one NIC, one direction
    std::int64_t nicsPerNode = 8;
    double intraNodeLatencySeconds = 0; ///< one algorithm step inside a node
    double nicLatencySeconds = 0;       ///< one algorithm step across nodes
};

/// A communicator: `ranks` GPUs whose global ranks are `stride` apart (Megatron's rank
/// order: tensor fastest, then context, data, pipeline; a tensor group has stride 1, a
/// data-parallel group stride t).
struct GroupShape
{
    std::int64_t ranks = 1;
    std::int64_t stride = 1;
};

/// How a collective's latency grows with its group: two phases (all-reduce: reduce-scatter
/// then all-gather), one phase (all-gather or reduce-scatter), R - 1 exchanges
/// (all-to-all), one send (point to point).
enum class Collective
{
    AllReduce,
    AllGatherOrReduceScatter,
    AllToAll,
    PointToPoint
};

/// Where a group's ranks sit: members in one node and nodes spanned.
struct GroupPlacement
{
    std::int64_t perNode = 1; ///< members sharing a node
    std::int64_t nodes = 1;   ///< nodes the group spans
};

/// The placement of group `g` on nodes of `gpusPerNode` GPUs: perNode = min(ranks,
/// gpusPerNode / stride) (1 when the stride fills a node), nodes = ceil(ranks / perNode).
GroupPlacement placement(const Topology &topo, GroupShape g);

/// NCCL bus bandwidth of group `g`, bytes/s: inside one node the NVLink bandwidth, across
/// nodes the smaller of NVLink and the group's share of its node's NICs (NCCL runs one
/// channel per NIC and crosses each node boundary once per channel, so a node's
/// cross-node ring traffic spreads over all its NICs: perNode x nicsPerNode / gpusPerNode
/// NICs), times ncclBusEfficiency. The data already carries the (R - 1) / R factors.
double busBandwidth(const Topology &topo, GroupShape g);

/// Latency of one collective call over group `g`, seconds: the smaller of the ring's
/// steps (2 (R - 1) for an all-reduce, R - 1 for a gather or scatter, at the slowest
/// link's step latency) and the hierarchical tree's (per phase: (perNode - 1) NVLink
/// steps + 2 ceil(log2 nodes) NIC steps), the choice NCCL's tuner makes by latency at
/// small sizes and at scale (NCCL 2.4 double binary trees; NCCL 2.23 PAT for gathers
/// and scatters). All-to-all takes R - 1 exchanges, a send one step.
double collectiveLatency(const Topology &topo, GroupShape g, Collective kind);

/// Seconds of `calls` collectives of kind `kind` over `g` that move `bytes` per GPU in
/// all: bytes / busBandwidth + calls x collectiveLatency. 0 when bytes is 0.
double collectiveSeconds(const Topology &topo, GroupShape g, Collective kind, std::int64_t bytes,
                         double calls);

} // namespace shardscope
