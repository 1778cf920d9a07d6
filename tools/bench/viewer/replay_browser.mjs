// replay_browser.mjs: viewer.html in headless Chromium plays Replay over one
// real run served with Range (replay_browser.sh), one move per frame at most
// (60 stops a second, step size layer), from step 0 to the end. Prints the
// frame time per phase as the App measured it (state().view.frame_ms_by_phase:
// the shell's whole frame, drawn in that phase), and the run bytes nginx
// served while each step played.
import fs from 'node:fs';

import { launchChromium } from '../../../tests/e2e/chromium.mjs';

const base = process.env.TVIS_BENCH_BASE;
const log = process.env.TVIS_BENCH_ACCESS_LOG;
const size = fs.statSync(process.env.TVIS_BENCH_RUN).size;
const servedBytes = () => fs.readFileSync(log, 'utf8').split('\n').filter((l) => l.includes('/runs/run.tvis'))
  .reduce((n, l) => n + Number((l.match(/" \d+ (\d+) /) || [0, 0])[1]), 0);

const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  await page.goto(`${base}/viewer.html?url=/runs/run.tvis&page=Replay&step=0&phase=data`);
  const view = () => page.evaluate(() => window.tvisViewer.state().view);
  const t0 = Date.now();
  let v = null;
  while (Date.now() - t0 < 60000) {
    v = await view().catch(() => null);
    if (v && v.step === 0 && !v.loading) break;
    await page.waitForTimeout(50);
  }
  console.log(`first Replay position after ${Date.now() - t0} ms (page load included), ${(servedBytes() / 1e6).toFixed(2)} MB served`);
  await page.mouse.move(5, 850);
  await page.evaluate(() => {
    const c = window.tvisViewer.command;
    c({ step_size: 'layer' });
    c({ speed: 60 });
    c({ play: true });
  });
  const stepBytes = {};
  let last = -1;
  const tPlay = Date.now();
  while (Date.now() - tPlay < 600000) {
    v = await view();
    if (v.step !== last) {
      stepBytes[v.step] = servedBytes();
      last = v.step;
    }
    if (!v.playing) break;
    await page.waitForTimeout(20);
  }
  const end = servedBytes();
  console.log(`played to the end in ${((Date.now() - tPlay) / 1000).toFixed(1)} s`);
  console.log('phase      frames   median      p99');
  for (const [phase, f] of Object.entries(v.frame_ms_by_phase))
    console.log(`${phase.padEnd(10)} ${String(f.frames).padStart(6)} ${f.median.toFixed(2).padStart(7)}ms ${f.p99.toFixed(2).padStart(7)}ms`);
  const steps = Object.keys(stepBytes).map(Number).sort((a, b) => a - b);
  for (const k of steps) {
    const next = stepBytes[k + 1] !== undefined ? stepBytes[k + 1] : end;
    console.log(`bytes served playing step ${k}: ${((next - stepBytes[k]) / 1e6).toFixed(2)} MB (${(100 * (next - stepBytes[k]) / size).toFixed(1)}% of the file)`);
  }
  await page.close();
} finally {
  await browser.close();
}
