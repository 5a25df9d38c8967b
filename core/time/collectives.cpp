#include "collectives.h"

#include <algorithm>
#include <cmath>

namespace shardscope {

GroupPlacement placement(const Topology &topo, GroupShape g)
{
    GroupPlacement p;
    const std::int64_t perNode = std::max<std::int64_t>(1, topo.gpusPerNode);
    const std::int64_t ranks = std::max<std::int64_t>(1, g.ranks);
    const std::int64_t stride = std::max<std::int64_t>(1, g.stride);
    p.perNode =
        stride >= perNode ? 1 : std::min(ranks, std::max<std::int64_t>(1, perNode / stride));
    p.nodes = (ranks + p.perNode - 1) / p.perNode;
    return p;
}

double busBandwidth(const Topology &topo, GroupShape g)
{
    const GroupPlacement p = placement(topo, g);
    if (p.nodes <= 1)
        return topo.intraNodeBytesPerSecond * ncclBusEfficiency;
    const double perNode = double(std::max<std::int64_t>(1, topo.gpusPerNode));
    const double nics = double(topo.nicsPerNode) * double(p.perNode) / perNode;
    const double across = topo.nicBytesPerSecond * nics;
    const double bound = p.perNode > 1 ? std::min(topo.intraNodeBytesPerSecond, across) : across;
    return bound * ncclBusEfficiency;
}

double collectiveLatency(const Topology &topo, GroupShape g, Collective kind)
{
    const std::int64_t ranks = std::max<std::int64_t>(1, g.ranks);
    if (ranks <= 1)
        return 0;
    const GroupPlacement p = placement(topo, g);
    const double step = p.nodes > 1 ? topo.nicLatencySeconds : topo.intraNodeLatencySeconds;
    switch (kind) {
    case Collective::PointToPoint:
        return step;
    case Collective::AllToAll:
        return double(ranks - 1) * step;
    case Collective::AllReduce:
    case Collective::AllGatherOrReduceScatter:
        break;
    }
    const double phases = kind == Collective::AllReduce ? 2 : 1;
    const double ring = phases * double(ranks - 1) * step;
    const double tree =
        phases * (double(p.perNode - 1) * topo.intraNodeLatencySeconds +
                  2 * std::ceil(std::log2(double(p.nodes))) * topo.nicLatencySeconds);
    return std::min(ring, tree);
}

double collectiveSeconds(const Topology &topo, GroupShape g, Collective kind, std::int64_t bytes,
                         double calls)
{
    if (bytes <= 0)
        return 0;
    return double(bytes) / busBandwidth(topo, g) + calls * collectiveLatency(topo, g, kind);
}

} // namespace shardscope
