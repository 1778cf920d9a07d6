#!/usr/bin/env bash
# Installs playwright-core (pinned in package.json) into tests/e2e/node_modules
# from npm, once. The browser is Debian's /usr/bin/chromium: Playwright's own
# browser download (`npx playwright install`) is never used.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -f "$HERE/node_modules/playwright-core/package.json" ]; then exit 0; fi
npm install --prefix "$HERE" --no-audit --no-fund --no-package-lock --loglevel=error >&2
