// tvis_cli.ts: finding the `tvis` command and running it. Every command line
// run is logged to the "tvis" Output channel first; a run's stderr follows it
// there. Contract: nothing here runs in an untrusted workspace (callers check
// workspace_trust.ts first) and the interpreter is always passed explicitly.
import * as cp from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';

export class Refusal extends Error {}   // a request refused with a message for the user

// The "tvis" Output channel; the last lines are also kept in memory, so the
// extension's tests can read what the user would see there.
export class LogChannel implements vscode.Disposable {
  readonly lines: string[] = [];
  private readonly channel: vscode.OutputChannel;
  constructor(name: string) { this.channel = vscode.window.createOutputChannel(name); }
  appendLine(text: string): void {
    this.channel.appendLine(text);
    this.lines.push(...text.split('\n'));
    if (this.lines.length > 5000) this.lines.splice(0, this.lines.length - 5000);
  }
  show(preserveFocus?: boolean): void { this.channel.show(preserveFocus); }
  dispose(): void { this.channel.dispose(); }
}

export function isExecutableFile(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch { return false; }
}

// The tvis command: the `tvis.path` setting when set (a missing one refuses,
// naming the setting), else the first executable `tvis` on PATH.
export function findTvis(): string {
  const set = (vscode.workspace.getConfiguration('tvis').get<string>('path') || '').trim();
  if (set) {
    if (isExecutableFile(set)) return set;
    throw new Refusal(`tvis.path: ${set}: no such executable. Fix the tvis.path setting (or empty it to use tvis from PATH).`);
  }
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, 'tvis');
    if (isExecutableFile(p)) return p;
  }
  throw new Refusal('tvis not found: it is not on PATH and the tvis.path setting is empty. ' +
    'Install tvis (pip install the tvis wheel) or set tvis.path to the tvis command.');
}

export interface RunResult { code: number | null; signal: string | null; stdout: string; stderr: string; cancelled: boolean }

// Shell-style quoting for the log line only (the command runs without a shell).
export function quoteArgs(args: string[]): string {
  return args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

// Runs tvis with `args` in `cwd`, logging the command line; `token` cancels
// it (SIGTERM: tvis kills its worker and exits 130; SIGINT may be ignored
// by a process started in the background, and is inherited so).
export function runTvis(out: LogChannel, tvis: string, args: string[], cwd: string,
                        token?: vscode.CancellationToken, stdin?: string): Promise<RunResult> {
  out.appendLine(`$ ${quoteArgs([tvis, ...args])}`);
  return new Promise((resolve) => {
    const child = cp.spawn(tvis, args, { cwd, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (stdin !== undefined) child.stdin!.end(stdin);
    let stdout = '', stderr = '', cancelled = false;
    child.stdout!.on('data', (d) => { stdout += d; });
    child.stderr!.on('data', (d) => { stderr += d; });
    const sub = token?.onCancellationRequested(() => { cancelled = true; child.kill('SIGTERM'); });
    child.on('error', (err) => {
      sub?.dispose();
      resolve({ code: null, signal: null, stdout, stderr: stderr + String(err), cancelled });
    });
    child.on('close', (code, signal) => {
      sub?.dispose();
      if (stderr.trim()) out.appendLine(stderr.trimEnd());
      resolve({ code, signal, stdout, stderr, cancelled });
    });
  });
}
