// Browser half of test_live.sh: opens a run that `tvis run` is still writing
// from `tvis open`'s run list in headless Chromium and watches it grow
// through window.tvisViewer.state(), without a reload.
//   TVIS_LIVE_URL       the URL `tvis open --no-browser` printed
//   TVIS_LIVE_TIMEOUT   seconds to wait for the run to become complete (default 240)
//   TVIS_LIVE_OUT       where to write what was seen (JSON: samples, final state)
// Checks: the run opens live with fewer steps than it ends with; steps never
// go back; they grow while the page stays open (run.growths > 0); the page,
// the step and the selected event chosen before it grew are kept; it ends
// complete and no longer live, with no errors. The shell script compares the
// final steps and events with `tvis inspect` and the script's own output.
import fs from 'node:fs';

import { launchChromium } from '../chromium.mjs';

const env = process.env;
const timeout = Number(env.TVIS_LIVE_TIMEOUT || 240) * 1000;
let failures = 0;
function check(name, ok, detail) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${ok || detail === undefined ? '' : ': ' + JSON.stringify(detail)}`);
  if (!ok) failures++;
}

const browser = await launchChromium();
const samples = [];
let last = null;
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  const logs = [];
  page.on('console', (m) => logs.push(m.text()));
  await page.goto(env.TVIS_LIVE_URL);
  await page.click('#tvis-runs tr.run:nth-child(1) a.open');
  const state = () => page.evaluate(() => (window.tvisViewer && window.tvisViewer.ready ? window.tvisViewer.state() : null))
    .catch(() => null);
  const command = (c) => page.evaluate((c) => window.tvisViewer.command(c), c);
  const t0 = Date.now();
  let s = null;
  while (Date.now() - t0 < 60000) {
    s = await state();
    if (s && s.run) break;
    await page.waitForTimeout(100);
  }
  check('opened', s && s.run, { s, logs: logs.slice(-5) });
  if (!s || !s.run) throw new Error('not opened');
  const first = s.run;
  check('opened live, not complete', first.live === true && first.complete === false, first);
  // A position to keep: Explore, step 0, its first event selected.
  await command({ page: 'Explore' });
  await command({ select: 0 });
  await page.waitForTimeout(300);
  const before = await state();
  check('Explore shown, event 0 selected', before.page === 'Explore' && before.selection && before.selection.event === 0,
        { page: before.page, selection: before.selection });
  while (Date.now() - t0 < timeout) {
    s = await state();
    if (s && s.run) {
      samples.push({ t: Date.now() - t0, steps: s.run.steps, events: s.run.events, live: s.run.live,
                     complete: s.run.complete, growths: s.run.growths, page: s.page,
                     event: s.selection ? s.selection.event : null, errors: s.errors });
      last = s;
      if (s.run.complete) break;
    }
    await page.waitForTimeout(250);
  }
  check('became complete', last && last.run.complete === true, last && last.run);
  check('no longer live once complete', last && last.run.live === false, last && last.run);
  const steps = samples.map((x) => x.steps);
  check('steps never go back', steps.every((v, i) => i === 0 || v >= steps[i - 1]), steps);
  const grewWhileLive = samples.some((x, i) => i > 0 && x.live && x.steps > samples[0].steps);
  check('steps grew while live, without a reload', grewWhileLive, steps);
  check('ends with more steps than it opened with', last && last.run.steps > first.steps, { first, last: last && last.run });
  check('run grew in place (growths > 0)', last && last.run.growths > 0, last && last.run);
  check('page and selection kept', samples.every((x) => x.page === 'Explore' && x.event === 0),
        samples.filter((x) => x.page !== 'Explore' || x.event !== 0).slice(0, 3));
  check('no errors', samples.every((x) => x.errors.length === 0), samples.filter((x) => x.errors.length).slice(0, 2));
} catch (err) {
  check('browser run', false, String(err && err.stack ? err.stack : err));
} finally {
  await browser.close();
}
if (env.TVIS_LIVE_OUT) fs.writeFileSync(env.TVIS_LIVE_OUT, JSON.stringify({ samples, final: last }, null, 1));
process.exit(failures ? 1 : 0);
