// shardscope: the command users type. The headless subcommands (report, plan,
// explain-oom, export-config, measured) run here with QtCore alone, so they start without loading
// Widgets, Charts or a GUI platform; everything else (the window, export, --help, --version) is
// handed, with the same arguments, to shardscope-gui (guimain.cpp).
#include "appidentity.h"
#include "explainoomcommand.h"
#include "exportconfigcommand.h"
#include "inputfile.h"
#include "measuredcommand.h"
#include "plancommand.h"
#include "reportcommand.h"

#include <QCoreApplication>
#include <QTextStream>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>

namespace {

/// shardscope-gui beside this executable (the build tree), else in
/// ../libexec/shardscope/ (the installed layout, /usr/bin and /usr/libexec).
std::string guiExecutable()
{
    char self[PATH_MAX] = {};
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    std::string dir = n > 0 ? std::string(self, std::size_t(n)) : std::string();
    dir = dir.substr(0, dir.find_last_of('/') + 1);
    for (const char *candidate : {"shardscope-gui", "../libexec/shardscope/shardscope-gui"}) {
        const std::string path = dir + candidate;
        if (access(path.c_str(), X_OK) == 0)
            return path;
    }
    return dir + "../libexec/shardscope/shardscope-gui";
}

} // namespace

int main(int argc, char **argv)
{
    shardscope::setApplicationIdentity(SHARDSCOPE_VERSION);
    shardscope::installQtNoticeFilter();
    shardscope::registerRawArguments(argc, argv);
    const std::string sub = argc > 1 ? argv[1] : "";
    if (sub == "report" || sub == "plan" || sub == "explain-oom" || sub == "export-config" ||
        sub == "measured") {
        QCoreApplication app(argc, argv);
        QTextStream out(stdout);
        QTextStream err(stderr);
        const QStringList args = QCoreApplication::arguments();
        if (sub == "plan")
            return shardscope::runPlanCommand(args, out, err);
        if (sub == "explain-oom")
            return shardscope::runExplainOomCommand(args, out, err);
        if (sub == "measured")
            return shardscope::runMeasuredCommand(args, out, err);
        return sub == "report" ? shardscope::runReportCommand(args, out, err)
                               : shardscope::runExportConfigCommand(args, out, err);
    }
    const std::string gui = guiExecutable();
    execv(gui.c_str(), argv);
    std::fprintf(stderr, "shardscope: cannot start the window's program %s: %s\n", gui.c_str(),
                 std::strerror(errno));
    return 2;
}
