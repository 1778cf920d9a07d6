// Browser half of test_diagnosis.sh: viewer.html served by `tvis open`,
// opened on a run with ?page=Diagnosis. The page must list exactly what
// `tvis diagnose --json` found (kinds and messages, in order), the badge
// key must count them, a finding's command must open its link, and the
// page is screenshotted for a person to look at.
//   TVIS_DIAG_URL       viewer.html?token=...&url=run/<name>/run.tvis&page=Diagnosis
//   TVIS_DIAG_EXPECTED  the `tvis diagnose --json` file
//   TVIS_DIAG_SHOT      the screenshot (PNG)
import fs from 'node:fs';

import { launchChromium } from '../chromium.mjs';
import { frames, waitForState } from '../viewer_page.mjs';

const env = process.env;
const expected = JSON.parse(fs.readFileSync(env.TVIS_DIAG_EXPECTED, 'utf8')).findings;
let failures = 0;
function check(name, ok, detail) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${ok || detail === undefined ? '' : ': ' + JSON.stringify(detail)}`);
  if (!ok) failures++;
}

const browser = await launchChromium();
try {
  const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
  await page.goto(env.TVIS_DIAG_URL);
  let s = await waitForState(page, (s) => s.page === 'Diagnosis' && s.view && s.view.ready, 60000);
  check('the Diagnosis page is shown and ready', s && s.page === 'Diagnosis' && s.view && s.view.ready, s && s.page);
  const shown = (s && s.view && s.view.findings) || [];
  check('the same findings as tvis diagnose, in order',
        JSON.stringify(shown.map((f) => [f.kind, f.message])) === JSON.stringify(expected.map((f) => [f.kind, f.message])),
        shown.map((f) => f.kind));
  check('the badge key counts them', s && s.diagnosis && s.diagnosis.count === expected.length, s && s.diagnosis);
  check('no errors shown', s && s.errors.length === 0, s && s.errors);
  await frames(page, 4);
  await page.screenshot({ path: env.TVIS_DIAG_SHOT });
  const opened = await page.evaluate(() => window.tvisViewer.command({ finding: 0 }));
  s = await waitForState(page, (s) => s.page === expected[0].position.page, 20000);
  check(`finding 0 opens ${expected[0].position.page}`, opened === true && s && s.page === expected[0].position.page, s && s.page);
} finally {
  await browser.close();
}
process.exit(failures ? 1 : 0);
