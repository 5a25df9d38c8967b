// shardscope-gui: the explorer window and every subcommand, `export` (which draws
// charts) among them. `shardscope` (main.cpp) runs the headless subcommands itself
// and hands everything else to this executable.
#include "appidentity.h"
#include "chartexport.h"
#include "exportcommand.h"
#include "exportconfigcommand.h"
#include "inputfile.h"
#include "mainwindow.h"
#include "measurement.h"
#include "qtext.h"
#include "reportcommand.h"
#include "scenariofile.h"
#include "session.h"
#include "sweep.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>
#include <QImage>
#include <QImageWriter>
#include <QSaveFile>
#include <QTextStream>
#include <QTimer>

namespace {

/// The window's command line: the scenario flags, the file to open, and the
/// window's own flags (--screenshot for docs and CI, --size, --present, ...).
struct GuiFlags
{
    QCommandLineParser parser;
    const shardscope::ScenarioOptions options;
    const QCommandLineOption screenshot{QStringLiteral("screenshot"),
                                        QStringLiteral("Save the window to a PNG file and exit "
                                                       "(needs no display)."),
                                        QStringLiteral("file")};
    const QCommandLineOption size{QStringLiteral("size"),
                                  QStringLiteral("Window size WIDTHxHEIGHT (default 1600x950)."),
                                  QStringLiteral("size")};
    const QCommandLineOption present{QStringLiteral("present"),
                                     QStringLiteral("Start in presentation mode.")};
    const QCommandLineOption dark{QStringLiteral("dark"), QStringLiteral("Use the dark theme.")};
    const QCommandLineOption view{
        QStringLiteral("view"),
        QStringLiteral("Tab to open: memory, timeline, compare, live, plan or sweep."),
        QStringLiteral("tab")};
    const QCommandLineOption sweep = shardscope::sweepAxisOption(QStringLiteral("the Sweep tab"));
    const QCommandLineOption lesson{
        QStringLiteral("lesson"),
        QStringLiteral("Start lesson N (1-based) at step S: N or N:S; with --lesson-file, N "
                       "counts the file's lessons."),
        QStringLiteral("N[:S]")};
    const QCommandLineOption lessonFile{
        QStringLiteral("lesson-file"),
        QStringLiteral("Open a lesson file (docs/lessons.md) and start it (at step 1, or as "
                       "--lesson 1:S says)."),
        QStringLiteral("file")};
    const QCommandLineOption measurement{
        QStringLiteral("measurement"),
        QStringLiteral("Draw a measured run beside the bars: a PyTorch memory snapshot, a "
                       "profiler memory timeline or an nvidia-smi CSV log (File > Open "
                       "measurement)."),
        QStringLiteral("file")};
    const QCommandLineOption firstFrame{
        QStringLiteral("exit-after-first-frame"),
        QStringLiteral("Quit once the window has painted its first frame (the start-up "
                       "benchmark times the whole process).")};

    GuiFlags()
    {
        parser.setApplicationDescription(QStringLiteral(
            "ShardScope: where GPU memory goes when a large model is trained on many GPUs.\n"
            "Subcommands: report, plan, explain-oom, export, export-config, measured "
            "('shardscope SUBCOMMAND --help')."));
        parser.addHelpOption();
        parser.addVersionOption();
        options.addTo(parser);
        parser.addOptions({screenshot, size, present, dark, view, sweep, lesson, lessonFile,
                           firstFrame, measurement});
        parser.addPositionalArgument(
            QStringLiteral("file"),
            QStringLiteral("A scenario file, a Hugging Face config.json or a launch config "
                           "(DeepSpeed .json, Accelerate .yaml, torchtitan .toml, Megatron-LM "
                           ".sh or .args) to open."),
            QStringLiteral("[file]"));
    }
};

/// Quits the application right after the first paint event its watched widget gets.
class FirstPaintWatcher : public QObject
{
public:
    using QObject::QObject;
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Paint && !m_seen) {
            m_seen = true;
            QTimer::singleShot(0, qApp, [] { QCoreApplication::exit(0); });
        }
        return QObject::eventFilter(watched, event);
    }

private:
    bool m_seen = false;
};

/// True when one of the arguments asks for FLAG, as --flag or --flag=value.
bool hasArgument(int argc, char **argv, QByteArrayView flag)
{
    for (int i = 1; i < argc; ++i) {
        const QByteArrayView a(argv[i]);
        if (a == flag || (a.startsWith(flag) && a.size() > flag.size() && a[flag.size()] == '='))
            return true;
    }
    return false;
}

/// True when Qt has somewhere to draw: an X or Wayland display, or a platform
/// chosen by QT_QPA_PLATFORM (offscreen, minimal, ...).
bool haveDisplay()
{
    return !qEnvironmentVariableIsEmpty("DISPLAY") ||
           !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") ||
           !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
}

/// Starts the explorer window, or handles --help, --version and bad flags
/// without one. Exits 2 with one line when there is no display to open on;
/// --screenshot needs none (it draws offscreen).
int runGui(int argc, char **argv)
{
    const bool helpOrVersion =
        hasArgument(argc, argv, "--help") || hasArgument(argc, argv, "-h") ||
        hasArgument(argc, argv, "--help-all") || hasArgument(argc, argv, "-?") ||
        hasArgument(argc, argv, "--version") || hasArgument(argc, argv, "-v");
    if (!haveDisplay() && hasArgument(argc, argv, "--screenshot"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    if (helpOrVersion || !haveDisplay()) {
        // Parsing needs no GUI: help, version and flag errors print and exit here.
        QCoreApplication app(argc, argv);
        GuiFlags flags;
        flags.parser.process(app);
        QTextStream(stderr) << "shardscope: no display to open the window on; run it on a "
                               "desktop, under xvfb-run (xvfb-run shardscope), or save a "
                               "picture with QT_QPA_PLATFORM=offscreen shardscope --screenshot "
                               "FILE\n";
        return 2;
    }

    QApplication app(argc, argv);
    QGuiApplication::setDesktopFileName(QStringLiteral("io.shardscope.ShardScope"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/shardscope/icons/shardscope.svg")));
    GuiFlags flags;
    QCommandLineParser &p = flags.parser;
    const shardscope::ScenarioOptions &options = flags.options;
    const QCommandLineOption &screenshot = flags.screenshot, &size = flags.size,
                             &present = flags.present, &dark = flags.dark, &view = flags.view,
                             &lesson = flags.lesson;
    p.process(app);

    QTextStream err(stderr);
    shardscope::MainWindow window;
    if ((options.anySet(p) || p.isSet(options.scenarioFile)) &&
        !p.positionalArguments().isEmpty()) {
        err << "shardscope: give a file or scenario flags (--model, --gpus, ...), not both\n";
        return 2;
    }
    const bool fileGiven = !p.positionalArguments().isEmpty();
    if (options.anySet(p) || p.isSet(options.scenarioFile) ||
        (p.isSet(options.unit) && !fileGiven)) {
        QString error;
        QStringList notes; // what a --launch-config could not say
        const auto doc = options.document(p, &error, true, &notes);
        if (!doc) {
            err << "shardscope: " << shardscope::terminalText(error) << "\n";
            return 2;
        }
        for (const QString &note : notes)
            err << "shardscope: note: " << shardscope::terminalText(note) << "\n";
        window.session()->setScenario(doc->scenario);
        window.session()->setUnit(doc->unit);
    }
    QSize requested; // --size, to report when the window cannot be that small
    if (p.isSet(size)) {
        const QStringList wh = p.value(size).split(u'x');
        const int w = wh.value(0).toInt(), h = wh.value(1).toInt();
        // The export command's bounds (chartexport.h), so one --size works for both.
        if (wh.size() != 2 || w < shardscope::minExportWidth || h < shardscope::minExportHeight ||
            w > shardscope::maxExportSide || h > shardscope::maxExportSide) {
            err << "shardscope: --size must be WIDTHxHEIGHT from " << shardscope::minExportWidth
                << 'x' << shardscope::minExportHeight << " to " << shardscope::maxExportSide << 'x'
                << shardscope::maxExportSide << " (got '" << shardscope::terminalText(p.value(size))
                << "')\n";
            return 2;
        }
        requested = QSize(w, h);
        window.resize(requested);
    }
    if (fileGiven) {
        QString error;
        const QString path = p.positionalArguments().first();
        if (!window.openFile(path, &error)) {
            err << "shardscope: " << shardscope::terminalText(error) << "\n";
            // A word that is no file and looks like no path is likely a mistyped command.
            if (!QFileInfo::exists(path) && !path.contains(u'/') && !path.contains(u'.'))
                err << "shardscope: subcommands: report, plan, explain-oom, export, "
                       "export-config, measured ('shardscope SUBCOMMAND --help')\n";
            return 2;
        }
        // --unit beside a file overrides the unit the file was saved with.
        if (p.isSet(options.unit)) {
            const auto unit = options.byteUnit(p, &error);
            if (!unit) {
                err << "shardscope: " << shardscope::terminalText(error) << "\n";
                return 2;
            }
            window.session()->setUnit(*unit);
        }
    }
    if (p.isSet(flags.measurement)) {
        QString error;
        auto m = shardscope::readMeasurementFile(p.value(flags.measurement), &error);
        if (!m) {
            err << "shardscope: " << shardscope::terminalText(error) << "\n";
            return 2;
        }
        window.session()->setMeasurement(std::move(m),
                                         QFileInfo(p.value(flags.measurement)).fileName());
    }
    // --lesson N counts the built-in lessons, or with --lesson-file the file's (one).
    int firstLesson = 0, lessons = window.lessonCount();
    if (p.isSet(flags.lessonFile)) {
        QString error;
        const int index = window.openLessonFile(p.value(flags.lessonFile), &error);
        if (index < 0) {
            err << "shardscope: " << shardscope::terminalText(error) << "\n";
            return 2;
        }
        firstLesson = index;
        lessons = 1;
    }
    if (p.isSet(lesson)) {
        const QStringList parts = p.value(lesson).split(u':');
        bool lessonOk = false, stepOk = parts.size() == 1;
        const int n = parts.value(0).toInt(&lessonOk);
        const int step = parts.size() == 2 ? parts[1].toInt(&stepOk) : 1;
        const int steps = n >= 1 && n <= lessons ? window.lessonStepCount(firstLesson + n - 1) : 0;
        if (parts.size() > 2 || !lessonOk || steps == 0) {
            err << "shardscope: --lesson must be N or N:STEP with N from 1 to " << lessons
                << (p.isSet(flags.lessonFile) ? " (the lesson file's lessons)" : "") << " (got '"
                << shardscope::terminalText(p.value(lesson)) << "')\n";
            return 2;
        }
        if (!stepOk || step < 1 || step > steps) {
            err << "shardscope: --lesson: lesson " << n << " has steps 1 to " << steps << " (got '"
                << shardscope::terminalText(p.value(lesson)) << "')\n";
            return 2;
        }
        window.startLesson(firstLesson + n - 1);
        for (int i = 1; i < step; ++i)
            window.stepLesson(+1);
    }
    if (p.isSet(flags.sweep)) {
        QString error;
        const auto axis = shardscope::sweepAxisValue(p, flags.sweep, &error);
        if (!axis) {
            err << "shardscope: " << shardscope::terminalText(error) << "\n";
            return 2;
        }
        window.session()->setSweepAxis(*axis);
    }
    if (p.isSet(view)) {
        const QStringList names{QStringLiteral("memory"),  QStringLiteral("timeline"),
                                QStringLiteral("compare"), QStringLiteral("live"),
                                QStringLiteral("plan"),    QStringLiteral("sweep")};
        const int i = int(names.indexOf(p.value(view)));
        if (i < 0) {
            err << "shardscope: --view must be memory, timeline, compare, live, plan or sweep (got "
                   "'"
                << shardscope::terminalText(p.value(view)) << "')\n";
            return 2;
        }
        window.showView(shardscope::MainWindow::View(i));
    }
    window.setDarkTheme(p.isSet(dark));
    window.setPresentationMode(p.isSet(present));
    window.show();
    if (p.isSet(flags.firstFrame)) {
        // The first paint of the window itself; the exit is queued behind it, so the frame
        // is complete when the process ends.
        auto *watcher = new FirstPaintWatcher(&window);
        window.installEventFilter(watcher);
    }
    if (p.isSet(screenshot)) {
        const QString file = p.value(screenshot);
        const QByteArray suffix = QFileInfo(file).suffix().toLower().toLatin1();
        if (!suffix.isEmpty() && !QImageWriter::supportedImageFormats().contains(suffix)) {
            err << "shardscope: --screenshot " << shardscope::terminalText(file)
                << ": no image format '" << shardscope::terminalText(QString::fromLatin1(suffix))
                << "': end the name in .png\n";
            return 2;
        }
        const QSize asked = requested;
        QTimer::singleShot(300, &window, [&window, file, suffix, &err, asked] {
            // The window cannot be smaller than its controls need; say so rather than
            // save a different size silently.
            if (asked.isValid() && window.size() != asked)
                err << "shardscope: the window needs at least " << window.width() << "x"
                    << window.height() << "; saved at that size, not " << asked.width() << "x"
                    << asked.height() << "\n";
            window.settle(); // every part of the window on the current scenario
            // Through a QSaveFile, as every export is: an old file survives a failed write,
            // and the refusal says why ("cannot write PATH: Permission denied").
            const QImage shot = window.grab().toImage();
            QString error;
            if (!shardscope::writeFileAtomically(
                    file,
                    [&](QSaveFile &f) {
                        return shot.save(&f, suffix.isEmpty() ? "PNG" : suffix.constData());
                    },
                    &error)) {
                err << "shardscope: " << shardscope::terminalText(error) << "\n";
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
    shardscope::setApplicationIdentity(SHARDSCOPE_VERSION);
    shardscope::installQtNoticeFilter();
    shardscope::registerRawArguments(argc, argv);
    if (argc > 1 && QByteArray(argv[1]) == "report") {
        QCoreApplication app(argc, argv);
        QTextStream out(stdout);
        QTextStream err(stderr);
        return shardscope::runReportCommand(QCoreApplication::arguments(), out, err);
    }
    if (argc > 1 && QByteArray(argv[1]) == "export-config") {
        QCoreApplication app(argc, argv);
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
        QTextStream out(stdout);
        QTextStream err(stderr);
        return shardscope::runExportCommand(QApplication::arguments(), out, err);
    }
    return runGui(argc, argv);
}
