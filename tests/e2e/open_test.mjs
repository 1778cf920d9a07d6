// Browser half of test_open.sh: drives the URL `tvis open --no-browser`
// printed, in headless Chromium. Checks the run list (newest first, steps),
// that the same address without the token is refused, and opens one run in
// the viewer, checked through window.tvisViewer.state().
//   TVIS_OPEN_URL        the printed URL (http://127.0.0.1:<port>/?token=...)
//   TVIS_OPEN_EXPECTED   JSON [{name, steps}] in the expected order
//   TVIS_OPEN_INDEX      the row to open (default 0)
//   TVIS_OPEN_INSPECT    `tvis inspect --json` of that run
//   TVIS_OPEN_SHOT       screenshot of the opened run (PNG)
//   TVIS_OPEN_STATS_OUT  where to write /api/stats once the first page is drawn
//   TVIS_OPEN_SINGLE     1: one run is served: the URL opens the viewer on it
//                        directly (no run list first); its "All runs" link
//                        leads to the run list, TVIS_OPEN_EXPECTED's one row
//   TVIS_OPEN_LOST_FLAG  then: create this file (the test's remote tvis refuses to
//                        start while it exists), end the agent's ssh session, and
//                        browse until the viewer shows the lost connection; remove
//                        it and reload: the run opens again (no restart of tvis open)
import fs from 'node:fs';

import { launchChromium } from './chromium.mjs';

const env = process.env;
const url = env.TVIS_OPEN_URL;
const expected = JSON.parse(env.TVIS_OPEN_EXPECTED);
const index = Number(env.TVIS_OPEN_INDEX || 0);
const inspect = JSON.parse(fs.readFileSync(env.TVIS_OPEN_INSPECT, 'utf8'));
let failures = 0;

function check(name, ok, detail) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${ok || detail === undefined ? '' : ': ' + JSON.stringify(detail)}`);
  if (!ok) failures++;
}

const browser = await launchChromium();
try {
  // Without the token: refused, and nothing of the page is shown.
  {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    const bare = url.replace(/\?token=.*$/, '');
    const r = await page.goto(bare);
    check('no token: 403', r.status() === 403, r.status());
    check('no token: says why', /token/.test(await page.textContent('body')), await page.textContent('body'));
    const w = await page.goto(bare + '?token=0123456789abcdef0123456789abcdef');
    check('wrong token: 403', w.status() === 403, w.status());
    await ctx.close();
  }

  const ctx = await browser.newContext();
  const page = await ctx.newPage({ viewport: { width: 1400, height: 860 } });
  const logs = [];
  page.on('console', (m) => logs.push(m.text()));
  const r = await page.goto(url);
  check('first page: 200', r.status() === 200, r.status());
  const single = env.TVIS_OPEN_SINGLE === '1';
  check(single ? 'one run: the URL opens the viewer' : 'runs folder: the URL opens the run list',
        single === /\/viewer\.html\?/.test(page.url()), page.url());
  if (!single) await listAndOpen();
  async function listAndOpen() {
    const rows = await page.$$eval('#tvis-runs tr.run', (trs) => trs.map((tr) => ({
      name: tr.querySelector('a.open').textContent,
      steps: Number(tr.querySelector('.steps').textContent),
      status: tr.dataset.status,
    })));
    check('run list: newest first, with steps', JSON.stringify(rows.map((x) => ({ name: x.name, steps: x.steps }))) === JSON.stringify(expected),
          { rows, expected });
    check('run list: every run readable', rows.every((x) => x.status === 'complete'), rows);

    // Open one run: a real click on its link, then the viewer's own state.
    await page.click(`#tvis-runs tr.run:nth-child(${index + 1}) a.open`);
  }
  let s = null;
  const t0 = Date.now();
  while (Date.now() - t0 < 60000) {
    s = await page.evaluate(() => (window.tvisViewer && window.tvisViewer.ready ? window.tvisViewer.state() : null)).catch(() => null);
    if (s && s.run && s.run.steps !== undefined) break;
    await page.waitForTimeout(100);
  }
  check('viewer: run opened', s && s.run, { s, logs: logs.slice(-5) });
  if (s && s.run) {
    check('viewer: steps as inspect', s.run.steps === inspect.steps, s.run);
    check('viewer: events as inspect', s.run.events === inspect.events, s.run);
    check('viewer: no errors', s.errors.length === 0, s.errors);
  }
  // The first page drawn with its data: a few frames after the run opened.
  await page.evaluate(() => new Promise((res) => { let n = 30; const f = () => (--n ? requestAnimationFrame(f) : res()); f(); }));
  if (env.TVIS_OPEN_SHOT) await page.screenshot({ path: env.TVIS_OPEN_SHOT });
  if (single) {  // the run list, one link away
    const link = await page.$('#tvis-runs');
    check('one run: the viewer shows an "All runs" link', link && (await link.isVisible()), null);
    if (link) {
      await link.click();
      await page.waitForSelector('#tvis-runs tr.run', { timeout: 20000 }).catch(() => null);
      const names = await page.$$eval('#tvis-runs tr.run a.open', (as) => as.map((a) => a.textContent));
      check('one run: All runs lists it', JSON.stringify(names) === JSON.stringify(expected.map((x) => x.name)), names);
      await page.goBack();
    }
  }
  const statsUrl = url.replace(/\/\?token=/, '/api/stats?token=');
  const stats = await (await fetch(statsUrl)).json();
  if (env.TVIS_OPEN_STATS_OUT) fs.writeFileSync(env.TVIS_OPEN_STATS_OUT, JSON.stringify(stats));
  if (env.TVIS_OPEN_LOST_FLAG && s && s.run) {
    fs.writeFileSync(env.TVIS_OPEN_LOST_FLAG, '');
    process.kill(stats.agent.pid);
    // Browse until a read misses the cache: every page, then steps forward.
    let lost = null;
    const t1 = Date.now();
    for (let round = 0; !lost && Date.now() - t1 < 30000; round++) {
      for (const name of s.pages) {
        await page.evaluate((n) => window.tvisViewer.command({ page: n }), name);
        await page.evaluate(() => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res))));
      }
      await page.evaluate(() => window.tvisViewer.command({ key: 'RightArrow' })).catch(() => null);
      const now = await page.evaluate(() => window.tvisViewer.state());
      lost = now.errors.find((e) => /lost/.test(e) && /could not be started/.test(e)) || null;
      if (round === 0) console.log('     errors after the first round: ' + JSON.stringify(now.errors));
    }
    check('lost connection: the viewer says so', lost !== null, lost);
    if (lost) console.log('     ' + lost);
    fs.unlinkSync(env.TVIS_OPEN_LOST_FLAG);
    await page.reload();
    let again = null;
    const t2 = Date.now();
    while (Date.now() - t2 < 60000) {
      again = await page.evaluate(() => (window.tvisViewer && window.tvisViewer.ready ? window.tvisViewer.state() : null)).catch(() => null);
      if (again && again.run && again.run.steps !== undefined) break;
      await page.waitForTimeout(100);
    }
    check('lost connection: reload reconnects', again && again.run && again.run.steps === inspect.steps && again.errors.length === 0, again);
  }
  await ctx.close();
} finally {
  await browser.close();
}
process.exit(failures ? 1 : 0);
