// ui_open_as_graph.cjs CS_URL FOLDER OUT_DIR: the seed's flow in a real
// VS Code (code-server) through its UI, in headless Chromium:
//   open audit_models.py → the "tvis: Open as Graph" CodeLens above GoodNet
//   → VS Code's QuickPick lists audit_small and audit_large → audit_large
//   → the panel's viewer (the wasm build) is on its Graph page and its
//   state().view.outputs is [[3, 2]]; the second click on the CodeLens asks
//   nothing and draws the graph again (tvis graph reopens the unchanged
//   capture's run); a saved edit of the model's file marks the graph stale;
//   WideNet (no profile, no declared input): the CodeLens opens the setup
//   form, a typed shape and Save write tensorviz.toml and show [[2, 3]].
// Screenshots: OUT_DIR/ui_*.png. Writes OUT_DIR/ui_timings.json: the seconds
// from each click to the graph drawn. Exit 0 only when every check passed.
const { chromium } = require('playwright-core');
const fs = require('fs');
const path = require('path');
const [base, folder, out] = process.argv.slice(2);
const t0 = Date.now();
const log = (...a) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);

// The viewer runs in the webview's inner iframe: the frame with window.tvisViewer.
// With it, how many runs the extension handed to the panel (window.tvisPanelOpens).
async function viewerState(page) {
  for (const f of page.frames()) {
    const s = await f.evaluate(() => (window.tvisViewer && window.tvisViewer.ready
      ? Object.assign(window.tvisViewer.state(), { opens: window.tvisPanelOpens || 0 }) : null)).catch(() => null);
    if (s) return s;
  }
  return null;
}

// Waits for the Graph page of the panel's run number `opens` or later, drawn (node boxes on screen).
async function waitForGraph(page, opens, timeout = 90000) {
  const end = Date.now() + timeout;
  let s = null;
  while (Date.now() < end) {
    s = await viewerState(page);
    if (s && s.opens >= opens && s.page === 'Graph' && s.view && Array.isArray(s.view.outputs) && s.view.outputs.length &&
        s.run && s.view.boxes && s.view.boxes.length) return s;
    await page.waitForTimeout(100);
  }
  throw new Error('the panel never showed a Graph with outputs; last state: ' + JSON.stringify(s && { page: s.page, run: s.run, view: s.view, errors: s.errors }));
}

async function clickLens(page) {
  const lens = page.locator('.contentWidgets .codelens-decoration a', { hasText: 'tvis: Open as Graph' }).first();
  await lens.waitFor({ timeout: 60000 });
  await lens.click();
}

(async () => {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
  const page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
  let failed = false;
  const timings = {};
  try {
    await page.goto(`${base}/?folder=${encodeURIComponent(folder)}`);
    await page.locator('.monaco-workbench .statusbar').waitFor({ timeout: 60000 });
    log('workbench visible');
    // Quick Open: audit_models.py
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input.input');
    await input.waitFor({ state: 'visible', timeout: 15000 });
    await input.fill('audit_models.py');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'audit_models.py' }).first().waitFor({ timeout: 30000 });
    await page.keyboard.press('Enter');
    await page.locator('.monaco-editor .view-lines', { hasText: 'class GoodNet' }).first().waitFor({ timeout: 30000 });
    log('audit_models.py open');
    const lenses = page.locator('.contentWidgets .codelens-decoration a', { hasText: 'tvis: Open as Graph' });
    await lenses.first().waitFor({ timeout: 60000 });
    log(`CodeLens shown (${await lenses.count()} lenses)`);
    await page.screenshot({ path: path.join(out, 'ui_1_codelens.png') });

    let c0 = Date.now();
    await clickLens(page);
    const row = page.locator('.quick-input-list .monaco-list-row');
    await row.filter({ hasText: 'audit_large' }).first().waitFor({ timeout: 30000 });
    const items = await row.allInnerTexts();
    log('QuickPick:', JSON.stringify(items));
    if (!items.some((t) => t.includes('audit_small')) || !items.some((t) => t.includes('audit_large')))
      throw new Error('the QuickPick should list audit_small and audit_large: ' + JSON.stringify(items));
    await page.screenshot({ path: path.join(out, 'ui_2_quickpick.png') });
    await row.filter({ hasText: 'audit_large' }).first().click();
    let s = await waitForGraph(page, 1);
    timings.first_open_s = (Date.now() - c0) / 1000;   // includes the time the QuickPick was open
    log('graph shown:', JSON.stringify(s.view.outputs), 'source', s.run.source);
    if (JSON.stringify(s.view.outputs) !== '[[3,2]]') throw new Error('outputs ' + JSON.stringify(s.view.outputs) + ', want [[3,2]]');
    await page.waitForTimeout(500);
    await page.screenshot({ path: path.join(out, 'ui_3_graph.png') });

    // The second opening asks nothing: no QuickPick, a new capture drawn.
    const opens = s.opens;
    c0 = Date.now();
    await clickLens(page);
    const asked = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'audit_small' });
    s = await waitForGraph(page, opens + 1);
    timings.second_open_s = (Date.now() - c0) / 1000;
    if (await asked.isVisible().catch(() => false)) throw new Error('the second opening showed the QuickPick');
    if (JSON.stringify(s.view.outputs) !== '[[3,2]]') throw new Error('second: outputs ' + JSON.stringify(s.view.outputs));
    log(`second opening: no question, graph of ${s.run.source} drawn in ${timings.second_open_s} s`);
    await page.waitForTimeout(500);
    await page.screenshot({ path: path.join(out, 'ui_4_second.png') });

    // A saved edit of the model's file: the panel's graph says it is stale.
    await page.locator('.monaco-editor .view-lines', { hasText: 'class GoodNet' }).first().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n# edited after the capture\n');
    await page.keyboard.press('Control+S');
    const end = Date.now() + 30000;
    while (Date.now() < end && !((s = await viewerState(page)) && s.view && s.view.stale)) await page.waitForTimeout(100);
    if (!s || !s.view || !s.view.stale) throw new Error('the graph was not marked stale after the save: ' + JSON.stringify(s && s.view));
    log('stale after the save:', JSON.stringify(s.view.stale_reasons));
    await page.waitForTimeout(500);
    await page.screenshot({ path: path.join(out, 'ui_5_stale.png') });

    // A class with no profile and no declared input: the CodeLens opens the setup form (tvis's page in a
    // webview); typing a shape and Save writes tensorviz.toml and shows the class's graph.
    const before = fs.readFileSync(path.join(folder, 'tensorviz.toml'), 'utf8');
    await page.keyboard.press('Control+P');
    await input.waitFor({ state: 'visible', timeout: 15000 });
    await input.fill('wide_models.py');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'wide_models.py' }).first().waitFor({ timeout: 30000 });
    await page.keyboard.press('Enter');
    await page.locator('.monaco-editor .view-lines', { hasText: 'class WideNet' }).first().waitFor({ timeout: 30000 });
    await clickLens(page);
    let form = null;
    for (const end2 = Date.now() + 60000; !form && Date.now() < end2; await page.waitForTimeout(200))
      for (const f of page.frames())
        if (await f.evaluate(() => document.body && document.body.dataset.ready === '1' && !!document.getElementById('save')).catch(() => false)) form = f;
    if (!form) throw new Error('the setup form never loaded');
    const shape = form.locator('#shape-x');
    await shape.fill('2, 6');
    log('setup form shown; name', await form.locator('#name').inputValue());
    await page.screenshot({ path: path.join(out, 'ui_6_setup_form.png') });
    await form.locator('#save').click();
    // The class's own panel (GoodNet's may still be open): any viewer frame drawing [[2, 3]].
    s = null;
    for (const end3 = Date.now() + 90000; !s && Date.now() < end3; await page.waitForTimeout(200))
      for (const f of page.frames()) {
        const v = await f.evaluate(() => (window.tvisViewer && window.tvisViewer.ready ? window.tvisViewer.state() : null)).catch(() => null);
        if (v && v.page === 'Graph' && v.view && JSON.stringify(v.view.outputs) === '[[2,3]]' && v.view.boxes && v.view.boxes.length) s = v;
      }
    if (!s) throw new Error('setup form: no Graph with outputs [[2,3]] after Save');
    const after = fs.readFileSync(path.join(folder, 'tensorviz.toml'), 'utf8');
    if (after.slice(0, before.length) !== before || !after.includes('[profiles.wide_net]'))
      throw new Error('tensorviz.toml after Save: hand-written bytes changed or no wide_net profile');
    log('setup form saved wide_net; graph', JSON.stringify(s.view.outputs));
    await page.waitForTimeout(500);
    await page.screenshot({ path: path.join(out, 'ui_7_setup_graph.png') });
    fs.writeFileSync(path.join(out, 'ui_timings.json'), JSON.stringify(timings));
    log('PASS');
  } catch (e) {
    failed = true;
    console.error('FAIL', e);
    await page.screenshot({ path: path.join(out, 'ui_fail.png') }).catch(() => {});
  } finally {
    await browser.close();
    process.exit(failed ? 1 : 0);
  }
})();
