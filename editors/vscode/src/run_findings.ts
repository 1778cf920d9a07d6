// run_findings.ts: `tvis diagnose` findings of a run opened in a panel, in
// VS Code's Problems panel. Each finding whose JSON carries `source` {file,
// line} (docs/diagnose.md: the module's definition in the project's code, or
// the line of the user's code that calls it) becomes a diagnostic there, with
// the code action "tvis: Show Finding in the Viewer" (command
// tvis.showFinding) that opens the run's panel at the finding's `position`.
// The diagnostics of a run are replaced when it is diagnosed again and
// removed when its panel closes. Runs nothing in an untrusted workspace (the
// tvis command itself may come from a workspace setting).
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { LogChannel, Refusal, findTvis, runTvis } from './tvis_cli';

export interface FindingEntry {
  uri: string;           // the file's URI string
  line: number;          // 0-based
  message: string;       // the diagnostic's message
  run: string;           // the run.tvis the finding is of
  position: Record<string, unknown>;  // the viewer link object (diagnose's `position`)
}

export class RunFindings implements vscode.CodeActionProvider {
  readonly collection = vscode.languages.createDiagnosticCollection('tvis diagnose');
  readonly entries: FindingEntry[] = [];
  // run -> its recorded project folder, as a finding's source shows it
  // (`file` = the folder + `display`), for the panel's source links.
  readonly projectDirs = new Map<string, string>();

  constructor(private readonly out: LogChannel) {}

  // Runs `tvis diagnose --json RUN` and publishes its located findings; the
  // number published, or -1 when nothing was run or the run was not judged.
  async publish(run: string): Promise<number> {
    this.clear(run);
    if (!vscode.workspace.isTrusted) return -1;
    let tvis: string;
    try { tvis = findTvis(); } catch (e) {
      if (!(e instanceof Refusal)) throw e;
      this.out.appendLine(`findings not read: ${e.message}`);
      return -1;
    }
    const r = await runTvis(this.out, tvis, ['diagnose', '--json', run], path.dirname(run));
    if (r.code !== 0 && r.code !== 1) { this.out.appendLine(`tvis diagnose exited with ${r.code}: no findings shown`); return -1; }
    let report: any;
    try { report = JSON.parse(r.stdout); } catch { this.out.appendLine('tvis diagnose printed no JSON'); return -1; }
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const [uri, list] of this.collection) byFile.set(uri.toString(), [...list]);
    let published = 0;
    for (const f of report.findings || []) {
      const src = f.source;
      if (src && typeof src.file === 'string' && typeof src.display === 'string' && !path.isAbsolute(src.display) &&
          src.file.endsWith(path.sep + src.display)) {
        this.projectDirs.set(run, src.file.slice(0, src.file.length - src.display.length - 1));
      }
      const file = this.locate(f.source, run);
      if (!file) continue;
      const line = Math.max(0, Number(f.source.line) - 1);
      const message = `${f.message}`;
      const width = (fs.readFileSync(file, 'utf8').split('\n')[line] || '').length;   // the whole line
      const d = new vscode.Diagnostic(new vscode.Range(line, 0, line, width), message,
        f.severity === 'error' ? vscode.DiagnosticSeverity.Error
          : f.severity === 'warning' ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Information);
      d.source = 'tvis diagnose';
      d.code = f.kind;
      const uri = vscode.Uri.file(file);
      byFile.set(uri.toString(), [...(byFile.get(uri.toString()) || []), d]);
      this.entries.push({ uri: uri.toString(), line, message, run, position: f.position });
      published += 1;
    }
    for (const [uri, list] of byFile) this.collection.set(vscode.Uri.parse(uri), list);
    this.out.appendLine(`tvis diagnose: ${(report.findings || []).length} finding(s), ${published} shown in Problems`);
    return published;
  }

  // The finding's file on this machine: `source.file` when it exists, else
  // its display path (relative to the recorded project) under a workspace
  // folder; undefined when neither is here.
  private locate(source: any, run: string): string | undefined {
    if (!source || typeof source.file !== 'string' || !(Number(source.line) > 0)) return undefined;
    if (fs.existsSync(source.file)) return source.file;
    for (const folder of vscode.workspace.workspaceFolders || []) {
      const p = path.join(folder.uri.fsPath, String(source.display || ''));
      if (source.display && fs.existsSync(p)) return p;
    }
    this.out.appendLine(`finding of ${run}: ${source.file}:${source.line} is not on this machine`);
    return undefined;
  }

  // Removes the diagnostics of `run`.
  clear(run: string): void {
    const keep = this.entries.filter((e) => e.run !== run);
    if (keep.length === this.entries.length) return;
    this.entries.splice(0, this.entries.length, ...keep);
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const [uri, list] of this.collection) {
      byFile.set(uri.toString(), list.filter((d) => keep.some((e) => e.uri === uri.toString() && e.line === d.range.start.line && e.message === d.message)));
    }
    for (const [uri, list] of byFile) this.collection.set(vscode.Uri.parse(uri), list);
  }

  provideCodeActions(doc: vscode.TextDocument, _range: vscode.Range, ctx: vscode.CodeActionContext): vscode.CodeAction[] {
    const actions: vscode.CodeAction[] = [];
    for (const d of ctx.diagnostics) {
      if (d.source !== 'tvis diagnose') continue;
      const e = this.entries.find((x) => x.uri === doc.uri.toString() && x.line === d.range.start.line && x.message === d.message);
      if (!e) continue;
      const a = new vscode.CodeAction('tvis: Show Finding in the Viewer', vscode.CodeActionKind.QuickFix);
      a.diagnostics = [d];
      a.command = { title: a.title, command: 'tvis.showFinding', arguments: [e.run, e.position] };
      actions.push(a);
    }
    return actions;
  }

  dispose(): void { this.collection.dispose(); }
}
