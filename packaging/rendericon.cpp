// Renders the scalable app icon to the fixed-size PNGs a hicolor theme holds
// (48x48 to 256x256), at build time, so no binary image is kept in git.
//   shardscope-rendericon SVG OUTDIR SIZE...  writes OUTDIR/SIZExSIZE.png
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>
#include <QTextStream>

int main(int argc, char **argv)
{
    // Rendering needs no display.
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    QTextStream err(stderr);
    const QStringList args = QGuiApplication::arguments();
    if (args.size() < 4) {
        err << "usage: shardscope-rendericon SVG OUTDIR SIZE...\n";
        return 2;
    }
    QSvgRenderer svg(args[1]);
    if (!svg.isValid()) {
        err << "shardscope-rendericon: cannot read " << args[1] << "\n";
        return 1;
    }
    for (qsizetype i = 3; i < args.size(); ++i) {
        bool ok = false;
        const int px = args[i].toInt(&ok);
        if (!ok || px < 16 || px > 1024) {
            err << "shardscope-rendericon: size must be 16 to 1024 (got '" << args[i] << "')\n";
            return 2;
        }
        QImage image(px, px, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        svg.render(&painter);
        painter.end();
        const QString file = QStringLiteral("%1/%2x%2.png").arg(args[2]).arg(px);
        if (!image.save(file)) {
            err << "shardscope-rendericon: cannot write " << file << "\n";
            return 1;
        }
    }
    return 0;
}
