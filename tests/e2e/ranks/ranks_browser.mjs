// Browser half of test_ranks.sh: the URL `tvis open --no-browser` printed,
// in headless Chromium. The run list lists the distributed run once with its
// ranks; a real click opens it with the rank picker; the Loss and Weights
// views are saved for check_ranks.py; the link key rank=1 opens rank 1.
//   TVIS_RANKS_URL    the printed URL (http://127.0.0.1:<port>/?token=...)
//   TVIS_RANKS_NAME   the distributed run's folder name
//   TVIS_RANKS_PARAM  the parameter shown on Weights
//   TVIS_RANKS_OUT    where states (JSON) and screenshots (PNG) go
//   TVIS_RANKS_PREFIX the saved files' name prefix (default "browser")
//   TVIS_RANKS_FOLDER a runs folder holding only the distributed run, and
//   TVIS_RANKS_TWO    one holding it and another distributed run: chosen
//                     with the page's folder input, the first opens as one
//                     run with two ranks, the second is a run list of two
//                     entries of two ranks each (optional)
import fs from 'node:fs';
import path from 'node:path';

import { launchChromium } from '../chromium.mjs';
import { drawnRunRow, frames, viewerState, waitForState } from '../viewer_page.mjs';

const env = process.env;
const out = env.TVIS_RANKS_OUT;
let failures = 0;

function check(name, ok, detail) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${ok || detail === undefined ? '' : ': ' + JSON.stringify(detail).slice(0, 2000)}`);
  if (!ok) failures++;
}

const state = (page) => viewerState(page).catch(() => null);
const waitFor = (page, pred, ms = 60000) => waitForState(page, pred, ms, 100);

// Picks `folder` in the page's folder input and waits for `pred`. On this
// 2-core machine Playwright's directory upload was seen (about 1 run in 4)
// to hand the page a change event with no files at all, while the same page
// took the same folder 12 times of 12 alone. When the page got no files in
// 15 s, the pick is made once more, and the log says so; a pick that
// reached the page with its files gets no second chance.
async function pickFolder(page, folder, pred) {
  await page.evaluate(() => {
    window.tvisTestFolderFiles = null;
    // Capture phase: before the viewer's own listener empties the input.
    document.addEventListener('change', (e) => {
      if (e.target.id === 'tvis-folder') window.tvisTestFolderFiles = Array.from(e.target.files).map((f) => f.webkitRelativePath || f.name);
    }, true);
  });
  await page.setInputFiles('#tvis-folder', folder);
  const s = await waitFor(page, pred, 15000);
  if (s && pred(s)) return s;
  const files = await page.evaluate(() => window.tvisTestFolderFiles);
  if (files && files.length) {
    console.log(`note: the page got the files ${JSON.stringify(files)} and shows no run yet`);
    return waitFor(page, pred);
  }
  console.log(`note: the folder input of ${folder} reached the page with ${files ? 'no files' : 'no change event'}; picked again`);
  await page.setInputFiles('#tvis-folder', folder);
  return waitFor(page, pred);
}

// Saves the state (for check_ranks.py) and a screenshot under `name`.
async function save(page, name, s) {
  const prefix = env.TVIS_RANKS_PREFIX || 'browser';
  fs.writeFileSync(path.join(out, `${prefix}_${name}.json`), JSON.stringify(s));
  await page.screenshot({ path: path.join(out, `${prefix}_${name}.png`) });
}

const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  // What the page itself reports (a viewer exception, an abort) goes to the log.
  page.on("pageerror", (e) => console.log(`page error: ${e && e.message ? e.message : e}`));
  const consoleErrors = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") console.log(`console ${m.type()}: ${m.text()}`);
    if (m.type() === "error") consoleErrors.push(m.text());
  });
  const logs = [];
  page.on('console', (m) => logs.push(m.text()));
  const r = await page.goto(env.TVIS_RANKS_URL);
  check('run list: 200', r.status() === 200, r.status());
  const rows = await page.$$eval('#tvis-runs tr.run', (trs) => trs.map((tr) => ({
    name: tr.querySelector('a.open').textContent, ranks: tr.dataset.ranks, text: tr.querySelector('.ranks').textContent,
  })));
  const mine = rows.filter((x) => x.name === env.TVIS_RANKS_NAME);
  check('run list: the distributed run once, with its ranks', mine.length === 1 && mine[0].ranks === '2' && mine[0].text === '2 ranks', rows);
  const index = rows.findIndex((x) => x.name === env.TVIS_RANKS_NAME);

  await page.click(`#tvis-runs tr.run:nth-child(${index + 1}) a.open`);
  let s = await waitFor(page, (s) => s.run && s.run.ranks === 2);
  check('viewer: one run with two ranks, rank 0 shown', s && s.run && s.run.ranks === 2 && s.run.rank === 0, { run: s && s.run, logs: logs.slice(-5) });
  const viewer = page.url();

  await page.evaluate(() => window.tvisViewer.command({ page: 'Loss' }));
  s = await waitFor(page, (s) => s.page === 'Loss' && s.view.rank_losses.length === 2 && s.view.rank_losses.every((c) => c.ready));
  await frames(page, 10);
  await save(page, 'loss', await state(page));

  await page.evaluate((p) => window.tvisViewer.command({ link: { page: 'Weights', param: p, step: 1 } }), env.TVIS_RANKS_PARAM);
  s = await waitFor(page, (s) => s.page === 'Weights' && s.view.across_ranks && s.view.across_ranks.state === 'ready');
  await frames(page, 10);
  await save(page, 'weights', await state(page));

  // The rank picker's other rank, by command: the page, step and parameter stay.
  check('command rank=1', await page.evaluate(() => window.tvisViewer.command({ rank: 1 })) === true);
  s = await waitFor(page, (s) => s.run && s.run.rank === 1 && s.page === 'Weights' && s.view.across_ranks && s.view.across_ranks.state === 'ready');
  check('rank 1: page, step and parameter kept', s && s.run.rank === 1 && s.view.step === 1 && s.view.param === env.TVIS_RANKS_PARAM &&
        /rank1\.tvis/.test(s.run.source), s && { run: s.run, step: s.view.step, param: s.view.param });
  await frames(page, 10);
  await save(page, 'rank1', await state(page));

  // The link key rank=1 in the address.
  await page.goto(viewer + '&rank=1&page=Loss');
  s = await waitFor(page, (s) => s.run && s.page === 'Loss' && s.view.rank_losses.length === 2);
  check('?rank=1 opens rank 1', s && s.run.rank === 1 && s.run.ranks === 2, s && s.run);

  // The folder input: a run folder's rank files are one run.
  if (env.TVIS_RANKS_FOLDER) {
    const base = env.TVIS_RANKS_URL.replace(/\/\?token=.*$/, '');
    await page.goto(`${base}/viewer.html`);
    await waitFor(page, (s) => s !== null && s.run === null);  // the viewer started, no run open yet
    s = await pickFolder(page, env.TVIS_RANKS_FOLDER, (s) => s.run && s.run.ranks === 2);
    check('folder input: one run with two ranks', s && s.run && s.run.ranks === 2 && s.run.rank === 0 && s.errors.length === 0, s && { run: s.run, runs: s.runs, page: s.page, errors: s.errors });
    await page.goto(`${base}/viewer.html`);
    await waitFor(page, (s) => s !== null && s.run === null);  // the viewer started, no run open yet
    s = await pickFolder(page, env.TVIS_RANKS_TWO, (s) => s.runs && s.runs.length === 2);
    check('folder input: two distributed runs listed once each, with their ranks',
          s && s.runs && s.runs.length === 2 && s.runs.every((r) => r.ranks === 2), s && s.runs);
    const rect = await drawnRunRow(page, 0);
    check('folder input: the run list\'s first row is drawn', Array.isArray(rect), rect);
    if (Array.isArray(rect)) await page.mouse.click((rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2);
    s = await waitFor(page, (s) => s.run && s.run.ranks === 2);
    check('folder input: a listed run opens with its rank picker', s && s.run && s.run.ranks === 2, s && s.run);
  }
  // Nothing the pages asked for failed (a /favicon.ico 404 was the one error seen).
  check('no console errors', consoleErrors.length === 0, consoleErrors);
} finally {
  await browser.close();
}
if (failures) {
  console.log(`${failures} check(s) failed`);
  process.exit(1);
}
