// run_extension_tests.cjs CS_URL FOLDER EXT_DIR TESTS_INDEX: opens the
// workbench with code-server's test payload (extensionDevelopmentPath +
// extensionTestsPath, as VS Code's own test runners pass them), which loads
// the extension from EXT_DIR, runs its mocha tests in the extension host and
// calls window.codeAutomationExit(code). The extension host's console is
// printed. Exit 0 only when the tests passed.
const { chromium } = require('playwright-core');
const util = require('util');
const [base, folder, dev, tests] = process.argv.slice(2);
(async () => {
  const host = new URL(base).host;
  const payload = [['extensionDevelopmentPath', `vscode-remote://${host}${dev}`],
                   ['extensionTestsPath', `vscode-remote://${host}${tests}`]];
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
  const page = await browser.newPage();
  let chain = Promise.resolve();
  page.on('console', (m) => {   // extension host lines arrive as ("%c INFO", "color: ..", fmt, ...args)
    chain = chain.then(async () => {
      let args = await Promise.all(m.args().map((a) => a.jsonValue().catch(() => '?')));
      if (typeof args[0] === 'string' && args[0].startsWith('%c')) args = args.slice(2);
      const t = args.length ? util.format(...args) : m.text();
      if (/Failed to load resource|sandbox|same-origin|service worker|Creating a socket|Resolv|ChatSessionStore|builtin extensions cache/i.test(t)) return;
      console.log('[' + m.type() + '] ' + t.slice(0, 4000));
    });
  });
  let done;
  const exited = new Promise((r) => (done = r));
  await page.exposeFunction('codeAutomationExit', (code) => done(code));
  await page.goto(`${base}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`);
  const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout after 300 s'), 300000))]);
  await chain;
  console.log('extension tests exit code:', code);
  await browser.close();
  process.exit(code === 0 ? 0 : 1);
})().catch((e) => { console.error(e); process.exit(1); });
