// Browser half of tools/bench/viewer/browser.sh (see there for the figures).
import fs from 'node:fs';
import path from 'node:path';

import { launchChromium } from '../../../tests/e2e/chromium.mjs';

const env = process.env;

// Body bytes nginx sent for `file` (combined log: status, then bytes).
function bytesServed(file) {
  let total = 0;
  for (const line of fs.readFileSync(env.TVIS_BENCH_ACCESS_LOG, 'utf8').split('\n')) {
    const m = line.match(/"GET \/runs\/([^ ?]+)[^"]*" (\d{3}) (\d+)/);
    if (m && m[1] === file) total += Number(m[3]);
  }
  return total;
}

async function measure(browser, file) {
  const size = fs.statSync(path.join(env.TVIS_BENCH_RUNS, file)).size;
  const before = bytesServed(file);
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  const t0 = Date.now();
  await page.goto(`${env.TVIS_BENCH_BASE}/viewer.html?url=/runs/${file}`);
  // Poll inside the page each animation frame: first frame with row 0 drawn.
  const shown = await page.evaluate(() => new Promise((resolve) => {
    const t = performance.now();
    let readyAt = null;
    const tick = () => {
      const v = window.tvisViewer;
      if (v && v.ready) {
        if (readyAt === null) readyAt = performance.now();
        const s = v.state();
        if (s.errors.length) return resolve({ error: s.errors });
        if (s.run && Array.isArray(v.eventRowRect(0))) return resolve({ navigation_ms: performance.now(), from_ready_ms: performance.now() - readyAt, waited_ms: performance.now() - t });
      }
      requestAnimationFrame(tick);
    };
    tick();
  }));
  const wall = Date.now() - t0;
  if (shown.error) throw new Error(`${file}: ${shown.error}`);
  const read = bytesServed(file) - before;
  // Scroll the call tree down and back for ~3 s of frames.
  await page.mouse.move(400, 400);
  for (let i = 0; i < 60; i++) await page.mouse.wheel(0, 2000);
  for (let i = 0; i < 60; i++) await page.mouse.wheel(0, -2000);
  const fm = await page.evaluate(() => window.tvisViewer.state().frame_ms);
  await page.close();
  console.log(`${file}: ${(size / 1e9).toFixed(2)} GB file`);
  console.log(`  first frame with rows: ${shown.navigation_ms.toFixed(0)} ms after navigation start (page load and wasm start included; ${wall} ms wall)`);
  console.log(`  first frame with rows after the viewer is up (wasm running, run opening): ${shown.from_ready_ms.toFixed(0)} ms`);
  console.log(`  run bytes read to show it: ${(read / 1e3).toFixed(1)} kB = ${(100 * read / size).toFixed(4)}% of the file`);
  console.log(`  frame time while scrolling: median ${fm.median.toFixed(2)} ms, p99 ${fm.p99.toFixed(2)} ms`);
}

const browser = await launchChromium();
try {
  for (const file of ['big.tvis', 'sparse.tvis']) await measure(browser, file);
} finally {
  await browser.close();
}
