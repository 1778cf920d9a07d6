// The extension in a workspace VS Code does not trust: nothing runs. The
// tvis.path of this run is a script that leaves a marker file when started.
import * as assert from 'assert';
import * as fs from 'fs';
import * as vscode from 'vscode';
import { api, modelUri } from './helpers';

suite('tvis extension, untrusted workspace', () => {
  test('Open as Graph and Record This Script refuse and run nothing', async () => {
    assert.strictEqual(vscode.workspace.isTrusted, false, 'the test needs an untrusted workspace');
    const a = await api();
    const marker = process.env.TVIS_TEST_MARKER!;
    const r = await a.openAsGraph(a.graph, modelUri(), 'audit_models:GoodNet');
    assert.strictEqual(r.status, 'refused');
    assert.match(r.message!, /not trusted: tvis runs nothing here/);
    const rec = await a.recordScript(a.graph.ext, a.graph.out, vscode.Uri.file(modelUri().fsPath.replace('audit_models.py', 'train_tiny.py')));
    assert.strictEqual(rec.status, 'refused');
    assert.match(rec.message!, /not trusted: tvis runs nothing here/);
    await a.refreshLenses();
    assert.deepStrictEqual(a.lenses.provideCodeLenses(await vscode.workspace.openTextDocument(modelUri())), []);
    await new Promise((res) => setTimeout(res, 500));
    assert.ok(!fs.existsSync(marker), 'tvis was started in an untrusted workspace');
  });
});
