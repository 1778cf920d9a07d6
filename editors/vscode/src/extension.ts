// extension.ts: the tvis extension's entry point. Registers the commands
// (tvis.openAsGraph, tvis.changeInputs (the setup form), tvis.recordScript, tvis.openRun, tvis.selectInterpreter,
// tvis.forgetChoice, tvis.showFinding), the CodeLens above
// model classes, the Problems collections for tensorviz.toml and for the
// `tvis diagnose` findings of opened runs (run_findings.ts), and the "tvis"
// Output channel, and returns the API the extension's own tests drive.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { ModelLensProvider } from './codelens';
import { resolveInterpreter, selectInterpreter } from './interpreter';
import { CHOICE_KEY, GraphContext, openAsGraph, recheckFreshness } from './open_as_graph';
import { publishConfigDiagnostics, readProfiles } from './profiles';
import { recordScript } from './record_script';
import { RunFindings } from './run_findings';
import { RunPanel } from './run_panel';
import { LogChannel, Refusal, findTvis } from './tvis_cli';

export interface TvisApi {
  graph: GraphContext;
  openAsGraph: typeof openAsGraph;
  openRun(file: string): Promise<RunPanel>;
  findings: RunFindings;
  runPanels: Map<string, RunPanel>;
  recordScript: typeof recordScript;
  refreshLenses(): Promise<void>;
  lenses: ModelLensProvider;
}

export function activate(context: vscode.ExtensionContext): TvisApi {
  const out = new LogChannel('tvis');
  const diagnostics = vscode.languages.createDiagnosticCollection('tvis');
  const lenses = new ModelLensProvider();
  const graph: GraphContext = { ext: context, out, diagnostics, panels: new Map(),
                                onProfiles: (root, j) => lenses.update(root, j.classes) };
  const findings = new RunFindings(out);
  context.subscriptions.push(out, diagnostics, findings,
    vscode.languages.registerCodeLensProvider({ language: 'python', scheme: 'file' }, lenses),
    vscode.languages.registerCodeActionsProvider({ scheme: 'file' }, findings,
      { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] }));

  // The classes for the CodeLens, re-read on save; refusals are logged only
  // (a lens is a hint, not a request).
  const refreshLenses = async () => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder || !vscode.workspace.isTrusted) { lenses.update('', []); return; }
    try {
      const tvis = findTvis();
      const python = await resolveInterpreter(context.workspaceState, folder.uri);
      const j = await readProfiles(out, tvis, folder.uri.fsPath, python.path);
      publishConfigDiagnostics(diagnostics, j);
      lenses.update(folder.uri.fsPath, j.classes);
    } catch (e) {
      if (!(e instanceof Refusal)) throw e;
      out.appendLine(`model classes not read: ${e.message}`);
      lenses.update('', []);
    }
  };
  context.subscriptions.push(vscode.workspace.onDidSaveTextDocument((d) => {
    if (d.languageId === 'python' || path.basename(d.uri.fsPath) === 'tensorviz.toml') void refreshLenses();
    // A saved file may be one a shown capture read: its Graph page is rechecked.
    if (!vscode.workspace.isTrusted) return;
    for (const panel of graph.panels.values()) {
      try { void recheckFreshness(graph, findTvis(), panel); } catch (e) { if (!(e instanceof Refusal)) throw e; }
    }
  }));
  context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(() => void refreshLenses()));
  void refreshLenses();

  // A run's panel (one per run file), its diagnose findings in Problems
  // while it is open.
  const runPanels = new Map<string, RunPanel>();
  const openRun = async (file: string, link?: Record<string, string>): Promise<RunPanel> => {
    const st = fs.statSync(file);
    const run = path.resolve(st.isDirectory() ? path.join(file, 'run.tvis') : file);
    if (!fs.existsSync(run)) throw new Refusal(`${file}: no run.tvis in this folder.`);
    const panel = new RunPanel(context.extensionUri, out, `Run: ${path.basename(path.dirname(run))}`);
    runPanels.get(run)?.dispose();
    runPanels.set(run, panel);
    panel.onDisposed(() => { if (runPanels.get(run) === panel) { runPanels.delete(run); findings.clear(run); } });
    await panel.open(run, link);
    await findings.publish(run);
    panel.projectDir = findings.projectDirs.get(run) || '';
    return panel;
  };

  context.subscriptions.push(
    vscode.commands.registerCommand('tvis.openAsGraph', (uri?: vscode.Uri, cls?: string) =>
      openAsGraph(graph, uri instanceof vscode.Uri ? uri : undefined, typeof cls === 'string' ? cls : undefined)),
    vscode.commands.registerCommand('tvis.changeInputs', (uri?: vscode.Uri, cls?: string) =>
      openAsGraph(graph, uri instanceof vscode.Uri ? uri : undefined, typeof cls === 'string' ? cls : undefined, true)),
    vscode.commands.registerCommand('tvis.openRun', async (uri?: vscode.Uri) => {
      let file = uri instanceof vscode.Uri ? uri.fsPath : undefined;
      if (!file) {
        const picked = await vscode.window.showOpenDialog({ canSelectFiles: true, canSelectFolders: true,
          filters: { 'tvis runs': ['tvis'] }, openLabel: 'Open Run' });
        file = picked?.[0]?.fsPath;
      }
      if (!file) return undefined;
      try { return await openRun(file); } catch (e) {
        if (!(e instanceof Refusal)) throw e;
        void vscode.window.showErrorMessage(e.message);
        return undefined;
      }
    }),
    vscode.commands.registerCommand('tvis.recordScript', async (uri?: vscode.Uri) => {
      const r = await recordScript(context, out, uri instanceof vscode.Uri ? uri : undefined);
      if (r.status === 'recorded' && r.run) return openRun(r.run);
      if (r.status === 'failed') void vscode.window.showErrorMessage(r.message || 'tvis run failed');
      return undefined;
    }),
    // A finding's code action: its run's panel (opened again when closed) at
    // the finding's position.
    vscode.commands.registerCommand('tvis.showFinding', async (run: string, position: Record<string, string>) => {
      if (typeof run !== 'string' || !position || typeof position !== 'object') return undefined;
      const open = runPanels.get(path.resolve(run));
      if (!open || open.disposed) return openRun(run, position);
      open.panel.reveal();
      await open.command({ link: position });
      return open;
    }),
    vscode.commands.registerCommand('tvis.selectInterpreter', async () => {
      const chosen = await selectInterpreter(context.workspaceState);
      if (chosen !== undefined) { out.appendLine(`interpreter for this workspace: ${chosen || '(forgotten)'}`); void refreshLenses(); }
      return chosen;
    }),
    vscode.commands.registerCommand('tvis.forgetChoice', async (cls?: string) => {
      const keys = context.workspaceState.keys().filter((k) => k.startsWith(CHOICE_KEY('')));
      for (const k of keys) if (!cls || k === CHOICE_KEY(cls)) await context.workspaceState.update(k, undefined);
    }),
  );
  return { graph, openAsGraph, openRun, findings, runPanels, recordScript, refreshLenses, lenses };
}

export function deactivate(): void { /* panels and channels are disposed with the context */ }
