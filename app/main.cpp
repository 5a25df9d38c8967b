// shardscope: the explorer window by default; `report` prints a report headlessly.
#include "exportcommand.h"
#include "exportconfigcommand.h"
#include "mainwindow.h"
#include "reportcommand.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTextStream>
#include <QTimer>

namespace {

/// The GUI's own flags: the scenario to open on, and --screenshot for docs and CI.
int runGui(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("ShardScope"));
    QApplication::setApplicationVersion(QStringLiteral(SHARDSCOPE_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/shardscope/icons/shardscope.svg")));

    QCommandLineParser p;
    p.setApplicationDescription(
        QStringLiteral("ShardScope: where GPU memory goes when a large model is trained on "
                       "many GPUs.\nSubcommands: report, export ('shardscope export --help')."));
    p.addHelpOption();
    p.addVersionOption();
    const shardscope::ScenarioOptions options;
    options.addTo(p);
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Save the window to a PNG file and exit."),
                                        QStringLiteral("file"));
    const QCommandLineOption size(QStringLiteral("size"),
                                  QStringLiteral("Window size WIDTHxHEIGHT (default 1600x950)."),
                                  QStringLiteral("size"));
    const QCommandLineOption present(QStringLiteral("present"),
                                     QStringLiteral("Start in presentation mode."));
    const QCommandLineOption dark(QStringLiteral("dark"), QStringLiteral("Use the dark theme."));
    p.addOptions({screenshot, size, present, dark});
    p.process(app);

    QTextStream err(stderr);
    shardscope::MainWindow window;
    if (options.anySet(p)) {
        QString error;
        const auto s = options.scenario(p, &error);
        if (!s) {
            err << "shardscope: " << error << "\n";
            return 2;
        }
        window.scenarioModel()->setScenario(*s);
    }
    if (p.isSet(options.unit)) {
        QString error;
        const auto unit = options.byteUnit(p, &error);
        if (!unit) {
            err << "shardscope: " << error << "\n";
            return 2;
        }
        window.scenarioModel()->setUnit(*unit);
    }
    if (p.isSet(size)) {
        const QStringList wh = p.value(size).split(u'x');
        const int w = wh.value(0).toInt(), h = wh.value(1).toInt();
        if (wh.size() != 2 || w < 320 || h < 240 || w > 8000 || h > 8000) {
            err << "shardscope: --size must be WIDTHxHEIGHT between 320x240 and 8000x8000 (got '"
                << p.value(size) << "')\n";
            return 2;
        }
        window.resize(w, h);
    }
    window.setDarkTheme(p.isSet(dark));
    window.setPresentationMode(p.isSet(present));
    window.show();
    if (p.isSet(screenshot)) {
        const QString file = p.value(screenshot);
        QTimer::singleShot(300, &window, [&window, file, &err] {
            if (!window.grab().save(file)) {
                err << "shardscope: cannot write " << file << "\n";
                QCoreApplication::exit(1);
                return;
            }
            QCoreApplication::exit(0);
        });
    }
    return app.exec();
}

} // namespace

int main(int argc, char **argv)
{
    if (argc > 1 && QByteArray(argv[1]) == "report") {
        QCoreApplication app(argc, argv);
        QCoreApplication::setApplicationName(QStringLiteral("shardscope"));
        QTextStream out(stdout);
        QTextStream err(stderr);
        return shardscope::runReportCommand(QCoreApplication::arguments(), out, err);
    }
    if (argc > 1 && QByteArray(argv[1]) == "export-config") {
        QCoreApplication app(argc, argv);
        QCoreApplication::setApplicationName(QStringLiteral("shardscope"));
        QTextStream out(stdout);
        QTextStream err(stderr);
        return shardscope::runExportConfigCommand(QCoreApplication::arguments(), out, err);
    }
    if (argc > 1 && QByteArray(argv[1]) == "export") {
        // Charts need a QApplication; with no display, draw on the offscreen platform.
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") &&
            qEnvironmentVariableIsEmpty("DISPLAY") &&
            qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        QApplication app(argc, argv);
        QApplication::setApplicationName(QStringLiteral("shardscope"));
        QTextStream out(stdout);
        QTextStream err(stderr);
        return shardscope::runExportCommand(QApplication::arguments(), out, err);
    }
    return runGui(argc, argv);
}
