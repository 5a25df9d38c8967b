#!/usr/bin/env bash
# Makes a brand-new minimal Debian 12 root and runs a command in it, as a new
# user on a fresh machine would: nothing installed but Debian's minbase
# (Essential packages and apt), the repository copied to /src.
#
#   .ci/fresh-root.sh create ROOT          build the root with mmdebstrap
#   .ci/fresh-root.sh run ROOT COMMAND...  run COMMAND in /src inside ROOT
#
# The root uses this machine's own apt sources and apt options, so no mirror
# host is written here. Needs root (chroot and mounts) and mmdebstrap.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
action=${1:?usage: fresh-root.sh create|run ROOT [COMMAND...]}
root=${2:?usage: fresh-root.sh create|run ROOT [COMMAND...]}
shift 2

sources() {
    # deb822 .sources files and classic .list files, as apt on this machine reads them.
    local f
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
        [ -s "$f" ] && echo "$f"
    done
}

case "$action" in
create)
    if ! command -v mmdebstrap >/dev/null; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
    fi
    rm -rf "$root"
    args=(--variant=minbase --mode=root --format=directory)
    # This machine's apt options (a snapshot mirror's Valid-Until, a proxy) apply inside too.
    for f in /etc/apt/apt.conf.d/*; do
        [ -f "$f" ] && grep -q 'Acquire::' "$f" && args+=("--aptopt=$f")
    done
    mapfile -t lists < <(sources)
    mmdebstrap "${args[@]}" bookworm "$root" "${lists[@]}"
    # The repository as a clean checkout would hold it: tracked and untracked, not ignored.
    mkdir -p "$root/src"
    git -C "$here" ls-files -z --cached --others --exclude-standard |
        tar -C "$here" --null -T - -cf - | tar -C "$root/src" -xf -
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    ;;
run)
    [ -d "$root/src" ] || { echo "fresh-root.sh: $root is not a root made by 'create'" >&2; exit 2; }
    # A private mount namespace: the mounts vanish with the command, even when it fails.
    exec unshare --mount --fork -- bash -c '
        set -e
        root=$1; shift
        mount -t proc proc "$root/proc"
        mount --rbind /dev "$root/dev"
        mount -t sysfs sysfs "$root/sys"
        mount -t tmpfs tmpfs "$root/tmp"
        exec chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
            PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
            CI="${CI:-}" bash -c "cd /src && \"\$@\"" bash "$@"
    ' bash "$root" "$@"
    ;;
*)
    echo "fresh-root.sh: unknown action '$action' (create or run)" >&2
    exit 2
    ;;
esac
