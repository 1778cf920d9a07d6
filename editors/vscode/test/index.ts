// The extension's integration tests, run by mocha inside a real VS Code
// extension host (tests/editors/test_vscode_extension.sh loads the extension
// from source through code-server's test payload URL). TVIS_TEST_SUITE picks
// the suite file: "extension" (a trusted workspace) or "untrusted";
// TVIS_TEST_GREP, when set, runs only the tests whose title matches it (a regular expression).
import * as path from 'path';
import Mocha from 'mocha';

export function run(): Promise<void> {
  const suite = process.env.TVIS_TEST_SUITE || 'extension';
  const mocha = new Mocha({ ui: 'tdd', color: false, timeout: 120000 });
  if (process.env.TVIS_TEST_GREP) mocha.grep(new RegExp(process.env.TVIS_TEST_GREP));   // the tests it matches (a regular expression)
  mocha.addFile(path.join(__dirname, 'suite', `${suite}.test.js`));
  if (suite === 'extension') mocha.addFile(path.join(__dirname, 'suite', 'setup_form.test.js'));   // the setup form
  if (suite === 'extension') mocha.addFile(path.join(__dirname, 'suite', 'run_findings.test.js'));   // diagnose in Problems, source links
  return new Promise((resolve, reject) => {
    mocha.run((failures: number) => (failures ? reject(new Error(`${failures} tests failed`)) : resolve()));
  });
}
