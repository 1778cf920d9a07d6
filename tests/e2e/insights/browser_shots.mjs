// browser_shots.mjs BASE_URL OUT_DIR RUN_URL PAGE...: viewer.html?url=RUN&page=PAGE
// in headless Chromium for each PAGE; writes OUT_DIR/browser_<run>_<PAGE>.png
// and the state() beside it (.json). Exit 1 when a page shows errors or no view.
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium } from '../chromium.mjs';

const [base, out, run, ...pages] = process.argv.slice(2);
const browser = await launchChromium();
let failed = false;
for (const name of pages) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const t0 = Date.now();
  await page.goto(`${base}/viewer.html?url=${encodeURIComponent(run)}&page=${encodeURIComponent(name)}&step=1`);
  let s = null;
  while (Date.now() - t0 < 30000) {
    s = await page.evaluate(() => (window.tvisViewer && window.tvisViewer.ready ? window.tvisViewer.state() : null)).catch(() => null);
    if (s && s.view && s.insight === name) break;
    await page.waitForTimeout(50);
  }
  const ms = Date.now() - t0;
  await page.waitForTimeout(500);
  const tag = `${path.basename(path.dirname(path.dirname(run)))}_${name}`;
  await page.screenshot({ path: path.join(out, `browser_${tag}.png`) });
  fs.writeFileSync(path.join(out, `browser_${tag}.json`), JSON.stringify(s));
  const ok = s && s.view && s.insight === name && s.errors.length === 0;
  console.log(`${tag}: ${ok ? 'ok' : 'FAILED'} (page load to view ${ms} ms, frame p99 ${s && s.frame_ms.p99} ms)`);
  failed = failed || !ok;
  await page.close();
}
await browser.close();
process.exit(failed ? 1 : 0);
