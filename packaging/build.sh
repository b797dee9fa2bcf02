#!/usr/bin/env bash
# Build the frozen one-folder app with PyInstaller: dist/tacmap/tacmap (+ dist/tacmap/_internal/).
#
#   packaging/build.sh                 # from anywhere; output in <repo>/dist/tacmap
#   PYTHON=python3.12 packaging/build.sh
#
# It makes (or reuses) a build environment in build/venv with tacmap's runtime
# dependencies and PyInstaller, runs packaging/tacmap.spec, then smoke-tests the
# result: --version, `rulesets` (every built-in ruleset must be listed) and `render`
# of the bundled demo. Needs network access to PyPI for the first run only.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

python=${PYTHON:-python3}
venv=${TACMAP_BUILD_VENV:-$root/build/venv}
pyinstaller_req=${PYINSTALLER:-pyinstaller>=6.10,<7}
export PIP_DISABLE_PIP_VERSION_CHECK=1

mkdir -p build
if [ ! -x "$venv/bin/python" ]; then
  echo "+ making the build environment $venv"
  "$python" -m venv "$venv"
fi
# The runtime dependencies straight from pyproject.toml (tacmap itself is analysed from
# this source tree, so it is not installed: no stale copy can end up in the app).
"$venv/bin/python" - > build/requirements.txt <<'PY'
import tomllib
print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]))
PY
"$venv/bin/python" -m pip install -q -r build/requirements.txt "$pyinstaller_req"

echo "+ pyinstaller packaging/tacmap.spec"
rm -rf dist/tacmap
QT_QPA_PLATFORM=offscreen "$venv/bin/python" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath dist --workpath build/pyinstaller packaging/tacmap.spec

app=dist/tacmap/tacmap
echo "+ smoke test of $app"
"$app" --version
listed=$(QT_QPA_PLATFORM=offscreen "$app" rulesets)
echo "$listed"
for toml in rulesets/*/ruleset.toml; do
  id=$(basename "$(dirname "$toml")")
  if ! grep -q "^$id[[:space:]]" <<<"$listed"; then
    echo "build.sh: the frozen app does not list the built-in ruleset $id" >&2
    exit 1
  fi
done
QT_QPA_PLATFORM=offscreen "$app" render dist/tacmap/_internal/resources/demo.tacmap build/frozen-demo.png
test -s build/frozen-demo.png
case "$(uname -s)" in
  Darwin) plugins="libqcocoa.dylib libqoffscreen.dylib" ;;
  *) plugins="libqxcb.so libqoffscreen.so" ;;
esac
for plugin in $plugins; do
  if ! find dist/tacmap/_internal -name "$plugin" | grep -q .; then
    echo "build.sh: the Qt platform plugin $plugin is missing from the app" >&2
    exit 1
  fi
done
echo "built $root/dist/tacmap ($(du -sh dist/tacmap | cut -f1))"
