#pragma once

// An SVG file drawn as a picture, for the tests that check what an exported SVG shows.

#include <QByteArray>
#include <QImage>
#include <QPainter>
#include <QSize>
#include <QSvgRenderer>

namespace shardscope::test {

/// `svg` drawn by QSvgRenderer over a white `size` picture in `format`; a null image when
/// QSvgRenderer cannot read it.
inline QImage svgOnWhite(const QByteArray &svg, QSize size, QImage::Format format)
{
    QSvgRenderer renderer(svg);
    if (!renderer.isValid())
        return {};
    QImage image(size, format);
    image.fill(Qt::white);
    QPainter painter(&image);
    renderer.render(&painter);
    painter.end();
    return image;
}

} // namespace shardscope::test
