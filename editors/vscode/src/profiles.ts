// profiles.ts: `tvis profiles --json` (reads the workspace, imports nothing)
// and what it says about tensorviz.toml as Problems diagnostics: every
// file-level and per-profile problem at its line. The keys read here are the
// fixed ones of docs/profiles.md "--json".
import * as path from 'path';
import * as vscode from 'vscode';
import { LogChannel, Refusal, runTvis } from './tvis_cli';

export interface ProblemJson { message: string; text?: string; field?: string | null; line?: number | null; column?: number | null }
export interface ProfileJson { name: string; model: string; kind: string; valid: boolean; errors: ProblemJson[]; line: number;
                               factory?: { file?: string } | null; input_factory?: { file?: string } | null; inputs?: unknown }
export interface ClassJson { class: string; module: string; name: string; file: string; line: number; declaration?: unknown }
export interface RequestJson { request: { class?: string; profile?: string };
                               resolution: { status: string; profile?: string | null; candidates?: string[]; reason?: string | null } }
export interface ProfilesJson { workspace: string; config: string | null; valid: boolean; errors: ProblemJson[];
                                profiles: ProfileJson[]; classes: ClassJson[]; requests: RequestJson[] }

export async function readProfiles(out: LogChannel, tvis: string, root: string, python: string): Promise<ProfilesJson> {
  const r = await runTvis(out, tvis, ['profiles', '--json', '--workspace', root, '--python', python], root);
  let j: ProfilesJson;
  try { j = JSON.parse(r.stdout); } catch {
    throw new Refusal(`tvis profiles failed (exit ${r.code}): ${r.stderr.trim().split('\n').pop() || 'no output'} (details in Output → tvis)`);
  }
  return j;
}

// Every problem of the config, with where it is (1-based line/column from tvis).
export function configProblems(j: ProfilesJson): ProblemJson[] {
  return [...j.errors, ...j.profiles.flatMap((p) => p.errors.map((e) => ({ ...e, line: e.line ?? p.line })))];
}

export function problemText(j: ProfilesJson, e: ProblemJson): string {
  if (e.text) return e.text;
  const file = j.config ? path.basename(j.config) : 'tensorviz.toml';
  return `${file}:${e.line ?? 1}:${e.column ?? 1}: ${e.field ? e.field + ': ' : ''}${e.message}`;
}

// Replaces the config's Problems with `j`'s (none when it is valid).
export function publishConfigDiagnostics(coll: vscode.DiagnosticCollection, j: ProfilesJson): void {
  coll.clear();
  if (!j.config) return;
  const diags = configProblems(j).map((e) => {
    const line = Math.max(0, (e.line ?? 1) - 1), col = Math.max(0, (e.column ?? 1) - 1);
    const d = new vscode.Diagnostic(new vscode.Range(line, col, line, col + 1000),
      (e.field ? e.field + ': ' : '') + e.message, vscode.DiagnosticSeverity.Error);
    d.source = 'tvis';
    return d;
  });
  coll.set(vscode.Uri.file(j.config), diags);
}
