// A recorded run's `tvis diagnose` findings in the Problems panel, and the
// code action that opens the viewer at a finding's position. The run is a
// real `tvis run` of a planted bug (eval_left_on.py: model.eval() before
// training, never model.train()).
import * as assert from 'assert';
import * as fs from 'fs';
import * as vscode from 'vscode';
import { api, until, wsFile } from './helpers';

// The 0-based line of `file` holding `text` (exactly one).
function lineOf(file: string, text: string): number {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const at = lines.flatMap((l, i) => (l.includes(text) ? [i] : []));
  assert.strictEqual(at.length, 1, `${text}: ${at}`);
  return at[0];
}

let recorded = '';   // the planted bug's run, recorded by the first test

suite('tvis run findings', () => {
  test('a planted bug\'s finding in Problems at its line; its code action opens the viewer there', async () => {
    const a = await api();
    const script = wsFile('eval_left_on.py');
    const r = await a.recordScript(a.graph.ext, a.graph.out, vscode.Uri.file(script));
    assert.strictEqual(r.status, 'recorded', r.message);
    recorded = r.run!;
    const panel = await a.openRun(r.run!);
    const uri = vscode.Uri.file(script);
    const diags = vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'tvis diagnose');
    assert.strictEqual(diags.length, 1, JSON.stringify(diags) + '\n' + a.graph.out.lines.slice(-20).join('\n'));
    const d = diags[0];
    assert.strictEqual(d.range.start.line, lineOf(script, '# the finding\'s line'));
    assert.strictEqual(d.severity, vscode.DiagnosticSeverity.Warning);
    assert.strictEqual(d.code, 'mode');
    assert.match(d.message, /drop/);
    assert.ok(a.graph.out.lines.some((l) => l.startsWith('$ ') && l.includes(' diagnose --json ') && l.endsWith(r.run!)));

    // The code action, as the light bulb offers it in the open file, then run as a click would.
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: false });
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider', uri, new vscode.Range(d.range.start, d.range.end));
    const show = actions.find((x) => x.title === 'tvis: Show Finding in the Viewer');
    assert.ok(show && show.command, JSON.stringify(actions.map((x) => x.title)));
    await panel.command({ link: { page: 'Weights' } });
    await until(async () => { const v = await panel.state(); return v && v.page === 'Weights' ? v : null; });
    await vscode.commands.executeCommand(show!.command!.command, ...(show!.command!.arguments || []));
    const s = await until(async () => {
      const v = await panel.state();
      return v && v.page === 'Replay' && v.view && v.view.module === 'drop' ? v : null;
    });
    assert.ok(s, 'the viewer did not move to the finding: ' + JSON.stringify((await panel.state())?.view));
    assert.strictEqual(s.view.step, 0);
    assert.strictEqual(s.view.phase, 'forward');

    // Closing the panel takes the run's findings out of Problems.
    panel.dispose();
    await until(async () => vscode.languages.getDiagnostics(uri).every((x) => x.source !== 'tvis diagnose'), 5000);
    assert.ok(vscode.languages.getDiagnostics(uri).every((x) => x.source !== 'tvis diagnose'));
  });

  test('a source link from the viewer opens the file at its line; a file outside is refused', async () => {
    const a = await api();
    assert.ok(recorded, 'the run of the first test');
    const panel: any = await a.openRun(recorded);
    const script = wsFile('eval_left_on.py');
    const line = lineOf(script, '# the finding\'s line') + 1;
    // The viewer's own link: the drop call of step 0's forward (the finding's position) selected on
    // Explore, its "called from" link clicked (the viewer command {source_link}, as a click): the wasm
    // viewer calls window.tvisViewer.onSourceLink, the webview posts {type: 'source'}, the editor opens.
    await panel.command({ link: { page: 'Replay', step: 0, phase: 'forward', module: 'drop' } });
    const at = await until(async () => { const v = await panel.state(); return v && v.view && v.view.module === 'drop' ? v : null; });
    assert.ok(at && typeof at.view.event === 'number', 'the drop call on Replay');
    await panel.command({ link: { page: 'Explore' } });
    await until(async () => { const v = await panel.state(); return v && v.page === 'Explore' ? v : null; });
    assert.strictEqual(await panel.command({ select: at.view.event }), true);
    assert.strictEqual(await panel.command({ source_link: 'called_from' }), true);
    const ed = await until(async () => {
      const e = vscode.window.activeTextEditor;
      return e && e.document.uri.fsPath === script && e.selection.active.line === line - 1 ? e : null;
    }, 10000);
    assert.ok(ed, `the editor did not show eval_left_on.py:${line}: ${vscode.window.activeTextEditor?.document.uri.fsPath}:` +
      `${vscode.window.activeTextEditor?.selection.active.line}`);
    assert.deepStrictEqual(panel.opened, [{ file: script, line }]);
    // What the webview posts for a link: the file as the run names it; others are refused.
    const before = panel.refused.length;
    panel.onMessage({ type: 'source', file: '/etc/passwd', line: 1 });
    panel.onMessage({ type: 'source', file: '../../../../etc/hostname', line: 1 });
    panel.onMessage({ type: 'source', file: 'eval_left_on.py', line: 0 });
    await new Promise((r) => setTimeout(r, 300));
    const refused: string[] = panel.refused.slice(before);
    assert.strictEqual(refused.length, 3, refused.join('\n'));
    assert.strictEqual(refused[0], 'refused a source link: /etc/passwd is not a file inside the workspace folders or the run\'s project folder');
    assert.match(refused[1], /^refused a source link: \.\.\/\.\.\/\.\.\/\.\.\/etc\/hostname is not a file inside/);
    assert.match(refused[2], /^refused a source link: not a file and line/);
    assert.ok(a.graph.out.lines.includes(`viewer panel: ${refused[0]}`));
    assert.strictEqual(panel.opened.length, 1, 'a refused link opened a file');
    panel.dispose();
  });
});
