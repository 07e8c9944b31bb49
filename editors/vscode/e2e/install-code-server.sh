#!/usr/bin/env bash
# Installs what the end-to-end test needs, offline from everything but the package
# registries: Debian's Chromium and ripgrep, and code-server (the last release whose
# engines.node is 20) with its native modules built from source.
#
# code-server's own install scripts would download prebuilt binaries (argon2,
# @vscode/ripgrep), so they are skipped and the postinstall is replayed here.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
CODE_SERVER_VERSION="${CODE_SERVER_VERSION:-4.100.3}"
prefix="$here/.e2e/code-server"
root="$prefix/node_modules/code-server"
stamp="$prefix/.installed-$CODE_SERVER_VERSION"

apt_needed=()
for pair in chromium:chromium rg:ripgrep pkg-config:pkg-config make:build-essential g++:build-essential; do
  command -v "${pair%%:*}" >/dev/null || apt_needed+=("${pair##*:}")
done
for pair in krb5-config:libkrb5-dev; do
  command -v "${pair%%:*}" >/dev/null || apt_needed+=("${pair##*:}")
done
# Without an emoji font the hover's status marks render as empty boxes in screenshots.
[ -f /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ] || apt_needed+=(fonts-noto-color-emoji)
for lib in x11 xkbfile libsecret-1; do
  pkg-config --exists "$lib" 2>/dev/null || case $lib in
    x11) apt_needed+=(libx11-dev) ;;
    xkbfile) apt_needed+=(libxkbfile-dev) ;;
    libsecret-1) apt_needed+=(libsecret-1-dev) ;;
  esac
done
if [ ${#apt_needed[@]} -gt 0 ]; then
  echo "e2e: installing Debian packages: ${apt_needed[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${apt_needed[@]}" >/dev/null
fi

if [ -f "$stamp" ]; then
  exit 0
fi

node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" != 20 ]; then
  echo "e2e: code-server $CODE_SERVER_VERSION needs Node 20, found $(node --version)" >&2
  exit 2
fi
nodedir="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")"
if [ ! -f "$nodedir/include/node/node.h" ]; then
  echo "e2e: Node's C headers are missing under $nodedir/include/node (install Node 20 with its headers)" >&2
  exit 2
fi
gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
build() { # build one native module from source against the local Node headers
  (cd "$1" && node "$gyp" rebuild --loglevel=warn --nodedir="$nodedir" "${@:2}" >/dev/null)
}

echo "e2e: installing code-server $CODE_SERVER_VERSION (no install scripts)"
rm -rf "$prefix"
mkdir -p "$prefix"
echo '{"name": "cairn-e2e-code-server", "private": true}' >"$prefix/package.json"
(cd "$prefix" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION")

echo "e2e: building native modules from source"
# argon2 is a node-pre-gyp package: name where its loader looks for the binary.
argon2="$prefix/node_modules/argon2"
build "$argon2" --module_name=argon2 --module_path="$argon2/lib/binding/napi-v3" --napi_build_version=3
test -f "$argon2/lib/binding/napi-v3/argon2.node"

# Replays code-server's postinstall.sh: VS Code's own dependencies, then links.
vscode="$root/lib/vscode"
(cd "$vscode" && npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
(cd "$vscode/extensions" && npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
for module in kerberos @vscode/spdlog native-watchdog node-pty @vscode/deviceid; do
  build "$vscode/node_modules/$module"
done
# @parcel/watcher ships a prebuilt linux binary as an optional dependency.
mkdir -p "$vscode/node_modules/@vscode/ripgrep/bin"
ln -sf "$(command -v rg)" "$vscode/node_modules/@vscode/ripgrep/bin/rg"
ln -sfn node_modules "$vscode/node_modules.asar"
ln -sfn code-linux.sh "$vscode/bin/remote-cli/code-server"
ln -sfn browser-linux.sh "$vscode/bin/helpers/browser.sh"

node "$root/out/node/entry.js" --version >/dev/null
touch "$stamp"
echo "e2e: code-server $CODE_SERVER_VERSION ready in $prefix"
