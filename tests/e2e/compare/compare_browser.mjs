// Browser half of test_compare.sh: viewer.html served by `tvis open`, with
// ?url=A&url2=B. A run whose fc2 weights were scaled must show tvis diff's
// first divergence (fc2.weight, step 0) with a non-zero max |A - B|, and
// fc2's activation must differ too; the same script twice must show no
// difference; a ?url2= that is not there must be a message. Screenshots are
// taken for a person to look at.
//   TVIS_CMP_BASE  viewer.html?token=...
//   TVIS_CMP_A, TVIS_CMP_A2, TVIS_CMP_FC2  run URLs relative to the server (run/<name>/run.tvis)
//   TVIS_CMP_OUT   where the screenshots go
//   TVIS_CMP_LIST  tvis open's run list page; TVIS_CMP_A_NAME run A's folder name
import { launchChromium } from '../chromium.mjs';
import { frames, waitForState } from '../viewer_page.mjs';

const env = process.env;
let failures = 0;
function check(name, ok, detail) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${ok || detail === undefined ? '' : ': ' + JSON.stringify(detail)}`);
  if (!ok) failures++;
}
const settled = (s) => s && s.page === 'Compare' && s.view && s.view.ready && s.view.why !== 'loading' &&
  (s.view.max_abs !== null || s.view.why !== null);

const browser = await launchChromium();
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const open = async (url2) => {
    const page = await context.newPage();
    await page.goto(`${env.TVIS_CMP_BASE}&url=${env.TVIS_CMP_A}&url2=${url2}`);
    return page;
  };

  let page = await open(env.TVIS_CMP_FC2);
  let s = await waitForState(page, settled, 60000);
  const v = s && s.view;
  check('?url2= opens the Compare page, ready', !!v, s && { page: s.page, view: s.view });
  if (v) {
    check('first divergence: fc2.weight at step 0', v.first && v.first.module === 'fc2.weight' && v.first.step === 0 &&
          v.first.what === 'weight', v.first);
    check('shown there with a non-zero max |A - B|', v.param === 'fc2.weight' && v.show === 'weight' && v.max_abs > 0,
          { param: v.param, show: v.show, max_abs: v.max_abs });
    check('not identical, no problem, no errors', v.identical === false && v.problem === null && s.errors.length === 0,
          { identical: v.identical, problem: v.problem, errors: s.errors });
  }
  await frames(page, 6);
  await page.screenshot({ path: `${env.TVIS_CMP_OUT}/compare_browser_fc2.png` });
  const moved = await page.evaluate(() => window.tvisViewer.command({ compare: { module: 'fc2', show: 'activation', step: 0 } }));
  s = await waitForState(page, (s) => settled(s) && s.view.module === 'fc2' && s.view.show === 'activation', 20000);
  check("fc2's activation at step 0 differs", moved === true && s && s.view.max_abs > 0, s && s.view);
  await page.close();

  page = await open(env.TVIS_CMP_A2);
  s = await waitForState(page, settled, 60000);
  check('the same script twice: identical, first null, max |A - B| = 0',
        s && s.view.identical === true && s.view.first === null && s.view.max_abs === 0 && s.view.elements > 0,
        s && s.view);
  await frames(page, 6);
  await page.screenshot({ path: `${env.TVIS_CMP_OUT}/compare_browser_same.png` });
  await page.close();

  // tvis open's run list: run A's "compare with newest" link (the newest run is FC2)
  page = await context.newPage();
  await page.goto(env.TVIS_CMP_LIST);
  const rows = await page.$$eval('#tvis-runs tr.run', (trs) => trs.map((tr) => tr.querySelector('a.open').textContent));
  const index = rows.indexOf(env.TVIS_CMP_A_NAME);
  check('run list: run A is listed, not first', index > 0, rows);
  await page.click(`#tvis-runs tr.run:nth-child(${index + 1}) a.compare`);
  s = await waitForState(page, settled, 60000);
  check('run list: compare with newest opens FC2 (A) beside run A (B)',
        s && s.view.compare.includes(env.TVIS_CMP_A_NAME) && s.view.first && s.view.first.module === 'fc2.weight' &&
        s.view.max_abs > 0, s && { compare: s.view.compare, first: s.view.first, max_abs: s.view.max_abs });
  await page.close();

  page = await open('run/no_such_run/run.tvis');
  s = await waitForState(page, (s) => s && s.compare && s.compare.status === 'failed', 30000);
  check('a ?url2= that is not there is a message', s && s.errors.some((e) => e.startsWith('compared run: ')),
        s && { compare: s.compare, errors: s.errors });
  await page.close();
} finally {
  await browser.close();
}
process.exit(failures ? 1 : 0);
