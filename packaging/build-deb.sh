#!/usr/bin/env bash
# Build dist/tacmap_<version>_<arch>.deb from the frozen app in dist/tacmap (packaging/build.sh).
#
#   packaging/build.sh && packaging/build-deb.sh
#   sudo dpkg -i dist/tacmap_0.1.0_amd64.deb     # then: tacmap, or the menu entry
#
# Layout: the frozen folder in /usr/lib/tacmap (not /opt: no package owns /opt, so
# removing this one tried to remove /opt and warned that it was not empty), a launcher
# /usr/bin/tacmap, the desktop entry, AppStream metadata, the MIME type of *.tacmap files and the icon in the
# hicolor sizes. Depends: the system libraries Qt's xcb platform plugin loads (the
# frozen folder carries Qt itself), and the C library the bundled binaries were built
# against. Needs dpkg-deb (Debian, Ubuntu) and nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

frozen=${FROZEN:-dist/tacmap}
if [ ! -x "$frozen/tacmap" ]; then
  echo "build-deb.sh: no frozen app in $frozen; run packaging/build.sh first" >&2
  exit 1
fi
version=$("$frozen/tacmap" --version | awk '{print $2}')
arch=$(dpkg --print-architecture)
maintainer=${DEB_MAINTAINER:-The tacmap authors <tacmap@localhost>}
# The newest glibc symbol version any bundled binary asks for.
glibc=$(grep -aohr 'GLIBC_2\.[0-9]*' "$frozen" | sort -uV | tail -n1 | sed 's/GLIBC_//')
depends="libc6 (>= ${glibc:-2.31}), libxcb-cursor0, libxcb-icccm4, libxcb-keysyms1, libxcb-image0, \
libxcb-render-util0, libxkbcommon-x11-0, libegl1, libgl1, libfontconfig1, libdbus-1-3"

stage=build/deb/tacmap_${version}_${arch}
rm -rf "$stage"
mkdir -p "$stage/DEBIAN" "$stage/usr/lib" "$stage/usr/bin" "$stage/usr/share/applications" \
  "$stage/usr/share/metainfo" "$stage/usr/share/mime/packages" "$stage/usr/share/doc/tacmap"

cp -a "$frozen" "$stage/usr/lib/tacmap"
cat > "$stage/usr/bin/tacmap" <<'SH'
#!/bin/sh
# tacmap: the frozen app lives in /usr/lib/tacmap.
exec /usr/lib/tacmap/tacmap "$@"
SH
chmod 0755 "$stage/usr/bin/tacmap"

install -m 0644 packaging/linux/tacmap.desktop "$stage/usr/share/applications/tacmap.desktop"
install -m 0644 packaging/linux/io.github.tacmap.metainfo.xml "$stage/usr/share/metainfo/"
install -m 0644 packaging/linux/tacmap-mime.xml "$stage/usr/share/mime/packages/tacmap.xml"
for size in 16 32 48 64 128 256; do
  dir="$stage/usr/share/icons/hicolor/${size}x${size}/apps"
  mkdir -p "$dir"
  install -m 0644 "resources/icons/tacmap-$size.png" "$dir/tacmap.png"
done
mkdir -p "$stage/usr/share/icons/hicolor/scalable/apps"
install -m 0644 resources/icons/tacmap.svg "$stage/usr/share/icons/hicolor/scalable/apps/tacmap.svg"

{
  cat <<TXT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: tacmap
Comment: /usr/lib/tacmap is a PyInstaller bundle. Besides tacmap it carries, as shared
 libraries and Python packages: Python (PSF-2.0), Qt 6 and PySide6 (LGPL-3.0),
 numpy (BSD-3-Clause), shapely (BSD-3-Clause), GEOS (LGPL-2.1), pyqtgraph (MIT),
 colorama (BSD-3-Clause), icepool (MIT), platformdirs (MIT), msgspec
 (BSD-3-Clause) and the system libraries of the build machine they link to, each
 under its own licence.

Files: *
Copyright: 2026 The tacmap authors
License: MIT

License: MIT
TXT
  sed -e 's/^$/./' -e 's/^/ /' resources/LICENSE
} > "$stage/usr/share/doc/tacmap/copyright"

# Plain permissions everywhere; executables stay executable.
find "$stage" -type d -exec chmod 0755 {} +
find "$stage" -type f -exec chmod go-w,a+r {} +

installed_kb=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat > "$stage/DEBIAN/control" <<CTL
Package: tacmap
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $installed_kb
Depends: $depends
Section: games
Priority: optional
Description: offline tactical battle map with a rule engine
 tacmap is a battle map for game masters that works without a network.
 Drag tokens on a one-metre grid and click to attack: a rule engine judges
 every action under the encounter's ruleset, shows what a move costs and
 which enemies it provokes before you let go, and rolls the dice.
 .
 This package holds a self-contained build (Python, Qt and the libraries
 tacmap needs) in /usr/lib/tacmap, with a launcher in /usr/bin/tacmap.
CTL

mkdir -p dist
out=dist/tacmap_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$out" >/dev/null
echo "built $root/$out ($(du -h "$out" | cut -f1))"
dpkg-deb --info "$out" | sed -n '/Package:/,/Description:/p'
