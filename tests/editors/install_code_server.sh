#!/usr/bin/env bash
# install_code_server.sh: a real VS Code for the editor tests, installed once
# into build/code-server (idempotent: a second run with it in place costs
# nothing). code-server 4.99.4 is VS Code 1.99.3 served to a browser; the
# tests drive it with playwright-core and Debian's /usr/bin/chromium.
#
# Offline except for the npm registry and Debian's apt:
#   - @vscode/ripgrep's postinstall would download ripgrep from GitHub; it
#     first looks in $TMPDIR/vscode-ripgrep-cache-<pkg version>/, so that cache
#     is seeded with Debian's rg (tools/packages.txt: ripgrep) and nothing is
#     downloaded.
#   - code-server's postinstall compiles native modules (kerberos, keytar,
#     spdlog, node-pty, ...) with node-gyp: the headers of Debian's packages
#     (libkrb5-dev, libx11-dev, libxkbfile-dev, libsecret-1-dev) and node's own
#     (npm_config_nodedir=/usr, no header download).
#   - npm_config_unsafe_perm: its postinstall refuses root without it;
#     npm_config_yes: node-pty's postinstall runs `npx node-gyp`.
# code-server 4.99.x is the last line that runs on node 20 (4.100+ need 22).
#
# Prints the seconds it took (the install's share of tools/test).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DEST="$ROOT/build/code-server"
CS_VERSION=4.99.4
RG_PKG_VERSION=1.15.11   # the @vscode/ripgrep code-server 4.99.4's VS Code pins
RG_TAG=v13.0.0-10        # the ripgrep-prebuilt tag that version downloads
CS_BIN="$DEST/app/node_modules/.bin/code-server"
if [ -x "$CS_BIN" ] && [ "$(cat "$DEST/.installed" 2>/dev/null)" = "$CS_VERSION" ]; then exit 0; fi

node -v | grep -q '^v20\.' || { echo "code-server $CS_VERSION needs node 20 (found $(node -v 2>&1))" >&2; exit 1; }
command -v rg >/dev/null || { echo "ripgrep missing (tools/packages.txt; run tools/bootstrap)" >&2; exit 1; }
t0=$SECONDS
rm -rf "$DEST/app"
mkdir -p "$DEST/app" "$DEST/tmp/vscode-ripgrep-cache-$RG_PKG_VERSION" "$DEST/rgstage"
cp "$(command -v rg)" "$DEST/rgstage/rg"
tar czf "$DEST/tmp/vscode-ripgrep-cache-$RG_PKG_VERSION/ripgrep-$RG_TAG-x86_64-unknown-linux-musl.tar.gz" \
  -C "$DEST/rgstage" rg
echo '{"name":"tvis-code-server","private":true}' > "$DEST/app/package.json"
( cd "$DEST/app" && TMPDIR="$DEST/tmp" npm_config_unsafe_perm=true npm_config_nodedir=/usr npm_config_yes=true \
    nice -n 10 npm install --no-audit --no-fund --foreground-scripts --save-exact "code-server@$CS_VERSION" ) \
  > "$DEST/install.log" 2>&1 || { tail -40 "$DEST/install.log" >&2; echo "code-server install failed (log: $DEST/install.log)" >&2; exit 1; }
test -x "$DEST/app/node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin/rg" \
  || { echo "code-server installed without its ripgrep" >&2; exit 1; }
rm -rf "$DEST/tmp" "$DEST/rgstage"
echo "$CS_VERSION" > "$DEST/.installed"
echo "code-server $CS_VERSION installed in $((SECONDS - t0)) s" >&2
