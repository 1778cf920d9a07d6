// Browser end-to-end test of viewer.html (run by test_browser.sh, which
// starts the servers and passes their addresses in TVIS_E2E_* variables).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { launchChromium } from './chromium.mjs';
import { drawnRunRow, frames, viewerState, waitForState } from './viewer_page.mjs';

const env = process.env;
const inspect = JSON.parse(fs.readFileSync(env.TVIS_E2E_INSPECT, 'utf8'));
const outDir = env.TVIS_E2E_OUT_DIR;
let failures = 0;

function check(name, ok, detail) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${ok || detail === undefined ? '' : ': ' + JSON.stringify(detail)}`);
  if (!ok) failures++;
}

const state = viewerState;

// Holds a key down across at least two rendered frames: ImGui 1.86 samples
// key state once per frame, so a press and release inside one frame (a busy
// machine) would be lost.
async function pressKey(page, key) {
  await page.keyboard.down(key);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.keyboard.up(key);
}

const waitFor = (page, pred, ms = 20000) => waitForState(page, pred, ms);

// Waits for the viewer's first state() (the wasm started).
async function started(page) {
  return waitFor(page, (s) => s !== null);
}

// Runs tests/e2e/screen_check.py on a screenshot: a check on what a person
// sees (the selection colour at a row, a heatmap's cells).
function screenCheck(name, args) {
  try {
    const out = execFileSync(process.env.TVIS_TEST_PYTHON || '/usr/bin/python3', [path.join(path.dirname(new URL(import.meta.url).pathname), 'screen_check.py'), ...args.map(String)],
                             { encoding: 'utf8' });
    check(name, true);
    console.log('     ' + out.trim());
  } catch (err) {
    check(name, false, (err.stdout || '') + (err.stderr || '') || String(err));
  }
}

// Clicks event `id`'s row once it is drawn; returns its rectangle or null.
async function clickRow(page, id) {
  await waitForPage(page, (id) => window.tvisViewer.eventRowLoaded(id), 10000, id);
  const rect = await page.evaluate((id) => window.tvisViewer.eventRowRect(id), id);
  if (!Array.isArray(rect)) return null;
  // Press and release across frames, as pressKey does for keys.
  await page.mouse.move((rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2);
  await frames(page, 2);
  await page.mouse.down();
  await frames(page, 2);
  await page.mouse.up();
  return rect;
}

// Polls `fn` inside the page until it returns true (or `ms` pass).
async function waitForPage(page, fn, ms = 10000, arg = undefined) {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (await page.evaluate(fn, arg).catch(() => false)) return true;
    await page.waitForTimeout(30);
  }
  return false;
}

async function openPage(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  const logs = [];
  page.on('console', (m) => logs.push(m.text()));
  page.on('pageerror', (e) => logs.push('pageerror: ' + e.message));
  await page.goto(url);
  page.tvisLogs = logs;
  return page;
}

function checkRun(name, s, shown = 'Replay') {
  check(`${name}: run shown`, s && s.run !== null, s);
  if (!s || !s.run) return;
  check(`${name}: steps`, s.run.steps === inspect.steps, s.run);
  check(`${name}: events`, s.run.events === inspect.events, s.run);
  check(`${name}: no errors`, s.errors.length === 0, s.errors);
  check(`${name}: ${shown} page`, s.page === shown && s.pages[0] === 'Replay' && s.pages.includes('Explore'), s);
  check(`${name}: state() is an object`, typeof s === 'object' && Array.isArray(s.insights), s);
}

const browser = await launchChromium();

try {
  // 1. ?url= with Range (nginx).
  {
    const t0 = Date.now();
    // &page=Explore: a link to the call tree (Replay is the default page).
    const page = await openPage(browser, `${env.TVIS_E2E_RANGE_BASE}/viewer.html?url=/runs/run.tvis&page=Explore`);
    const s = await waitFor(page, (s) => (s.run !== null && s.page === 'Explore') || s.errors.length > 0);
    checkRun('range url', s, 'Explore');
    console.log(`     first state with the run after ${Date.now() - t0} ms (page load included)`);
    // Rows drawn: click event 4's row, then step with the arrow keys.
    await waitForPage(page, () => window.tvisViewer.eventRowLoaded(4));
    const rect = await page.evaluate(() => window.tvisViewer.eventRowRect(4));
    check('row 4 drawn', Array.isArray(rect), rect);
    if (rect) {
      await page.mouse.click((rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2);
      const sel = await waitFor(page, (s) => s.selection && s.selection.event === 4, 3000);
      check('click selects event 4', sel && sel.selection && sel.selection.event === 4, sel && sel.selection);
      // One key per frame: ImGui 1.86 samples key state once per frame.
      await pressKey(page, 'ArrowRight');
      await waitFor(page, (s) => s.selection && s.selection.event === 5, 3000);
      await pressKey(page, 'ArrowRight');
      const sel2 = await waitFor(page, (s) => s.selection && s.selection.event === 6, 3000);
      check('right arrow twice selects event 6', sel2 && sel2.selection.event === 6, sel2 && sel2.selection);
      await pressKey(page, 'ArrowLeft');
      const sel3 = await waitFor(page, (s) => s.selection && s.selection.event === 5, 3000);
      check('left arrow selects event 5', sel3 && sel3.selection.event === 5, sel3 && sel3.selection);
    }
    const fm = (await state(page)).frame_ms;
    check('frame_ms measured', fm.median > 0 && fm.p99 >= fm.median, fm);
    await page.screenshot({ path: path.join(outDir, 'range_url.png') });
    check('no page errors', !page.tvisLogs.some((l) => l.startsWith('pageerror')), page.tvisLogs);
    await page.close();
  }

  // 1b. A real recording (the golden file) by URL.
  {
    const golden = JSON.parse(fs.readFileSync(env.TVIS_E2E_GOLDEN_INSPECT, 'utf8'));
    const page = await openPage(browser, `${env.TVIS_E2E_RANGE_BASE}/viewer.html?url=/runs/golden.tvis&page=Explore`);
    const s = await waitFor(page, (s) => s.run !== null || s.errors.length > 0);
    check('golden: run shown', s && s.run !== null, s);
    check('golden: steps and events', s && s.run && s.run.steps === golden.steps && s.run.events === golden.events,
          s && s.run);
    check('golden: no errors', s && s.errors.length === 0, s && s.errors);
    // Click the conv call (event 8): the inspector shows its output tensor,
    // whose heatmap is drawn through the shell's WebGL textures.
    await waitForPage(page, () => window.tvisViewer.eventRowLoaded(8));
    const rect = await page.evaluate(() => window.tvisViewer.eventRowRect(8));
    check('golden: row 8 drawn', Array.isArray(rect), rect);
    if (rect) {
      await page.mouse.click((rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2);
      const sel = await waitFor(page, (s) => s.selection && s.selection.event === 8 && s.selection.tensor != null, 3000);
      check('golden: click shows a tensor of event 8', sel && sel.selection && sel.selection.tensor != null,
            sel && sel.selection);
      await frames(page, 10);  // the tensor's chunk decoded and drawn
      const after = await state(page);
      check('golden: no errors after selecting', after && after.errors.length === 0, after && after.errors);
    }
    // The pointer leaves the table (a hovered row is drawn grey, not blue).
    await page.mouse.move(700, 845);
    await frames(page, 4);
    const shot = path.join(outDir, 'golden.png');
    await page.screenshot({ path: shot });
    if (rect) {
      const now = await page.evaluate(() => window.tvisViewer.eventRowRect(8));
      screenCheck('golden: the selected row is drawn in the selection colour', ['selected-row', shot, ...now]);
      screenCheck("golden: the output's heatmap is drawn", ['heatmap', shot]);
    }
    await page.close();
  }

  // 1b'. The Loss and Weights pages of the golden file, opened by links
  // (?page=&step=&param=&show=): what they report, and screenshots.
  {
    const golden = JSON.parse(fs.readFileSync(env.TVIS_E2E_GOLDEN_INSPECT, 'utf8'));
    let page = await openPage(browser, `${env.TVIS_E2E_RANGE_BASE}/viewer.html?url=/runs/golden.tvis&page=Loss&step=1`);
    let s = await waitFor(page, (s) => (s.page === 'Loss' && s.view && s.view.analysis === 'ready' &&
                                        s.view.confusion_state === 'ready') || s.errors.length > 0);
    check('loss page: shown by ?page=Loss&step=1', s && s.page === 'Loss' && s.view && s.view.step === 1, s && s.view);
    check('loss page: no errors', s && s.errors.length === 0, s && s.errors);
    if (s && s.view) {
      check('loss page: losses are those tvis inspect reports',
            JSON.stringify(s.view.losses) === JSON.stringify(golden.losses), [s.view.losses, golden.losses]);
      check('loss page: worst-first samples of step 1', s.view.worst.length > 0 && s.view.worst.every(
            (w, i) => w.step === 1 && (i === 0 || w.loss <= s.view.worst[i - 1].loss)), s.view.worst);
      check('loss page: a confusion matrix', Array.isArray(s.view.confusion) && s.view.confusion.length > 0, s.view);
    }
    // The real mouse down the sample list (the right half): the first row it
    // hovers shows that sample's picture from the batch in its tooltip.
    let hovered = null;
    for (let y = 300; y < 840 && !hovered; y += 12) {
      await page.mouse.move(1000, y);
      await frames(page, 2);
      const h = await state(page);
      if (h && h.view && h.view.hovered) hovered = h.view.hovered;
    }
    check('loss page: the mouse hovers a sample row', hovered !== null, hovered);
    if (hovered) {
      const h = await waitFor(page, (s) => s.view && s.view.hovered && s.view.hovered.picture !== 'loading', 10000);
      check('loss page: the hovered sample\'s picture is drawn in its tooltip', h && h.view.hovered && h.view.hovered.picture === 'drawn', h && h.view.hovered);
      await frames(page, 4);
      await page.screenshot({ path: path.join(outDir, 'loss_tooltip.png') });
    }
    await page.mouse.move(700, 845);
    await frames(page, 4);
    await page.screenshot({ path: path.join(outDir, 'loss_page.png') });
    await page.close();
    page = await openPage(browser,
                          `${env.TVIS_E2E_RANGE_BASE}/viewer.html?url=/runs/golden.tvis&page=Weights&step=1&param=fc.weight&show=update`);
    s = await waitFor(page, (s) => (s.page === 'Weights' && s.view && s.view.values === 'drawn') || s.errors.length > 0);
    check('weights page: fc.weight update at step 1 by link', s && s.view && s.view.param === 'fc.weight' &&
          s.view.show === 'update' && s.view.step === 1 && s.view.stats !== null, s && s.view);
    check('weights page: no errors', s && s.errors.length === 0, s && s.errors);
    await page.mouse.move(700, 845);
    await frames(page, 4);
    await page.screenshot({ path: path.join(outDir, 'weights_page.png') });
    await page.evaluate(() => window.tvisViewer.command({ weights_tab: 'All layers' }));
    s = await waitFor(page, (s) => s.view && s.view.thumbnails.visible > 0 &&
                                   s.view.thumbnails.drawn === s.view.thumbnails.visible);
    check('weights page: All layers thumbnails drawn', s && s.view && s.view.thumbnails.drawn > 0, s && s.view);
    await frames(page, 4);
    await page.screenshot({ path: path.join(outDir, 'weights_all_layers.png') });
    await page.close();
  }

  // 1c. A real `tvis run` of the bundled example, recorded by test_browser.sh.
  {
    const real = JSON.parse(fs.readFileSync(env.TVIS_E2E_REAL_INSPECT, 'utf8'));
    const conv = Number(env.TVIS_E2E_REAL_CONV);
    const page = await openPage(browser, `${env.TVIS_E2E_RANGE_BASE}/viewer.html?url=${env.TVIS_E2E_REAL_URL}&page=Explore`);
    const s = await waitFor(page, (s) => s.run !== null || s.errors.length > 0);
    check('real run: shown with the steps and events inspect reports',
          s && s.run && s.run.steps === real.steps && s.run.events === real.events, s && s.run);
    check('real run: no errors', s && s.errors.length === 0, s && s.errors);
    const shot0 = path.join(outDir, 'real_run.png');
    await page.screenshot({ path: shot0 });
    screenCheck('real run: nothing selected at first', ['selected-row', shot0, '--absent']);
    // The call tree's search field (top left of the table): filter to Conv2d
    // calls, so the first convolution's row is drawn without scrolling.
    await page.mouse.click(200, 106);
    await page.keyboard.type('Conv2d');
    // The filtered rows settle over a few frames (the first click may land on
    // a row that moved, or only end the text edit): click until selected.
    let rect = null;
    let sel = null;
    for (let attempt = 0; attempt < 5 && !(sel && sel.selection && sel.selection.event === conv); attempt++) {
      rect = await clickRow(page, conv);
      sel = await waitFor(page, (s) => s.selection && s.selection.event === conv && s.selection.tensor != null, 2000);
    }
    check(`real run: Conv2d call ${conv} drawn`, rect !== null, rect);
    check('real run: click shows its tensor', sel && sel.selection && sel.selection.tensor != null, sel && sel.selection);
    await page.mouse.move(700, 845);
    await frames(page, 10);
    const shot = path.join(outDir, 'real_run_selected.png');
    await page.screenshot({ path: shot });
    const now = await page.evaluate((id) => window.tvisViewer.eventRowRect(id), conv);
    if (Array.isArray(now)) screenCheck('real run: the clicked row is highlighted', ['selected-row', shot, ...now]);
    screenCheck("real run: the convolution's output heatmap is drawn", ['heatmap', shot]);
    check('real run: no page errors', !page.tvisLogs.some((l) => l.startsWith('pageerror')), page.tvisLogs);
    await page.close();
  }

  // 1d. Replay over the real run: a link lands on (step, phase, module,
  // sample); real key presses step by layer through forward (call order),
  // loss and backward (the same layers in reverse); Space plays and pauses;
  // one screenshot per phase.
  {
    const link = `&page=Replay&step=1&phase=backward&module=conv2&sample=1`;
    const page = await openPage(browser, `${env.TVIS_E2E_RANGE_BASE}/viewer.html?url=${env.TVIS_E2E_REAL_URL}${link}`);
    const at = (s, step, phase) => s.view && s.view.step === step && s.view.phase === phase && !s.view.loading;
    const s = await waitFor(page, (s) => (at(s, 1, 'backward') && s.view.layer && s.view.layer.map) || s.errors.length > 0);
    check('replay link: lands on step 1 backward conv2, sample 1',
          s && s.page === 'Replay' && at(s, 1, 'backward') && s.view.module === 'conv2' && s.view.sample === 1, s && s.view);
    check('replay link: the layer view shows the gradient of conv2',
          s && s.view.layer && s.view.layer.of === 'gradient' && s.view.layer.module === 'conv2' &&
          Array.isArray(s.view.layer.map) && Array.isArray(s.view.layer.neurons_order), s && s.view && s.view.layer);
    await page.mouse.move(5, 845);
    for (const phase of ['data', 'forward', 'loss', 'backward', 'optimizer']) {
      await page.evaluate((p) => window.tvisViewer.command({ link: { step: 1, phase: p, module: 'conv1' } }), phase);
      await waitFor(page, (s) => at(s, 1, phase), 5000);
      await frames(page, 12);
      await page.screenshot({ path: path.join(outDir, `replay_${phase}.png`) });
    }
    // Keys: from the first forward stop of step 0, by layer.
    await page.evaluate(() => window.tvisViewer.command({ link: { step: 0, phase: 'forward' } }));
    let v = (await waitFor(page, (s) => at(s, 0, 'forward'), 5000)).view;
    const seen = [v];
    for (let i = 0; i < 60 && v.step === 0; i++) {
      const before = v.stop;
      await pressKey(page, 'ArrowRight');
      const s2 = await waitFor(page, (s) => s.view && (s.view.stop !== before || s.view.step !== 0) && !s.view.loading, 3000);
      v = s2.view;
      if (v.step === 0) seen.push(v);
    }
    const order = ['data', 'forward', 'loss', 'backward', 'optimizer'];
    const ranks = seen.map((x) => order.indexOf(x.phase));
    check('replay keys: phases in recorded order', ranks.every((r, i) => i === 0 || r >= ranks[i - 1]), seen.map((x) => x.phase));
    // A state read between a key's frame and the next can repeat the last
    // position: consecutive repeats are one visit.
    const visits = (xs) => xs.filter((e, i) => i === 0 || e !== xs[i - 1]);
    const fwd = visits(seen.filter((x) => x.phase === 'forward').map((x) => x.event));
    const bwd = visits(seen.filter((x) => x.phase === 'backward' && x.kind === 'module').map((x) => x.event));
    console.log(`     replay keys: ${seen.length} positions: ${seen.map((x) => `${x.phase[0]}${x.stop}:${x.event}`).join(' ')}`);
    check('replay keys: forward layers in call order', fwd.length > 2 && fwd.every((e, i) => i === 0 || e > fwd[i - 1]), fwd);
    const layers = fwd.slice(1);  // the first forward stop is the model's own call, the layers follow
    check('replay keys: backward visits the same layers in reverse',
          JSON.stringify(bwd) === JSON.stringify([...layers].reverse()), { fwd, bwd });
    check('replay keys: the right arrow after the last stop enters step 1', v.step === 1, v);
    await pressKey(page, 'ArrowLeft');
    const back = (await waitFor(page, (s) => s.view && s.view.step === 0, 3000)).view;
    check('replay keys: the left arrow goes back into step 0', back.step === 0 && back.stop === seen[seen.length - 1].stop, back);
    await pressKey(page, ' ');
    const playing = await waitFor(page, (s) => s.view && s.view.playing && s.view.stop !== back.stop, 5000);
    check('replay keys: Space plays (the position moves by itself)', playing && playing.view.playing, playing && playing.view);
    await pressKey(page, ' ');
    const paused = await waitFor(page, (s) => s.view && !s.view.playing, 3000);
    check('replay keys: Space again pauses', paused && !paused.view.playing, paused && paused.view);
    check('replay: no errors', paused && paused.errors.length === 0, paused && paused.errors);
    check('replay: no page errors', !page.tvisLogs.some((l) => l.startsWith('pageerror')), page.tvisLogs);
    await page.close();
  }

  // 2. ?url= from a server that ignores Range (one full fetch).
  {
    const page = await openPage(browser, `${env.TVIS_E2E_PLAIN_BASE}/viewer.html?url=/runs/run.tvis`);
    checkRun('no-range url', await waitFor(page, (s) => s.run !== null || s.errors.length > 0));
    await page.close();
  }

  // 3. The Open button's file input.
  {
    const page = await openPage(browser, `${env.TVIS_E2E_PLAIN_BASE}/viewer.html`);
    const s0 = await started(page);
    check('empty page: no run, no errors', s0 && s0.run === null && s0.errors.length === 0, s0);
    await page.screenshot({ path: path.join(outDir, 'empty.png') });
    await page.setInputFiles('#tvis-file', env.TVIS_E2E_RUN_FILE);
    checkRun('file input', await waitFor(page, (s) => s.run !== null || s.errors.length > 0));
    await page.close();
  }

  // 3b. Drag-and-drop of a file onto the page.
  {
    const page = await openPage(browser, `${env.TVIS_E2E_RANGE_BASE}/viewer.html`);
    await started(page);
    await page.evaluate(async () => {
      const bytes = await (await fetch('/runs/run.tvis')).arrayBuffer();
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'dropped.tvis'));
      document.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      document.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    });
    const s = await waitFor(page, (s) => s.run !== null || s.errors.length > 0);
    checkRun('drop', s);
    check('drop: source is the dropped file', s && s.run && s.run.source === 'dropped.tvis', s && s.run);
    await page.close();
  }

  // 3c. A runs folder, both ways the page takes one: the folder input
  // (webkitdirectory) and a real drag of the folder from the OS, sent through
  // CDP's Input.dispatchDragEvent (a synthetic DataTransfer cannot carry a
  // folder). Both list the runs newest first; a click on a row opens it.
  const runsDir = env.TVIS_E2E_RUNS_DIR;
  const expectedRuns = JSON.parse(env.TVIS_E2E_RUNS_EXPECTED);  // [{name, steps}], newest first
  async function checkRunList(name, page) {
    const s = await waitFor(page, (s) => (s.runs && s.runs.length === expectedRuns.length &&
                                          s.runs.every((r) => r.steps > 0 && r.script)) || s.errors.length > 0);
    check(`${name}: run list shown`, s && Array.isArray(s.runs) && s.runs.length === expectedRuns.length, s);
    if (!s || !Array.isArray(s.runs)) return;
    check(`${name}: names and steps, newest first`,
          JSON.stringify(s.runs.map((r) => [r.name, r.steps])) === JSON.stringify(expectedRuns.map((r) => [r.name, r.steps])),
          s.runs);
    check(`${name}: scripts and dates read`, s.runs.every((r) => r.script && r.date), s.runs);
    check(`${name}: no errors`, s.errors.length === 0, s.errors);
    await page.screenshot({ path: path.join(outDir, `${name.replace(/\W+/g, '_')}.png`) });
    const rect = await drawnRunRow(page, 1);
    check(`${name}: row 1 drawn`, Array.isArray(rect), rect);
    if (!rect) return;
    await page.mouse.click((rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2);
    const opened = await waitFor(page, (s) => s.run !== null || s.errors.length > 0);
    check(`${name}: click opens the second run on Replay`, opened && opened.run && opened.run.steps === expectedRuns[1].steps &&
          opened.runs === null && opened.page === 'Replay', opened);
    await page.evaluate(() => window.tvisViewer.command({ page: 'Explore' }));
    const rows = await waitForPage(page, () => window.tvisViewer.eventRowLoaded(0));
    check(`${name}: its call tree is drawn`, rows === true, rows);
  }
  {
    const page = await openPage(browser, `${env.TVIS_E2E_RANGE_BASE}/viewer.html`);
    await started(page);
    await page.setInputFiles('#tvis-folder', runsDir);
    await checkRunList('folder input', page);
    await page.close();
  }
  {
    const page = await openPage(browser, `${env.TVIS_E2E_RANGE_BASE}/viewer.html`);
    await started(page);
    // Each event waits for the page's answer to the one before; the drop is
    // accepted once a dragover was answered (the page's handler allows it).
    const cdp = await page.context().newCDPSession(page);
    const data = { items: [], files: [runsDir], dragOperationsMask: 1 };
    for (const type of ['dragEnter', 'dragOver', 'dragOver', 'drop']) {
      await page.waitForTimeout(150);
      await cdp.send('Input.dispatchDragEvent', { type, x: 500, y: 400, data });
    }
    await checkRunList('folder drop', page);
    await page.close();
  }

  // 3c. HiDPI (devicePixelRatio 2): crisp text, same layout in CSS pixels.
  {
    const page = await browser.newPage({ viewport: { width: 1100, height: 700 }, deviceScaleFactor: 2 });
    await page.goto(`${env.TVIS_E2E_RANGE_BASE}/viewer.html?url=/runs/run.tvis`);
    checkRun('hidpi', await waitFor(page, (s) => s.run !== null || s.errors.length > 0));
    const canvas = await page.evaluate(() => [document.getElementById('canvas').width, window.innerWidth]);
    check('hidpi: canvas backing store at 2x', canvas[0] === 2 * canvas[1], canvas);
    await page.screenshot({ path: path.join(outDir, 'hidpi.png') });
    await page.close();
  }

  // 4. Bad input: not a run; an unreachable URL; a missing file (404).
  {
    const page = await openPage(browser, `${env.TVIS_E2E_RANGE_BASE}/viewer.html?url=/runs/bogus.tvis`);
    const s = await waitFor(page, (s) => s.errors.length > 0);
    check('not a run: error shown', s && s.run === null && s.errors.length === 1, s);
    check('not a run: names the problem', s && /tvis/i.test(s.errors[0] || ''), s && s.errors);
    await page.screenshot({ path: path.join(outDir, 'bad_file.png') });
    await page.close();
  }
  {
    const page = await openPage(browser, `${env.TVIS_E2E_RANGE_BASE}/viewer.html?url=http://127.0.0.1:9/run.tvis`);
    const s = await waitFor(page, (s) => s.errors.length > 0);
    check('unreachable url: says so', s && /Cannot reach http:\/\/127\.0\.0\.1:9\/run\.tvis/.test(s.errors[0] || ''), s && s.errors);
    await page.close();
  }
  {
    const page = await openPage(browser, `${env.TVIS_E2E_RANGE_BASE}/viewer.html?url=/runs/missing.tvis`);
    const s = await waitFor(page, (s) => s.errors.length > 0);
    check('404: says so', s && /404/.test(s.errors[0] || ''), s && s.errors);
    await page.close();
  }

  // 5. The single-file page, opened from disk.
  {
    const page = await openPage(browser, 'file://' + env.TVIS_E2E_SINGLE);
    const s0 = await started(page);
    check('single file from disk: starts', s0 !== null, page.tvisLogs.slice(-5));
    await page.setInputFiles('#tvis-file', env.TVIS_E2E_RUN_FILE);
    checkRun('single file + file input', await waitFor(page, (s) => s.run !== null || s.errors.length > 0));
    await page.screenshot({ path: path.join(outDir, 'single_file.png') });
    await page.close();
  }
} finally {
  await browser.close();
}

console.log(failures ? `${failures} check(s) failed` : 'browser e2e: ok');
process.exit(failures ? 1 : 0);
