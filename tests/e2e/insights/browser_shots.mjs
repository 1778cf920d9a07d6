// browser_shots.mjs BASE_URL OUT_DIR RUN_URL PAGE...: viewer.html?url=RUN&page=PAGE
// in headless Chromium for each PAGE; writes OUT_DIR/browser_<run>_<PAGE>.png
// and the state() beside it (.json). Exit 1 when a page shows errors or no view.
// Then, per page, the frame times while what it shows changes every frame
// (tvisViewer.command once per animation frame, as bench_insights does
// natively: Attention head and layer, Grad-CAM conv layer, Embeddings depth)
// for FrameStats' whole window (TVIS_INSIGHTS_FRAMES, default 600: then
// state().frame_ms.p99 covers only changing frames; fewer include loading). It prints
// "page load to view N ms" (navigation start to the view shown: page, wasm
// and run open included) and "changing: median M ms p99 P ms".
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium } from '../chromium.mjs';

const FRAMES = Number(process.env.TVIS_INSIGHTS_FRAMES || 600);

// Runs in the page: sends one command per animation frame for `frames`
// frames, then resolves with state().frame_ms (and errors).
function changeEveryFrame([name, view, frames]) {
  const change = (k) => {
    if (name === 'Attention') {
      if (k % 2) return { head: (Math.floor(k / 2) % (view.heads + 1)) - 1 };
      return { module: view.layers[Math.floor(k / 2) % view.layers.length] };
    }
    if (name === 'Grad-CAM') return { module: view.layers[k % view.layers.length] };
    return { depth: k % view.modules.length };
  };
  return new Promise((resolve) => {
    let k = 0;
    const tick = () => {
      if (k === frames) {
        const s = window.tvisViewer.state();
        return resolve({ frame_ms: s.frame_ms, errors: s.errors });
      }
      window.tvisViewer.command(change(k++));
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

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
  let ok = s && s.view && s.insight === name && s.errors.length === 0;
  let changing = '';
  if (ok) {
    const t1 = Date.now();
    const r = await page.evaluate(changeEveryFrame, [name, s.view, FRAMES]);
    ok = r.errors.length === 0;
    changing = `; changing ${FRAMES} frames (${((Date.now() - t1) / 1000).toFixed(1)} s): ` +
               `median ${r.frame_ms.median.toFixed(2)} ms p99 ${r.frame_ms.p99.toFixed(2)} ms` +
               (FRAMES < 600 ? ' (over the last 600 frames: loading ones included)' : '') +
               (ok ? '' : `, errors ${JSON.stringify(r.errors)}`);
  }
  console.log(`${tag}: ${ok ? 'ok' : 'FAILED'} (page load to view ${ms} ms, idle frame p99 ${s && s.frame_ms.p99} ms${changing})`);
  failed = failed || !ok;
  await page.close();
}
await browser.close();
process.exit(failed ? 1 : 0);
