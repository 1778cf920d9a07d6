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

// Runs in the page: polls between tasks (not only at animation frames, which
// would add up to a frame of delay) until row 0 of the call tree is drawn
// with its data. Times are performance.now() (navigation start = 0).
function watchFirstRows() {
  return new Promise((resolve) => {
    const out = { ready_ms: null, placeholder_ms: null, loaded_ms: null };
    const tick = () => {
      const v = window.tvisViewer;
      if (v && v.ready) {
        if (out.ready_ms === null) out.ready_ms = performance.now();
        const s = v.state();
        if (s.errors.length) return resolve({ error: s.errors });
        if (s.run && out.placeholder_ms === null && Array.isArray(v.eventRowRect(0))) out.placeholder_ms = performance.now();
        // A page without eventRowLoaded (an older build) counts a placeholder row.
        const loaded = v.eventRowLoaded ? v.eventRowLoaded(0) : out.placeholder_ms !== null;
        if (s.run && loaded) {
          out.loaded_ms = performance.now();
          // The run's requests until then: [start, end] relative to navigation.
          out.requests = performance.getEntriesByType('resource').filter((r) => /\/runs\//.test(r.name))
            .map((r) => [Math.round(r.startTime), Math.round(r.responseEnd)]);
          return resolve(out);
        }
      }
      setTimeout(tick, 2);
    };
    tick();
  });
}

async function measure(browser, file) {
  const size = fs.statSync(path.join(env.TVIS_BENCH_RUNS, file)).size;
  const before = bytesServed(file);
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  await page.addInitScript(`window.__tvisFirstRows = (${watchFirstRows.toString()})();`);
  await page.goto(`${env.TVIS_BENCH_BASE}/${env.TVIS_BENCH_PAGE || 'viewer.html'}?url=/runs/${file}`);
  const shown = await page.evaluate(() => window.__tvisFirstRows);
  if (shown.error) throw new Error(`${file}: ${shown.error}`);
  const read = bytesServed(file) - before;
  // Scroll the call tree down and back for ~3 s of frames.
  await page.mouse.move(400, 400);
  for (let i = 0; i < 60; i++) await page.mouse.wheel(0, 2000);
  for (let i = 0; i < 60; i++) await page.mouse.wheel(0, -2000);
  const fm = await page.evaluate(() => window.tvisViewer.state().frame_ms);
  await page.close();
  const ms = (v) => `${v.toFixed(0)} ms`;
  console.log(`${file}: ${(size / 1e9).toFixed(2)} GB file`);
  console.log(`  first frame with call-tree rows (row 0 drawn with its data): ${ms(shown.loaded_ms)} after navigation start` +
              ` (page load and wasm start included), ${ms(shown.loaded_ms - shown.ready_ms)} after the viewer is up`);
  console.log(`  (row 0 drawn at all, placeholder allowed: ${ms(shown.placeholder_ms)} / ${ms(shown.placeholder_ms - shown.ready_ms)})`);
  console.log(`  run requests until then (start-end ms after navigation): ${shown.requests.map((r) => r.join('-')).join(', ')}`);
  console.log(`  run bytes read to show it: ${(read / 1e3).toFixed(1)} kB = ${(100 * read / size).toFixed(4)}% of the file`);
  console.log(`  frame time while scrolling: median ${fm.median.toFixed(2)} ms, p99 ${fm.p99.toFixed(2)} ms`);
}

const browser = await launchChromium();
try {
  for (const file of ['big.tvis', 'sparse.tvis']) await measure(browser, file);
} finally {
  await browser.close();
}
