#pragma once

// What both executables, shardscope and shardscope-gui, set up before Qt starts.

namespace shardscope {

/// Names every QSettings file and the Wayland app id use: settings live in
/// ~/.config/ShardScope/ShardScope.conf, and the desktop file is
/// io.shardscope.ShardScope.desktop (packaging/). `version` is "0.1.0".
void setApplicationIdentity(const char *version);

/// Passes Qt's messages on, except the notice that XDG_RUNTIME_DIR is unset (usual
/// for root, containers and CI): Qt then uses /tmp/runtime-$USER, which is harmless,
/// and the notice would make every headless error two lines instead of one. Also drops
/// the offscreen platform's "This plugin does not support propagateSizeHints()", which
/// every offscreen timeline or PDF export printed.
void installQtNoticeFilter();

} // namespace shardscope
