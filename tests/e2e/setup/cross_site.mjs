// cross_site.mjs SETUP_URL ATTACK_URL: a page on another port of 127.0.0.1
// (the same site to the browser) tries to save a profile through the setup
// form's server after the user opened the form: a fetch with credentials and
// a plain form POST, neither holding the token. Exit 0 once both were sent;
// the caller checks that nothing was saved (the server refuses both before
// any route runs).
import { launchChromium } from '../chromium.mjs';

const [setupUrl, attackUrl] = process.argv.slice(2);
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(setupUrl);  // the user's own visit (whatever it leaves in the browser)
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  const attack = await browser.newPage();
  attack.on('console', (m) => console.log('attack page: ' + m.text()));
  // Both requests to the save endpoint (the fetch, then the form's navigation), answered or failed.
  let done = 0;
  const count = (r) => { if (r.url().includes('/api/setup/save')) done++; };
  attack.on('requestfinished', count);
  attack.on('requestfailed', count);
  await attack.goto(attackUrl);
  for (const t0 = Date.now(); done < 2; await attack.waitForTimeout(100))
    if (Date.now() - t0 > 20000) throw new Error(`only ${done} of the 2 requests to the save endpoint were sent`);
  console.log('cross-site requests sent');
} finally {
  await browser.close();
}
