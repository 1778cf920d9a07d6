// browser_graph.mjs BASE_URL OUT_DIR NAME RUN_URL [MODULE]: viewer.html?url=RUN
// (&module=MODULE) in headless Chromium; waits for the Graph view, clicks a
// node's box (it must become the selection), wheels
// over the canvas (the zoom must change), writes OUT_DIR/browser_NAME.png
// and the state() as OUT_DIR/browser_NAME.json. Exit 1 on errors or no Graph.
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium } from '../chromium.mjs';

const [base, out, name, run, module] = process.argv.slice(2);
const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
const q = `url=${encodeURIComponent(run)}` + (module ? `&module=${encodeURIComponent(module)}` : '');
await page.goto(`${base}/viewer.html?${q}`);
const t0 = Date.now();
let s = null;
while (Date.now() - t0 < 30000) {
  s = await page.evaluate(() => (window.tvisViewer && window.tvisViewer.ready ? window.tvisViewer.state() : null)).catch(() => null);
  if (s && s.page === 'Graph' && s.view && s.view.nodes > 0 && s.view.boxes && s.view.boxes.length && (!module || s.view.selected)) break;
  await page.waitForTimeout(50);
}
await page.waitForTimeout(300);
const linked = s && s.view && s.view.selected ? s.view.selected.module : null;  // what ?module= selected
// A click on a node's box selects it (the inspector shows it).
let clicked = null;
const box = s && s.view && s.view.boxes ? s.view.boxes.find((b) => b.module === 'stem' || b.module === 'right') : null;
if (box) {
  await page.mouse.click(box.x + box.w / 2, box.y + box.h / 2);
  await page.waitForTimeout(300);
  const c = await page.evaluate(() => window.tvisViewer.state()).catch(() => null);
  clicked = c && c.view.selected ? c.view.selected.module : null;
  if (clicked) s = c;
}
const before = s && s.view ? s.view.zoom : null;
await page.mouse.move(500, 500);
await page.mouse.wheel(0, -240);
await page.waitForTimeout(400);
const after = await page.evaluate(() => window.tvisViewer.state()).catch(() => null);
await page.screenshot({ path: path.join(out, `browser_${name}.png`) });
fs.writeFileSync(path.join(out, `browser_${name}.json`), JSON.stringify({ first: s, after_wheel: after, clicked, linked }));
const ok = s && s.page === 'Graph' && s.errors.length === 0 && after && after.view.zoom !== before && box && clicked === box.module;
console.log(`${name}: ${ok ? 'ok' : 'FAILED'} (zoom ${before} -> ${after && after.view.zoom}; clicked ${box && box.module} -> selected ${clicked})`);
await browser.close();
process.exit(ok ? 0 : 1);
