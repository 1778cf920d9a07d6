// The extension in a trusted workspace (tests/editors/goodnet_workspace's
// copy): interpreter resolution order, the remembered profile choice and its
// refusal, unsaved edits, a malformed tensorviz.toml, cancellation, and the
// panel's range-only protocol. Every capture is a real `tvis graph`.
import * as assert from 'assert';
import * as fs from 'fs';
import * as vscode from 'vscode';
import { rememberInterpreter, resolveInterpreter, REMEMBERED_PYTHON_KEY } from '../../src/interpreter';
import { CHOICE_KEY } from '../../src/open_as_graph';
import { api, modelUri, read, root, setSetting, until, wsFile } from './helpers';

const PYTHON = process.env.TVIS_TEST_PYTHON!;   // an interpreter with torch
const CLS = 'audit_models:GoodNet';

suite('tvis extension', () => {
  suiteSetup(async () => {
    assert.ok(PYTHON && fs.existsSync(PYTHON), `TVIS_TEST_PYTHON not set or missing: ${PYTHON}`);
    await setSetting('tensorviz', 'pythonPath', PYTHON);
  });

  test('commands are contributed and registered', async () => {
    await api();
    const all = await vscode.commands.getCommands(true);
    for (const c of ['tvis.openAsGraph', 'tvis.changeInputs', 'tvis.recordScript', 'tvis.openRun', 'tvis.selectInterpreter', 'tvis.forgetChoice']) assert.ok(all.includes(c), c);
  });

  test('tvis: the tvis.path setting, else PATH; neither refuses clearly', async () => {
    const a = await api();
    const configured = vscode.workspace.getConfiguration('tvis').get<string>('path')!;
    assert.ok(configured && fs.existsSync(configured), 'the test sets tvis.path to the build\'s tvis');
    const savedPath = process.env.PATH;
    try {
      await setSetting('tvis', 'path', '/nonexistent/bin/tvis');
      let r = await a.openAsGraph(a.graph, modelUri(), CLS);
      assert.strictEqual(r.status, 'refused');
      assert.match(r.message!, /^tvis\.path: \/nonexistent\/bin\/tvis: no such executable/);
      await setSetting('tvis', 'path', '');
      process.env.PATH = '/nonexistent-dir';
      r = await a.openAsGraph(a.graph, modelUri(), CLS);
      assert.strictEqual(r.status, 'refused');
      assert.match(r.message!, /^tvis not found: it is not on PATH and the tvis\.path setting is empty/);
    } finally {
      process.env.PATH = savedPath;
      await setSetting('tvis', 'path', undefined);
    }
    assert.strictEqual(vscode.workspace.getConfiguration('tvis').get<string>('path'), configured);
  });

  test('interpreter: remembered choice, then tensorviz.pythonPath; a set missing path refuses naming it', async () => {
    const a = await api();
    const state = a.graph.ext.workspaceState;
    const folder = vscode.Uri.file(root());
    assert.deepStrictEqual(await resolveInterpreter(state, folder), { path: PYTHON, origin: 'tensorviz.pythonPath' });
    await assert.rejects(rememberInterpreter(state, '/nonexistent/python'), /no such executable; nothing was remembered/);
    assert.strictEqual(state.get(REMEMBERED_PYTHON_KEY), undefined);
    await rememberInterpreter(state, '/bin/sh');   // any existing executable: the remembered one wins
    try {
      assert.deepStrictEqual(await resolveInterpreter(state, folder), { path: '/bin/sh', origin: 'remembered choice' });
      await state.update(REMEMBERED_PYTHON_KEY, '/nonexistent/python');
      await assert.rejects(resolveInterpreter(state, folder), /remembered interpreter \/nonexistent\/python does not exist/);
    } finally { await state.update(REMEMBERED_PYTHON_KEY, undefined); }
    await setSetting('tensorviz', 'pythonPath', '/nonexistent/venv/bin/python');
    try {
      await assert.rejects(resolveInterpreter(state, folder), /tensorviz\.pythonPath: \/nonexistent\/venv\/bin\/python: no such executable/);
      const r = await a.openAsGraph(a.graph, modelUri(), CLS);
      assert.strictEqual(r.status, 'refused');
      assert.match(r.message!, /tensorviz\.pythonPath/);
    } finally { await setSetting('tensorviz', 'pythonPath', PYTHON); }
    await setSetting('tensorviz', 'pythonPath', '');
    try {
      // No remembered choice, no setting, no Python extension here: refused, not guessed.
      await assert.rejects(resolveInterpreter(state, folder), /No Python interpreter: set tensorviz\.pythonPath/);
    } finally { await setSetting('tensorviz', 'pythonPath', PYTHON); }
  });

  test('several profiles: the picker once, the choice remembered, output [3, 2] on the Graph page', async () => {
    const a = await api();
    await a.graph.ext.workspaceState.update(CHOICE_KEY(CLS), undefined);
    const asked: string[][] = [];
    a.graph.pick = async (items) => { asked.push(items); return 'audit_large'; };
    try {
      const r = await a.openAsGraph(a.graph, modelUri(), CLS);
      assert.strictEqual(r.status, 'shown', r.message);
      assert.deepStrictEqual(asked, [['audit_small', 'audit_large']]);
      assert.strictEqual(r.profile, 'audit_large');
      assert.strictEqual(a.graph.ext.workspaceState.get(CHOICE_KEY(CLS)), 'audit_large');
      const s = await until(async () => { const v = await r.panel!.state(); return v && v.view && v.view.outputs ? v : null; });
      assert.ok(s, 'the panel viewer never reported a Graph view');
      assert.strictEqual(s.page, 'Graph');
      assert.deepStrictEqual(s.view.outputs, [[3, 2]]);
      assert.ok(r.panel!.bytesSent > 0 && r.panel!.bytesSent <= fs.statSync(r.graph.run).size);
      // The second opening asks nothing.
      const r2 = await a.openAsGraph(a.graph, modelUri(), CLS);
      assert.strictEqual(r2.status, 'shown', r2.message);
      assert.strictEqual(asked.length, 1);
      assert.strictEqual(r2.profile, 'audit_large');
    } finally { a.graph.pick = undefined; }
  });

  test('a shape bug: the bounded explanation in the panel, the full traceback and the command line in Output', async () => {
    const a = await api();
    const from = a.graph.out.lines.length;
    const r = await a.openAsGraph(a.graph, modelUri(), 'audit_models:ShapeBug');
    assert.strictEqual(r.status, 'shown', r.message);
    assert.strictEqual(r.graph.ok, false);
    assert.strictEqual(r.graph.stage, 'forward');
    const s = await until(async () => { const v = await r.panel!.state(); return v && v.view && v.view.failed ? v : null; });
    assert.ok(s, 'the panel never showed the failed capture');
    assert.strictEqual(s.view.failed, 'fc');
    assert.match(s.view.diagnostic, /inner dims 4 ≠ 8/);
    assert.deepStrictEqual(s.view.outputs, []);
    const logged = a.graph.out.lines.slice(from).join('\n');
    assert.ok(logged.includes(`graph audit_models:ShapeBug --profile shape_bug --workspace ${root()} --python ${PYTHON} --out `), logged);
    assert.match(logged, /Traceback \(most recent call last\):[\s\S]*audit_models\.py", line \d+, in forward/);
    r.panel!.dispose();
  });

  test('from the palette in a file with one model class and no profile: that class, its declared input', async () => {
    const a = await api();
    const uri = vscode.Uri.file(wsFile('declared_models.py'));
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    let asked = 0;
    a.graph.pick = async () => { asked++; return undefined; };
    try {
      const r = await vscode.commands.executeCommand<any>('tvis.openAsGraph');   // as the palette runs it: no arguments
      assert.strictEqual(r.status, 'shown', r.message);
      assert.strictEqual(r.graph.model, 'declared_models:Declared');
      assert.strictEqual(r.graph.source, 'declaration');
      const s = await until(async () => { const v = await r.panel.state(); return v && v.view && v.view.outputs ? v : null; });
      assert.deepStrictEqual(s.view.outputs, [[2, 3]]);
      assert.strictEqual(asked, 0);
      r.panel.dispose();
    } finally {
      a.graph.pick = undefined;
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  test('a saved change to a file the capture read marks the panel\'s graph stale', async () => {
    const a = await api();
    await a.graph.ext.workspaceState.update(CHOICE_KEY(CLS), 'audit_small');
    const r = await a.openAsGraph(a.graph, modelUri(), CLS);
    assert.strictEqual(r.status, 'shown', r.message);
    let s = await until(async () => { const v = await r.panel!.state(); return v && v.view && v.view.freshness ? v : null; });
    assert.ok(s, 'the panel never got the capture\'s freshness');
    assert.strictEqual(s.view.freshness.checked, true);
    assert.strictEqual(s.view.stale, false);
    const doc = await vscode.workspace.openTextDocument(modelUri());
    const edit = new vscode.WorkspaceEdit();
    edit.insert(modelUri(), new vscode.Position(doc.lineCount, 0), '# edited after the capture\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.ok(await doc.save());
    s = await until(async () => { const v = await r.panel!.state(); return v && v.view && v.view.stale ? v : null; });
    assert.ok(s, 'the graph was not marked stale after the save');
    assert.deepStrictEqual(s.view.stale_reasons, ['audit_models.py changed']);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    r.panel!.dispose();
  });

  test('a removed or retargeted remembered choice refuses, never substitutes', async () => {
    const a = await api();
    await a.graph.ext.workspaceState.update(CHOICE_KEY(CLS), 'audit_large');
    const original = read('tensorviz.toml');
    let asked = 0;
    a.graph.pick = async () => { asked++; return 'audit_small'; };
    try {
      fs.writeFileSync(wsFile('tensorviz.toml'), original.replace(/audit_large/g, 'audit_huge'));
      let r = await a.openAsGraph(a.graph, modelUri(), CLS);
      assert.strictEqual(r.status, 'refused');
      assert.match(r.message!, /remembered profile 'audit_large' for audit_models:GoodNet is no longer in tensorviz\.toml/);
      fs.writeFileSync(wsFile('tensorviz.toml'),
        original.replace('model = "audit_models:GoodNet"\nmode = "eval"\ndevice = "cpu"\ngrad_enabled = false\nlimits = { timeout_ms = 30000 }\n[profiles.audit_large.init]',
                         'model = "audit_models:ShapeBug"\nmode = "eval"\ndevice = "cpu"\ngrad_enabled = false\nlimits = { timeout_ms = 30000 }\n[profiles.audit_large.init]'));
      assert.notStrictEqual(read('tensorviz.toml'), original);
      r = await a.openAsGraph(a.graph, modelUri(), CLS);
      assert.strictEqual(r.status, 'refused');
      assert.match(r.message!, /'audit_large' now targets audit_models:ShapeBug/);
      assert.strictEqual(asked, 0, 'the picker must not be shown instead');
    } finally {
      fs.writeFileSync(wsFile('tensorviz.toml'), original);
      a.graph.pick = undefined;
    }
  });

  test('unsaved edits refuse, naming the files', async () => {
    const a = await api();
    const doc = await vscode.workspace.openTextDocument(modelUri());
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((e) => e.insert(new vscode.Position(0, 0), '# unsaved\n'));
    try {
      const r = await a.openAsGraph(a.graph, modelUri(), CLS);
      assert.strictEqual(r.status, 'refused');
      assert.match(r.message!, /^Save first: audit_models\.py has unsaved edits/);
    } finally {
      await vscode.commands.executeCommand('workbench.action.files.revert');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
    assert.ok(!doc.isDirty);
  });

  test('a malformed tensorviz.toml: a Problems diagnostic at its line and the same refusal', async () => {
    const a = await api();
    const original = read('tensorviz.toml');
    fs.writeFileSync(wsFile('tensorviz.toml'), original.replace('mode = "eval"', 'mode = '));
    try {
      const r = await a.openAsGraph(a.graph, modelUri(), CLS);
      assert.strictEqual(r.status, 'refused');
      assert.match(r.message!, /^Could not run: .*tensorviz\.toml:6:8: malformed TOML/);
      const d = vscode.languages.getDiagnostics(vscode.Uri.file(wsFile('tensorviz.toml')));
      assert.strictEqual(d.length, 1);
      assert.strictEqual(d[0].range.start.line, 5);   // 0-based: line 6
      assert.match(d[0].message, /malformed TOML/);
    } finally { fs.writeFileSync(wsFile('tensorviz.toml'), original); }
    await a.refreshLenses();
    assert.strictEqual(vscode.languages.getDiagnostics(vscode.Uri.file(wsFile('tensorviz.toml'))).length, 0);
  });

  test('closing the panel during a capture wins over its late result', async () => {
    const a = await api();
    const slow = 'audit_models:SlowNet';
    const first = await a.openAsGraph(a.graph, modelUri(), slow);
    assert.strictEqual(first.status, 'shown', first.message);
    const panel = first.panel!;
    // A changed model file is captured again (an unchanged one reopens its run
    // at once), and with slow.flag its forward sleeps 30 s.
    fs.writeFileSync(wsFile('slow.flag'), '');
    fs.appendFileSync(wsFile('audit_models.py'), '\n# changed\n');
    const t0 = Date.now();
    const pending = a.openAsGraph(a.graph, modelUri(), slow);
    await new Promise((r) => setTimeout(r, 3000));   // tvis graph is running
    panel.dispose();
    const r = await pending;
    fs.unlinkSync(wsFile('slow.flag'));
    assert.strictEqual(r.status, 'cancelled', r.message);
    assert.ok(Date.now() - t0 < 20000, 'the capture was not interrupted');
    assert.strictEqual(a.graph.panels.get(slow), undefined, 'no panel reopened by the late result');
  });

  test('Record This Script: tvis run in a terminal, then the run in the panel (Replay)', async () => {
    const a = await api();
    // examples/digits_cnn.py (a Dataset, a DataLoader, torchvision transforms), copied into the workspace by
    // test_vscode_extension.sh; its first 3 steps (tvis run --steps 3).
    const script = vscode.Uri.file(wsFile('digits_cnn.py'));
    const r = await a.recordScript(a.graph.ext, a.graph.out, script, ['--steps', '3']);
    assert.strictEqual(r.status, 'recorded', r.message);
    assert.ok(r.run && fs.existsSync(r.run) && r.run.endsWith('run.tvis'), r.run);
    assert.ok(vscode.window.terminals.some((t) => t.name === 'tvis run digits_cnn.py'));
    assert.ok(a.graph.out.lines.some((l) => l.startsWith('$ ') && l.includes(` run --python ${PYTHON} --out `) &&
      l.endsWith(` --steps 3 ${script.fsPath}`)));
    const panel = await a.openRun(r.run!);
    let last: any = null;
    const s = await until(async () => { const v = last = await panel.state(); return v && v.run && v.run.steps > 0 && v.page ? v : null; });
    assert.ok(s, 'the recorded run never opened in the panel: ' + JSON.stringify(last && { run: last.run, page: last.page, errors: last.errors }));
    assert.strictEqual(s.page, 'Replay');
    assert.strictEqual(s.run.steps, 3);
    assert.deepStrictEqual(s.errors, []);
    panel.dispose();
  });

  test('a 200 MB run: the panel draws its first frame from a small share of its bytes', async () => {
    const a = await api();
    const big = process.env.TVIS_TEST_BIG_RUN!;   // tvis-synth's, about 200 MB (test_vscode_extension.sh)
    const size = fs.statSync(big).size;
    const panel = await a.openRun(big);
    const s = await until(async () => { const v = await panel.state(); return v && v.run && v.run.steps > 0 && v.view && v.frame_ms.frames > 0 ? v : null; });
    assert.ok(s, 'the big run never opened');
    assert.deepStrictEqual(s.errors, []);
    const sent = panel.bytesSent;
    console.log(`tvis: bytes handed to the panel for the first frame of a ${size}-byte run: ${sent} (${(100 * sent / size).toFixed(2)}%)`);
    assert.ok(sent > 0 && sent < size / 20, `${sent} of ${size} bytes`);
    panel.dispose();
  });

  test('the panel answers ranges of its own run only', async () => {
    const a = await api();
    await a.graph.ext.workspaceState.update(CHOICE_KEY(CLS), 'audit_small');
    const r = await a.openAsGraph(a.graph, modelUri(), CLS);
    assert.strictEqual(r.status, 'shown', r.message);
    const panel: any = r.panel;
    const size = fs.statSync(r.graph.run).size;
    await until(async () => { const v = await panel.state(); return v && v.view && v.view.outputs ? v : null; });
    const sent = panel.bytesSent;
    panel.onMessage({ type: 'read', id: 9001, offset: 0, length: 16, path: '/etc/passwd' });
    panel.onMessage({ type: 'read', id: 9002, offset: size - 4, length: 16 });
    panel.onMessage({ type: 'read', id: 9003, offset: -1, length: 4 });
    panel.onMessage({ type: 'read', id: 9004, url: 'file:///etc/passwd' });
    const refused: string[] = panel.refused;
    assert.strictEqual(refused.length, 4, refused.join('\n'));
    assert.match(refused[0], /^only \{id, offset, length\} may be asked, not id,length,offset,path,type/);
    assert.strictEqual(refused[1], `bytes ${size - 4}..${size + 12} are outside the run (${size} bytes)`);
    assert.match(refused[2], /^not a byte range: offset -1/);
    assert.match(refused[3], /^only \{id, offset, length\} may be asked, not id,type,url/);
    assert.strictEqual(panel.bytesSent, sent, 'a refused request handed bytes over');
    r.panel!.dispose();
  });
});
