// chromium.mjs: the one way tvis's browser tests and benchmarks start
// Debian's Chromium through playwright-core (the flags it needs here: no
// sandbox as root, no background networking, WebGL through SwiftShader).
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const here = path.dirname(new URL(import.meta.url).pathname);
const { chromium } = require(path.join(here, 'node_modules', 'playwright-core'));

export function launchChromium() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', '--use-gl=angle', '--use-angle=swiftshader',
           '--enable-unsafe-swiftshader'],
  });
}
