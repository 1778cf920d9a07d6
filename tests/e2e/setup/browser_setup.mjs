// browser_setup.mjs SETUP_URL OUT_DIR: the setup form of `tvis graph
// nets.mixer:Mixer --setup` in headless Chromium, filled by clicking and
// typing as a user would:
//   1. a shape that is not one ("2, x"): Save is refused, the page shows the
//      bounded explanation naming inputs.x.shape, and nothing is written;
//   2. a new setup (mixer_probe): width 16, depth 3, shape 2, 4; a switch to
//      "Use Python example inputs" and back keeps the shape typed; forward's
//      keyword option scale = 0.5 under Advanced; Save and capture lands on
//      the viewer's Graph page with nodes;
//   3. the Graph page's "Change inputs" button (ImGui, clicked at the rect the
//      test surface gives) opens the form of mixer_probe as saved; then the
//      hand-written profile mixer is picked (its form prefilled from the
//      file): shape 5, 4; saved as the new generated mixer_setup;
//   4. its Change inputs, device cuda (none here): the capture fails in
//      setup, its Graph page offers "Set up..." instead.
// Writes OUT_DIR/setup_*.png and OUT_DIR/setup_browser.json; exit 1 on any failure.
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium } from '../chromium.mjs';
import { waitForState } from '../viewer_page.mjs';

const [url, out] = process.argv.slice(2);
const report = { steps: {}, errors: [] };
const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1100, height: 1000 } });
page.on('pageerror', (e) => report.errors.push('pageerror: ' + e.message));
const consoleErrors = [];  // logged, not failed on (a missing favicon.ico is one)
page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });

function check(cond, what) {
  if (!cond) throw new Error(what);
}

async function openForm(u) {
  await page.goto(u);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
}

// Clears a text field and types into it (a click, select-all, then keys).
async function typeInto(selector, text) {
  await page.click(selector);
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  if (text) await page.keyboard.type(text);
}

async function graphAfterSave(name, withNodes = true) {
  await page.click('#save');
  await page.waitForURL(/viewer\.html/, { timeout: 60000 });
  // the capture drawn, and the banner's setup button (drawn the frame after the link applies)
  const s = await waitForState(page, (x) => x.page === 'Graph' && x.view && x.view.loading !== true &&
                                            (!withNodes || x.view.nodes > 0) && x.view.setup && x.view.setup.button, 30000);
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(out, `setup_${name}_graph.png`) });
  return { url: page.url(), state: s };
}

try {
  // 1. refused: a shape that is not one
  await openForm(url);
  const starts = await page.$$eval('#start option', (o) => o.map((x) => x.textContent));
  report.steps.starts = starts;
  check(starts.includes('mixer (hand-written)') && starts.includes('mixer_tanh (hand-written)'), 'the start list: ' + starts);
  check((await page.inputValue('#name')) === 'mixer', 'a new setup is offered as mixer (saved as mixer_setup when taken)');
  await typeInto('#name', 'mixer_probe');
  await typeInto('#shape-x', '2, x');
  await page.click('#save');
  await page.waitForSelector('#error', { state: 'visible', timeout: 20000 });
  const refused = await page.textContent('#error');
  report.steps.refused = refused;
  await page.screenshot({ path: path.join(out, 'setup_refused.png') });
  check(refused.includes("inputs.x.shape: '2, x' is not a shape"), 'the refusal names the field: ' + refused);
  check(refused.length <= 400, 'the refusal is bounded: ' + refused.length);

  // 2. a new setup, typed
  await typeInto('#init-width', '16');
  await typeInto('#init-depth', '3');
  await typeInto('#shape-x', '2, 4');
  await page.selectOption('#generator-x', 'uniform');
  await page.click('#inputs-example');
  check(await page.isVisible('#example-function'), 'example inputs show the function picker');
  await page.selectOption('#example-function', 'nets/mixer.py:example_inputs');
  await page.click('#inputs-tensors');
  const kept = await page.inputValue('#shape-x');
  report.steps.kept_shape = kept;
  check(kept === '2, 4' && (await page.inputValue('#generator-x')) === 'uniform', 'switching back kept the tensor settings: ' + kept);
  await page.click('#advanced summary');
  await typeInto('#forward-kwargs', 'scale = 0.5');
  await typeInto('#timeout', '30000');
  await page.screenshot({ path: path.join(out, 'setup_filled.png'), fullPage: true });
  report.steps.probe = await graphAfterSave('probe');
  const sp = report.steps.probe.state;
  check(sp && sp.page === 'Graph' && sp.view.nodes >= 5 && !sp.view.failed && sp.errors.length === 0,
        'the Graph page of mixer_probe: ' + JSON.stringify(sp && sp.view));

  // 3. the Graph page's "Change inputs" (an ImGui button: clicked at its rect) opens the form of mixer_probe
  const button = sp.view.setup && sp.view.setup.button;
  check(button && sp.view.setup.label === 'Change inputs' && sp.view.setup.profile === 'mixer_probe',
        'the Graph page offers Change inputs: ' + JSON.stringify(sp.view.setup));
  await page.mouse.click(button.x + button.w / 2, button.y + button.h / 2);
  await page.waitForURL(/\/setup\?/, { timeout: 20000 });
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  report.steps.change_url = page.url();
  check((await page.inputValue('#start')) === 'mixer_probe' && (await page.inputValue('#init-width')) === '16' &&
        (await page.inputValue('#shape-x')) === '2, 4', 'Change inputs starts from mixer_probe as saved');
  check((await page.textContent('#name-hint')).includes('was written by this form'), 'mixer_probe is a generated profile');
  // then the hand-written profile mixer, picked from the list: its form is prefilled from the file
  await page.selectOption('#start', 'mixer');
  check((await page.inputValue('#start')) === 'mixer', 'the form starts from mixer');
  check((await page.inputValue('#shape-x')) === '3, 4', 'prefilled from the file: ' + (await page.inputValue('#shape-x')));
  check((await page.inputValue('#init-width')) === '4', 'init prefilled from the file');
  const hint = await page.textContent('#name-hint');
  check(hint.includes('hand-written'), 'the form says mixer is hand-written: ' + hint);
  await typeInto('#shape-x', '5, 4');
  await page.screenshot({ path: path.join(out, 'setup_change_inputs.png'), fullPage: true });
  report.steps.change = await graphAfterSave('change');
  const sc = report.steps.change.state;
  check(sc && sc.page === 'Graph' && sc.view.nodes > 0 && report.steps.change.url.includes('setup_profile=mixer_setup'),
        'the Graph page of mixer_setup: ' + report.steps.change.url);

  // 4. a capture that fails in setup (no CUDA here) opens its Graph page with "Set up..."
  const again = sc.view.setup.button;
  await page.mouse.click(again.x + again.w / 2, again.y + again.h / 2);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  check((await page.inputValue('#start')) === 'mixer_setup' && (await page.inputValue('#shape-x')) === '5, 4',
        'Change inputs starts from mixer_setup');
  await page.selectOption('#device', 'cuda');
  report.steps.device = await graphAfterSave('device', false);
  const sd = report.steps.device.state;
  check(sd && sd.view.ok === false && sd.view.stage === 'device' && sd.view.setup.label === 'Set up...',
        'a setup failure offers Set up...: ' + JSON.stringify(sd && sd.view));
  report.ok = report.errors.length === 0;
  if (!report.ok) report.failure = 'page errors';
} catch (e) {
  report.ok = false;
  report.failure = e.message;
  await page.screenshot({ path: path.join(out, 'setup_failure.png'), fullPage: true }).catch(() => {});
}
report.console_errors = consoleErrors;
fs.writeFileSync(path.join(out, 'setup_browser.json'), JSON.stringify(report, null, 1));
console.log(`setup form: ${report.ok ? 'ok' : 'FAILED: ' + report.failure}`);
await browser.close();
process.exit(report.ok ? 0 : 1);
