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
  await attack.goto(attackUrl);
  await attack.waitForFunction(() => document.title === 'sent', null, { timeout: 20000 });
  await attack.waitForTimeout(1000);  // the form POST's navigation
  console.log('cross-site requests sent');
} finally {
  await browser.close();
}
