#include "reportjson.h"

#include <QJsonArray>

namespace shardscope {

QJsonObject reportToJson(const Scenario &s, const MemoryReport &r)
{
    if (!r.valid())
        return {{"error", QString::fromStdString(r.error)}};

    QJsonObject model{{"id", QString::fromStdString(s.model.id)},
                      {"name", QString::fromStdString(s.model.displayName)},
                      {"parameters", qint64(r.parameters)},
                      {"source", QString::fromStdString(s.model.source)}};
    if (const auto &a = s.model.architecture) {
        model.insert("architecture", QJsonObject{{"layers", a->layers},
                                                 {"hidden", qint64(a->hidden)},
                                                 {"ffn", qint64(a->ffn)},
                                                 {"heads", a->heads},
                                                 {"kv_heads", a->kvHeads},
                                                 {"vocab", qint64(a->vocab)},
                                                 {"tied", a->tiedEmbeddings},
                                                 {"gated_mlp", a->gatedMlp}});
    }
    const QJsonObject recipe{{"id", QString::fromStdString(s.recipe.id)},
                             {"weights", qint64(s.recipe.weightBytes)},
                             {"gradients", qint64(s.recipe.gradientBytes)},
                             {"master_weights", qint64(s.recipe.masterWeightBytes)},
                             {"optimizer_states", qint64(s.recipe.optimizerBytes)},
                             {"bytes_per_parameter", qint64(s.recipe.totalBytesPerParameter())}};
    const QJsonObject gpu{{"id", QString::fromStdString(s.gpu.id)},
                          {"name", QString::fromStdString(s.gpu.name)},
                          {"capacity_bytes", qint64(s.gpu.capacityBytes)},
                          {"driver_reported_bytes", qint64(s.gpu.driverReportedBytes)},
                          {"source", QString::fromStdString(s.gpu.source)}};
    const QJsonObject layout{
        {"gpus", qint64(s.layout.gpus)},
        {"data_parallel", qint64(s.layout.dataParallel())},
        {"strategy", QString::fromUtf8(zeroStageId(s.layout.zeroStage).data(),
                                       qsizetype(zeroStageId(s.layout.zeroStage).size()))},
        {"zero_stage", int(s.layout.zeroStage)}};

    QJsonArray groups;
    for (const auto &g : r.groups) {
        QJsonObject bytes;
        for (int c = 0; c < componentCount; ++c)
            bytes.insert(QString::fromStdString(componentKey(Component(c))),
                         qint64(componentValue(g.bytes, Component(c))));
        groups.append(QJsonObject{{"label", QString::fromStdString(g.label)},
                                  {"first_rank", qint64(g.firstRank)},
                                  {"gpus", qint64(g.gpuCount)},
                                  {"bytes", bytes},
                                  {"total_bytes", qint64(g.totalBytes())}});
    }
    return QJsonObject{{"parameters", qint64(r.parameters)},
                       {"capacity_bytes", qint64(r.capacityBytes)},
                       {"peak_bytes", qint64(r.peakBytes())},
                       {"headroom_bytes", qint64(r.headroomBytes())},
                       {"fits", r.fits()},
                       {"model", model},
                       {"recipe", recipe},
                       {"gpu", gpu},
                       {"layout", layout},
                       {"modelled", QJsonObject{{"activations", false}, {"buffers", false}}},
                       {"groups", groups}};
}

} // namespace shardscope
