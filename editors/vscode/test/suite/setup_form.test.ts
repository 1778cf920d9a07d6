// The setup form in a webview (setup_panel.ts): tvis's own page, its answers
// from `tvis graph --setup-model/--setup-splice`, the save applied as one
// undoable WorkspaceEdit. Real captures of real classes.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { applyConfigText } from '../../src/setup_panel';
import { api, read, root, setSetting, until, wsFile } from './helpers';

const PYTHON = process.env.TVIS_TEST_PYTHON!;

suite('tvis setup form', () => {
  suiteSetup(async () => { await setSetting('tensorviz', 'pythonPath', PYTHON); });

  test('no setup: the form; Save writes tensorviz.toml by one undoable edit (hand-written bytes kept) and shows the graph', async () => {
    const a = await api();
    const before = read('tensorviz.toml');
    const cls = 'wide_models:WideNet';
    const r = await a.openAsGraph(a.graph, vscode.Uri.file(wsFile('wide_models.py')), cls);
    assert.strictEqual(r.status, 'setup', r.message);
    const form = r.setup!;
    assert.ok(await until(() => form.test('ready'), 30000), 'the form loaded its model from tvis');
    const fields = await form.test('fields');
    assert.strictEqual(fields.name, 'wide_net');          // tvis's new_name for the class
    assert.deepStrictEqual(fields.tensors.map((t: any) => t.name), ['x']);
    fields.tensors[0].shape = '2, 6';
    await form.test('fill', { form: fields });
    a.graph.lastSetupCapture = undefined;
    await form.test('save');
    const shown = await until(async () => a.graph.lastSetupCapture, 90000);
    assert.ok(shown, 'the save captured');
    assert.strictEqual(shown!.status, 'shown', shown!.message);
    assert.strictEqual(shown!.profile, 'wide_net');
    const state = await until(async () => { const s = await shown!.panel!.state(); return s?.view?.outputs ? s : undefined; });
    assert.deepStrictEqual(state.view.outputs, [[2, 3]]);
    assert.ok(form.disposed, 'the form closes once the graph is shown');
    const after = read('tensorviz.toml');
    assert.strictEqual(after.slice(0, before.length), before, 'every hand-written byte kept');
    assert.match(after.slice(before.length), /^\n# tvis:generated profile wide_net[^\n]*\n\[profiles\.wide_net\]\n[\s\S]*shape = \[2, 6\][\s\S]*# tvis:end generated profile wide_net\n$/);
    // One edit: one undo restores the file as it was.
    const doc = await vscode.workspace.openTextDocument(wsFile('tensorviz.toml'));
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('undo');
    assert.strictEqual(doc.getText(), before);
    await doc.save();
    assert.strictEqual(read('tensorviz.toml'), before);
    await vscode.commands.executeCommand('tvis.forgetChoice', cls);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('Change inputs of a hand-written profile saves a new profile beside it', async () => {
    const a = await api();
    const before = read('tensorviz.toml');
    const cls = 'audit_models:ShapeBug';
    const r = await a.openAsGraph(a.graph, vscode.Uri.file(wsFile('audit_models.py')), cls, true);
    assert.strictEqual(r.status, 'setup', r.message);
    assert.strictEqual(r.profile, 'shape_bug');
    const form = r.setup!;
    assert.ok(await until(() => form.test('ready'), 30000));
    const fields = await form.test('fields');
    assert.strictEqual(fields.name, 'shape_bug');
    assert.strictEqual(fields.tensors[0].shape, '2, 4');   // started from the profile
    fields.tensors[0].shape = '2, 8';
    await form.test('fill', { form: fields });
    a.graph.lastSetupCapture = undefined;
    await form.test('save');
    const shown = await until(async () => a.graph.lastSetupCapture, 90000);
    assert.strictEqual(shown?.status, 'shown', shown?.message);
    assert.strictEqual(shown!.profile, 'shape_bug_setup');
    assert.strictEqual(form.saved?.profile, 'shape_bug_setup');
    const after = read('tensorviz.toml');
    assert.strictEqual(after.slice(0, before.length), before);
    assert.ok(after.includes('[profiles.shape_bug_setup]'));
    fs.writeFileSync(wsFile('tensorviz.toml'), before);
    await vscode.commands.executeCommand('tvis.forgetChoice', cls);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('a tensorviz.toml linking outside the workspace is never edited', async () => {
    const outside = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tvis-outside-')), 'victim.toml');
    fs.writeFileSync(outside, 'mine\n');
    const link = wsFile('linked_config.toml');
    fs.symlinkSync(outside, link);
    try {
      await assert.rejects(applyConfigText(root(), link, 'version = 1\n'), /outside the workspace/);
      assert.strictEqual(fs.readFileSync(outside, 'utf8'), 'mine\n');
    } finally { fs.unlinkSync(link); }
  });
});
