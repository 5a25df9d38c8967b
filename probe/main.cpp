// shardscope-probe: prints what each NVIDIA GPU's memory holds, as JSON for the
// ShardScope GUI (docs/probe.md). Exit codes: 0 readings or nothing to read,
// 1 a failure the caller should show, 2 bad usage.

#include "calibration.h"
#include "probeschema.h"
#include "prometheus.h"
#include "sampler.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QThread>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <unistd.h>

#ifndef SHARDSCOPE_VERSION
#define SHARDSCOPE_VERSION "0.0.0"
#endif

using namespace shardscope::probe;
namespace probeschema = shardscope::probeschema;

namespace {

// Where the documents go: stdout, or once keepDriverTextOffStdout() has run, a private
// copy of it.
FILE *g_documents = nullptr;

// The NVML (and CUDA) libraries run inside this process and may print to fd 1; a
// driver's printf landed before the JSON and broke the reader (review finding F8). The
// documents keep a private copy of stdout and fd 1 becomes stderr, so such text goes
// to stderr. Called after --help and --version, which print to stdout as usual.
void keepDriverTextOffStdout()
{
    std::fflush(stdout);
    const int fd = ::dup(STDOUT_FILENO);
    if (fd < 0)
        return;
    FILE *documents = ::fdopen(fd, "w");
    if (!documents) {
        ::close(fd);
        return;
    }
    if (::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        std::fclose(documents);
        return;
    }
    g_documents = documents;
}

void writeLine(const QByteArray &line, FILE *to = nullptr)
{
    if (!to)
        to = g_documents ? g_documents : stdout;
    std::fwrite(line.constData(), 1, std::size_t(line.size()), to);
    std::fputc('\n', to);
    std::fflush(to);
}

void writeJson(const QJsonObject &doc)
{
    writeLine(QJsonDocument(doc).toJson(QJsonDocument::Compact));
}

QString gib(const QJsonValue &bytes)
{
    if (bytes.isNull() || bytes.isUndefined())
        return QStringLiteral("n/a");
    return QStringLiteral("%1 GiB").arg(double(bytes.toInteger()) / double(1ULL << 30), 0, 'f', 2);
}

// One line of the human-readable form: redacted, control characters escaped.
void writeTextLine(const QString &line)
{
    writeLine(printableText(line).toLocal8Bit());
}

// The human-readable form printed without --json.
void writeText(const QJsonObject &doc)
{
    if (doc.contains(QString(probeschema::error))) {
        writeTextLine(
            QStringLiteral("%1 (%2)").arg(doc.value(QString(probeschema::error)).toString(),
                                          doc.value(QString(probeschema::errorCode)).toString()));
        return;
    }
    if (doc.value(QString(probeschema::source)).toString() == QLatin1String("nvml")) {
        writeTextLine(QStringLiteral("NVIDIA driver %1, NVML memory API %2")
                          .arg(doc.value(QString(probeschema::driverVersion)).toString(),
                               doc.value(QString(probeschema::memoryApi)).toString()));
    } else {
        writeTextLine(QStringLiteral("Prometheus %1")
                          .arg(doc.value(QString(probeschema::prometheusUrl)).toString()));
    }
    for (const QJsonValue &v : doc.value(QString(probeschema::gpus)).toArray()) {
        const QJsonObject g = v.toObject();
        writeTextLine(
            QStringLiteral("%1GPU %2  %3  %4  used %5, reserved %6, free %7, total %8")
                .arg(g.contains(QString(probeschema::hostname))
                         ? g.value(QString(probeschema::hostname)).toString() + QStringLiteral(" ")
                         : QString())
                .arg(g.value(QString(probeschema::index)).toInteger())
                .arg(g.value(QString(probeschema::name)).toString(),
                     g.value(QString(probeschema::uuid)).toString(),
                     gib(g.value(QString(probeschema::usedBytes))),
                     gib(g.value(QString(probeschema::reservedBytes))),
                     gib(g.value(QString(probeschema::freeBytes))),
                     gib(g.value(QString(probeschema::totalBytes)))));
        for (const QJsonValue &p : g.value(QString(probeschema::processes)).toArray()) {
            writeTextLine(QStringLiteral("    pid %1  %2")
                              .arg(p.toObject().value(QString(probeschema::pid)).toInteger())
                              .arg(gib(p.toObject().value(QString(probeschema::usedBytes)))));
        }
    }
}

// Prints a usage error: two lines on stderr (the message redacted and escaped,
// so it is one line) and the JSON error document on stdout. Returns ExitUsage.
int usageError(const QString &message)
{
    writeLine(QStringLiteral("shardscope-probe: ").toLocal8Bit() +
                  printableText(message).toLocal8Bit(),
              stderr);
    writeLine("Try 'shardscope-probe --help'.", stderr);
    writeJson(errorDocument(QStringLiteral("usage"),
                            ProbeError::make(QStringLiteral("usage"), message, ExitUsage)));
    return ExitUsage;
}

// An option that takes a value: --name VALUE, with its --help line.
QCommandLineOption valueOption(const char *name, const char *help, const char *valueName)
{
    return QCommandLineOption(QString::fromLatin1(name), QString::fromUtf8(help),
                              QString::fromLatin1(valueName));
}

// Reads a non-negative integer option; false when present and malformed.
bool intOption(const QCommandLineParser &parser, const QCommandLineOption &option, qint64 min,
               qint64 *out, QString *error)
{
    if (!parser.isSet(option))
        return true;
    bool ok = false;
    const QString text = parser.value(option);
    const qint64 v = text.toLongLong(&ok);
    if (!ok || v < min || v > std::numeric_limits<int>::max()) {
        *error = QStringLiteral("--%1 needs an integer >= %2, not '%3'")
                     .arg(option.names().constFirst())
                     .arg(min)
                     .arg(text);
        return false;
    }
    *out = v;
    return true;
}

/// The bytes of the command line's value for `flag` ("--flag VALUE" or
/// "--flag=VALUE") that decode to `value`, or empty: a file name that is not valid
/// UTF-8 only survives as these bytes (review finding F13).
QByteArray rawValue(int argc, char **argv, QByteArrayView flag, const QString &value)
{
    for (int i = 1; i < argc; ++i) {
        const QByteArrayView a(argv[i]);
        QByteArrayView v;
        if (a == flag && i + 1 < argc)
            v = QByteArrayView(argv[i + 1]);
        else if (a.startsWith(flag) && a.size() > flag.size() && a.at(flag.size()) == '=')
            v = a.sliced(flag.size() + 1);
        else
            continue;
        if (QString::fromLocal8Bit(v) == value)
            return v.toByteArray();
    }
    return {};
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("shardscope-probe"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SHARDSCOPE_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Reads per-GPU memory through NVML (no CUDA context) or from a Prometheus "
                       "server scraping dcgm-exporter, and prints it as JSON (docs/probe.md)."));
    const QCommandLineOption help = parser.addHelpOption();
    const QCommandLineOption version = parser.addVersionOption();
    const QCommandLineOption json(QStringLiteral("json"),
                                  QStringLiteral("Print one JSON document per sample."));
    const QCommandLineOption watch =
        valueOption("watch", "Sample every MS milliseconds, one JSON document per line.", "MS");
    const QCommandLineOption count =
        valueOption("count", "With --watch: stop after N samples.", "N");
    const QCommandLineOption prometheus =
        valueOption("prometheus",
                    "Read the cluster from the Prometheus server at URL (dcgm-exporter metrics) "
                    "instead of local NVML.",
                    "URL");
    const QCommandLineOption timeout = valueOption(
        "timeout",
        "With --prometheus: give up after MS milliseconds (default 5000). Reading NVML: the "
        "most MS milliseconds nvmlInit_v2 may take (default 10000).",
        "MS");
    const QCommandLineOption calibrate =
        valueOption("calibrate",
                    "Allocate the bytes SCENARIO.json predicts for one rank and print predicted "
                    "vs measured (needs a CUDA build and a GPU).",
                    "SCENARIO.json");
    const QCommandLineOption rank =
        valueOption("rank", "With --calibrate: the rank to reproduce.", "N");
    const QCommandLineOption device =
        valueOption("device", "With --calibrate: NVML index of the GPU to use (default 0).", "I");
    const QCommandLineOption margin = valueOption(
        "margin-mib", "With --calibrate: MiB to leave free beyond the scenario (default 512).",
        "MIB");
    parser.addOptions({json, watch, count, prometheus, timeout, calibrate, rank, device, margin});

    if (!parser.parse(QCoreApplication::arguments()))
        return usageError(parser.errorText());
    if (parser.isSet(help) || parser.isSet(QStringLiteral("help-all")))
        parser.showHelp(ExitOk);
    if (parser.isSet(version))
        parser.showVersion();
    if (!parser.positionalArguments().isEmpty())
        return usageError(QStringLiteral("unexpected argument '%1'")
                              .arg(parser.positionalArguments().constFirst()));

    QString error;
    qint64 watchMs = 0, samples = 0, timeoutMs = -1, rankValue = -1, deviceValue = 0,
           marginMib = 512;
    if (!intOption(parser, watch, 1, &watchMs, &error) ||
        !intOption(parser, count, 1, &samples, &error) ||
        !intOption(parser, timeout, 1, &timeoutMs, &error) ||
        !intOption(parser, rank, 0, &rankValue, &error) ||
        !intOption(parser, device, 0, &deviceValue, &error) ||
        !intOption(parser, margin, 0, &marginMib, &error))
        return usageError(error);
    if (parser.isSet(count) && !parser.isSet(watch))
        return usageError(QStringLiteral("--count needs --watch"));
    const bool calibrating = parser.isSet(calibrate);
    if (!calibrating && (parser.isSet(rank) || parser.isSet(device) || parser.isSet(margin)))
        return usageError(QStringLiteral("--rank, --device and --margin-mib need --calibrate"));
    if (calibrating && parser.isSet(timeout))
        return usageError(QStringLiteral("--timeout cannot be combined with --calibrate"));
    if (calibrating && (parser.isSet(watch) || parser.isSet(prometheus)))
        return usageError(QStringLiteral("--calibrate cannot be combined with --watch or "
                                         "--prometheus"));

    keepDriverTextOffStdout();
    if (calibrating) {
        CalibrationOptions options;
        options.scenarioPath = parser.value(calibrate);
        options.scenarioFile = rawValue(argc, argv, "--calibrate", options.scenarioPath);
        options.rank = int(rankValue);
        options.device = unsigned(deviceValue);
        options.marginBytes = quint64(marginMib) << 20;
        int exitCode = ExitOk;
        writeJson(runCalibration(options, &exitCode));
        return exitCode;
    }

    const bool asJson = parser.isSet(json) || parser.isSet(watch);
    auto print = [asJson](const QJsonObject &doc) {
        if (asJson)
            writeJson(doc);
        else
            writeText(doc);
    };

    // One sample: prints it and returns its error (empty when it has readings).
    std::function<ProbeError()> sampleOnce;
    std::unique_ptr<NvmlSampler> sampler;
    std::unique_ptr<PrometheusClient> client;
    if (parser.isSet(prometheus)) {
        // Parsed strictly, never "fixed up": QUrl::fromUserInput() would read
        // "http://user:pa/ss@host/" as host "http" with the password in the path.
        const QString typed = parser.value(prometheus).trimmed();
        const QUrl url(typed.contains(QLatin1String("://")) ? typed
                                                            : QStringLiteral("http://") + typed,
                       QUrl::StrictMode);
        if (!url.isValid() || url.host().isEmpty() ||
            (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")))
            return usageError(
                QStringLiteral("--prometheus needs an http(s) URL such as http://host:9090 "
                               "(percent-encode / ? # @ in a password), not '%1'")
                    .arg(url.isValid() ? redactedUrl(url) : redactUrlText(typed)));
        client = std::make_unique<PrometheusClient>(url, timeoutMs > 0 ? int(timeoutMs) : 5000);
        sampleOnce = [&client, &print] {
            const PrometheusSnapshot s = client->fetch();
            print(snapshotToJson(s));
            return s.error;
        };
    } else {
        sampler = std::make_unique<NvmlSampler>();
        if (timeoutMs > 0)
            sampler->setInitTimeout(int(timeoutMs));
        sampleOnce = [&sampler, &print] {
            const NvmlSample s = sampler->sample();
            print(sampleToJson(s));
            return s.error;
        };
    }

    if (!parser.isSet(watch))
        return sampleOnce().exitCode;

    // --watch: a fixed-rate stream until --count samples, an error, or a signal.
    QElapsedTimer clock;
    clock.start();
    for (qint64 n = 1;; ++n) {
        const ProbeError e = sampleOnce();
        // Nothing to read (exit 0) or a failure (exit 1) ends the stream; a cluster
        // without GPUs may gain some, so Prometheus keeps watching through no_gpus.
        if (e.isError() && (e.exitCode != ExitOk || !client))
            return e.exitCode;
        if (samples > 0 && n >= samples)
            return ExitOk;
        const qint64 wait = n * watchMs - clock.elapsed();
        if (wait > 0)
            QThread::msleep(static_cast<unsigned long>(wait));
    }
}
