// open_as_graph.ts: "tvis: Open as Graph" as seed 000 orders it.
//   refusals first: untrusted workspace (nothing runs), no tvis, no
//   interpreter, unsaved edits to the model's file, tensorviz.toml or a
//   profile's factory file ("save first", naming them), an invalid
//   tensorviz.toml (its problems in Problems, the first in the refusal);
//   then the profile: the remembered choice (removed or retargeted: refused,
//   never substituted), else the one matching profile, else VS Code's
//   QuickPick once (the answer remembered per workspace), else tvis's own
//   declaration/automatic input; then `tvis graph --json` with the
//   interpreter passed explicitly, and the capture in a RunPanel on Graph.
// Closing the panel or Cancel while the capture runs wins: tvis is
// interrupted and its late result is dropped.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { resolveInterpreter } from './interpreter';
import { ProfilesJson, configProblems, problemText, publishConfigDiagnostics, readProfiles } from './profiles';
import { RunPanel } from './run_panel';
import { SetupPanel } from './setup_panel';
import { LogChannel, Refusal, findTvis, runTvis } from './tvis_cli';

export const CHOICE_KEY = (cls: string) => `tvis.choice:${cls}`;

export interface GraphContext {
  ext: vscode.ExtensionContext;
  out: LogChannel;
  diagnostics: vscode.DiagnosticCollection;
  panels: Map<string, RunPanel>;            // one panel per class
  onProfiles?: (root: string, j: ProfilesJson) => void;
  // Tests: answers the QuickPick instead of showing it (undefined = cancelled).
  pick?: (items: string[], placeHolder: string) => Promise<string | undefined>;
  setupPanels?: Map<string, SetupPanel>;     // the setup form shown per class
  lastSetupCapture?: GraphResult;           // the capture a form's Save started (tests)
}

export interface GraphResult { status: 'shown' | 'refused' | 'cancelled' | 'setup'; setup?: SetupPanel; message?: string; profile?: string;
                               graph?: any; panel?: RunPanel; seconds?: { total: number; tvis: number } }

export function workspaceRootFor(uri: vscode.Uri): string {
  const f = vscode.workspace.getWorkspaceFolder(uri);
  if (!f) throw new Refusal(`${uri.fsPath} is not inside an open workspace folder: tvis needs the workspace root (where tensorviz.toml lives).`);
  return f.uri.fsPath;
}

// Unsaved edits to any of `files` refuse the request, naming them.
export function refuseDirty(root: string, files: string[]): void {
  const wanted = new Set(files.map((f) => path.resolve(root, f)));
  const dirty = vscode.workspace.textDocuments.filter((d) => d.isDirty && wanted.has(d.uri.fsPath))
    .map((d) => path.relative(root, d.uri.fsPath));
  if (dirty.length) throw new Refusal(`Save first: ${dirty.join(', ')} ${dirty.length > 1 ? 'have' : 'has'} unsaved edits (tvis captures the saved files).`);
}

async function chooseClass(j: ProfilesJson, root: string, uri: vscode.Uri): Promise<string | undefined> {
  const rel = path.relative(root, uri.fsPath).split(path.sep).join('/');
  const inFile = j.classes.filter((c) => c.file === rel);
  if (!inFile.length) throw new Refusal(`${rel}: no model class found (a class deriving from torch.nn.Module, read from the source).`);
  if (inFile.length === 1) return inFile[0].class;
  const editor = vscode.window.activeTextEditor;
  if (editor && editor.document.uri.fsPath === uri.fsPath) {   // the class the cursor is in
    const line = editor.selection.active.line + 1;
    const above = inFile.filter((c) => c.line <= line).sort((a, b) => b.line - a.line)[0];
    if (above) return above.class;
  }
  return (await vscode.window.showQuickPick(inFile.map((c) => c.class), { placeHolder: 'Which model class?' })) || undefined;
}

// Which profile runs for `cls` (undefined: tvis's declaration/automatic input).
async function chooseProfile(g: GraphContext, j: ProfilesJson, cls: string): Promise<string | undefined | null> {
  const state = g.ext.workspaceState;
  const remembered = state.get<string>(CHOICE_KEY(cls));
  if (remembered) {
    const p = j.profiles.find((q) => q.name === remembered);
    if (!p) throw new Refusal(`The remembered profile '${remembered}' for ${cls} is no longer in tensorviz.toml; tvis does not substitute another one. ` +
      'Run "tvis: Forget the Remembered Profile Choice" to pick again.');
    if (p.model !== cls) throw new Refusal(`The remembered profile '${remembered}' now targets ${p.model}, not ${cls}; tvis does not substitute another one. ` +
      'Run "tvis: Forget the Remembered Profile Choice" to pick again.');
    return remembered;
  }
  const matching = j.profiles.filter((p) => p.model === cls && p.kind === 'model');
  if (matching.length === 1) return matching[0].name;
  if (matching.length > 1) {
    const names = matching.map((p) => p.name);
    const placeHolder = `Several saved profiles capture ${cls}: which one? (remembered for this workspace)`;
    const picked = g.pick ? await g.pick(names, placeHolder) : await vscode.window.showQuickPick(names, { placeHolder });
    if (!picked) return null;   // cancelled: nothing runs, nothing is remembered
    await state.update(CHOICE_KEY(cls), picked);
    return picked;
  }
  return undefined;
}

// `changeInputs`: tvis.changeInputs — the setup form for the class, started
// from its remembered (else its one) profile; a new setup when it has none.
export async function openAsGraph(g: GraphContext, uri: vscode.Uri | undefined, cls?: string,
                                  changeInputs = false): Promise<GraphResult> {
  const t0 = Date.now();
  // Closing the panel shown when the request started cancels it, at any
  // stage: the capture is interrupted and a late result is dropped.
  const cancel = new vscode.CancellationTokenSource();
  const shown = cls ? g.panels.get(cls) : undefined;
  const closed = shown?.onDisposed(() => cancel.cancel());
  try {
    if (!vscode.workspace.isTrusted) throw new Refusal('This workspace is not trusted: tvis runs nothing here (Workspace Trust).');
    uri = uri || vscode.window.activeTextEditor?.document.uri;
    if (!uri) throw new Refusal('Open a Python file with a model class first.');
    const root = workspaceRootFor(uri);
    const tvis = findTvis();
    const python = await resolveInterpreter(g.ext.workspaceState, vscode.Uri.file(root));
    refuseDirty(root, [uri.fsPath, 'tensorviz.toml']);
    let j = await readProfiles(g.out, tvis, root, python.path);
    publishConfigDiagnostics(g.diagnostics, j);
    g.onProfiles?.(root, j);
    if (!j.valid) {
      const problems = configProblems(j);
      throw new Refusal(`Could not run: ${problems.length ? problemText(j, problems[0]) : 'tensorviz.toml is invalid'}` +
        (problems.length > 1 ? ` (and ${problems.length - 1} more in Problems)` : ''));
    }
    cls = cls || await chooseClass(j, root, uri);
    if (!cls) return { status: 'cancelled' };
    if (changeInputs) {
      const remembered = g.ext.workspaceState.get<string>(CHOICE_KEY(cls));
      const matching = j.profiles.filter((p) => p.model === cls && p.kind === 'model');
      const start = matching.find((p) => p.name === remembered) || (matching.length === 1 ? matching[0] : undefined);
      return openSetup(g, root, tvis, python.path, cls, start?.name);
    }
    const profile = await chooseProfile(g, j, cls);
    // None matches and the class declares no input: the setup form, never a guess.
    const declared = j.classes.find((c) => c.class === cls)?.declaration;
    if (profile === undefined && !declared) return openSetup(g, root, tvis, python.path, cls, undefined);
    if (profile === null) return { status: 'cancelled', message: 'no profile picked' };
    if (profile) {
      // Resolved again after the picker: the file may have changed meanwhile.
      j = await readProfiles(g.out, tvis, root, python.path);
      const p = j.profiles.find((q) => q.name === profile);
      if (!j.valid || !p || p.model !== cls) throw new Refusal(`Profile '${profile}' changed while choosing; nothing was run. Try again.`);
      const factories = [p.factory?.file, p.input_factory?.file].filter((f): f is string => !!f);
      refuseDirty(root, [uri.fsPath, 'tensorviz.toml', ...factories]);
    }
    if (cancel.token.isCancellationRequested) return cancelled(g, cls);
    return await capture(g, tvis, root, python.path, cls, profile, t0, cancel);
  } catch (e) {
    if (e instanceof Refusal) {
      g.out.appendLine(`refused: ${e.message}`);
      void vscode.window.showErrorMessage(e.message);
      return { status: 'refused', message: e.message };
    }
    throw e;
  } finally {
    closed?.dispose();
    cancel.dispose();
  }
}

// The setup form (setup_panel.ts) for `cls`; its Save remembers the saved
// profile as the class's choice and captures it into the class's graph panel.
function openSetup(g: GraphContext, root: string, tvis: string, python: string, cls: string,
                   profile: string | undefined): GraphResult {
  g.setupPanels = g.setupPanels || new Map();
  g.setupPanels.get(cls)?.panel.dispose();
  const panel = new SetupPanel(g.ext.extensionUri, g.out, { root, tvis, python, cls, profile }, async (saved) => {
    await g.ext.workspaceState.update(CHOICE_KEY(cls), saved);
    const cancel = new vscode.CancellationTokenSource();
    try {
      const r = await capture(g, tvis, root, python, cls, saved, Date.now(), cancel);
      g.lastSetupCapture = r;
      return { ok: r.status === 'shown', message: r.message };
    } catch (e) {
      if (!(e instanceof Refusal)) throw e;
      g.out.appendLine(`refused: ${e.message}`);
      g.lastSetupCapture = { status: 'refused', message: e.message };
      return { ok: false, message: e.message };
    } finally { cancel.dispose(); }
  });
  g.setupPanels.set(cls, panel);
  panel.panel.onDidDispose(() => { if (g.setupPanels?.get(cls) === panel) g.setupPanels.delete(cls); });
  g.out.appendLine(`setup form for ${cls}${profile ? ` (from profile ${profile})` : ' (a new setup)'}`);
  return { status: 'setup', setup: panel, profile };
}

function cancelled(g: GraphContext, cls: string): GraphResult {
  g.out.appendLine(`cancelled: the capture of ${cls} (a late result is dropped)`);
  return { status: 'cancelled', message: 'cancelled' };
}

async function capture(g: GraphContext, tvis: string, root: string, python: string, cls: string,
                       profile: string | undefined, t0: number, cancel: vscode.CancellationTokenSource): Promise<GraphResult> {
  const runs = g.ext.storageUri ? vscode.Uri.joinPath(g.ext.storageUri, 'runs').fsPath : path.join(root, 'tvis_runs');
  fs.mkdirSync(runs, { recursive: true });
  const args = ['graph', cls, ...(profile ? ['--profile', profile] : []), '--workspace', root, '--python', python, '--out', runs, '--json'];
  const t1 = Date.now();
  const r = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `tvis: capturing ${cls}${profile ? ` (${profile})` : ''}`, cancellable: true },
    (_p, token) => { token.onCancellationRequested(() => cancel.cancel()); return runTvis(g.out, tvis, args, root, cancel.token); });
  const tvisSeconds = (Date.now() - t1) / 1000;
  if (r.cancelled || cancel.token.isCancellationRequested) return cancelled(g, cls);
  let j: any = null;
  try { j = JSON.parse(r.stdout); } catch { j = null; }
  if (!j || (r.code !== 0 && r.code !== 1) || !j.run) {
    const why = (j?.diagnostics?.[0]?.message) || r.stderr.trim().split('\n').pop() || `exit ${r.code}`;
    throw new Refusal(`Could not run ${cls}: ${why}`);
  }
  if (!j.ok) {
    // The full Python exception is the worker's log: it goes to Output; the
    // panel shows the bounded explanation (the Graph page's diagnostic).
    g.out.appendLine(`capture of ${cls} failed at stage ${j.stage}: ${(j.diagnostics || []).map((d: any) => d.message).join('; ')}`);
    try { g.out.appendLine(fs.readFileSync(j.log, 'utf8').trimEnd()); } catch { /* no log */ }
    g.out.show(true);
  }
  let panel = g.panels.get(cls);
  if (!panel || panel.disposed) {
    panel = new RunPanel(g.ext.extensionUri, g.out, `Graph: ${cls.split(':').pop()}`);
    g.panels.set(cls, panel);
    panel.onDisposed(() => { if (g.panels.get(cls) === panel) g.panels.delete(cls); });
  }
  await panel.open(j.run, { page: 'Graph' });
  panel.panel.reveal(undefined, true);
  panel.workspace = root;
  void recheckFreshness(g, tvis, panel);   // the banner follows; the command does not wait for it
  return { status: 'shown', profile: j.profile || profile, graph: j, panel,
           seconds: { total: (Date.now() - t0) / 1000, tvis: tvisSeconds } };
}

// The Graph page's freshness, as the browser gets it from tvis open: `tvis
// inspect --json RUN` run in the capture's workspace rechecks the files the
// capture read (docs/profiles.md "Freshness") and its `freshness` object goes
// to the viewer as a {freshness} command, so a file changed since (or during)
// the capture shows the page's stale banner and state().view.stale.
export async function recheckFreshness(g: GraphContext, tvis: string, panel: RunPanel): Promise<void> {
  if (panel.disposed || !panel.run || !panel.workspace) return;
  const r = await runTvis(g.out, tvis, ['inspect', '--json', panel.run], panel.workspace);
  let f: any = null;
  try { f = JSON.parse(r.stdout).freshness; } catch { f = null; }
  if (!f || typeof f !== 'object' || Array.isArray(f)) return;
  // The viewer takes the command once the capture is open (its Graph page
  // no longer loading): until then it would be dropped.
  for (let i = 0; i < 200 && !panel.disposed; i++) {
    const s = await panel.state();
    if (s && s.page === 'Graph' && s.view && !s.view.loading) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  if (!panel.disposed) await panel.command({ freshness: f });
}
