// browser_freshness.mjs BASE TOKEN OUT_DIR NAME RUN_PATH: the Graph page of
// RUN_PATH (a path under the folder `tvis open` serves) in headless Chromium,
// opened as tvis open's run list opens it (viewer.html?token=T&url=/run/PATH).
// Waits until the page shows a freshness answer (the viewer asks the server's
// /api/freshness), writes OUT_DIR/NAME.json (state()) and OUT_DIR/NAME.png.
// Exit 1 when the Graph page or its freshness never shows, or on page errors.
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium } from '../e2e/chromium.mjs';
import { waitForState } from '../e2e/viewer_page.mjs';

const [base, token, out, name, run] = process.argv.slice(2);
const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));
page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
await page.goto(`${base}/viewer.html?token=${token}&url=${encodeURIComponent('/run/' + run)}`);
const s = await waitForState(page, (st) => st.page === 'Graph' && st.view && st.view.freshness !== null, 30000);
await page.screenshot({ path: path.join(out, `${name}.png`) });
fs.writeFileSync(path.join(out, `${name}.json`), JSON.stringify({ state: s, errors }));
const ok = s && s.page === 'Graph' && s.view && s.view.freshness !== null && errors.length === 0;
console.log(`${name}: ${ok ? 'ok' : 'FAILED'} (freshness ${JSON.stringify(s && s.view ? s.view.freshness : null)}; errors ${errors.length})`);
await browser.close();
process.exit(ok ? 0 : 1);
