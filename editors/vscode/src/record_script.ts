// record_script.ts: "tvis: Record This Script". `tvis run --python PYTHON
// SCRIPT` on the active Python file, shown in a VS Code terminal (an
// extension terminal: the extension starts tvis itself, so it knows when it
// ends and what it recorded), then the run opens in a viewer panel. The run
// is the path tvis run prints on its next-to-last stdout line
// ("tvis run: recorded <path to run.tvis>", docs/cli.md). Refusals as for
// Open as Graph: untrusted workspace, no tvis, no interpreter, unsaved file.
import * as cp from 'child_process';
import * as path from 'path';
import * as vscode from 'vscode';
import { resolveInterpreter } from './interpreter';
import { refuseDirty, workspaceRootFor } from './open_as_graph';
import { LogChannel, Refusal, findTvis, quoteArgs } from './tvis_cli';

export interface RecordResult { status: 'recorded' | 'failed' | 'refused'; message?: string; run?: string; code?: number | null }

export async function recordScript(ext: vscode.ExtensionContext, out: LogChannel, uri: vscode.Uri | undefined,
                                   extraArgs: string[] = []): Promise<RecordResult> {
  try {
    if (!vscode.workspace.isTrusted) throw new Refusal('This workspace is not trusted: tvis runs nothing here (Workspace Trust).');
    uri = uri || vscode.window.activeTextEditor?.document.uri;
    if (!uri || path.extname(uri.fsPath) !== '.py') throw new Refusal('Open the Python training script to record first.');
    const root = workspaceRootFor(uri);
    const tvis = findTvis();
    const python = await resolveInterpreter(ext.workspaceState, vscode.Uri.file(root));
    refuseDirty(root, [uri.fsPath]);
    const runs = ext.storageUri ? vscode.Uri.joinPath(ext.storageUri, 'records').fsPath : path.join(root, 'tvis_runs');
    const args = ['run', '--python', python.path, '--out', runs, ...extraArgs, uri.fsPath];
    out.appendLine(`$ ${quoteArgs([tvis, ...args])}`);
    return await new Promise<RecordResult>((resolve) => {
      const write = new vscode.EventEmitter<string>();
      const close = new vscode.EventEmitter<number | void>();
      let child: cp.ChildProcess | undefined;
      let stdout = '';
      const term = vscode.window.createTerminal({ name: `tvis run ${path.basename(uri!.fsPath)}`, pty: {
        onDidWrite: write.event, onDidClose: close.event,
        open: () => {
          write.fire(`$ ${quoteArgs([tvis, ...args])}\r\n`);
          child = cp.spawn(tvis, args, { cwd: path.dirname(uri!.fsPath), stdio: ['ignore', 'pipe', 'pipe'] });
          const show = (d: Buffer) => write.fire(d.toString().replace(/\r?\n/g, '\r\n'));
          child.stdout!.on('data', (d: Buffer) => { stdout += d; show(d); });
          child.stderr!.on('data', show);
          child.on('error', (err) => { write.fire(`${err}\r\n`); resolve({ status: 'failed', message: String(err) }); });
          child.on('close', (code) => {
            write.fire(`\r\n[tvis run exited with ${code}]\r\n`);
            const m = /^tvis run: recorded (.+)$/m.exec(stdout);
            out.appendLine(`tvis run exited with ${code}${m ? `: ${m[1]}` : ''}`);
            resolve(m ? { status: 'recorded', run: m[1].trim(), code } : { status: 'failed', code,
              message: `tvis run exited with ${code} without recording a run (see the terminal)` });
          });
        },
        close: () => { child?.kill('SIGTERM'); },   // the user closed the terminal: the recording is stopped
      } });
      term.show(true);
    });
  } catch (e) {
    if (e instanceof Refusal) {
      out.appendLine(`refused: ${e.message}`);
      void vscode.window.showErrorMessage(e.message);
      return { status: 'refused', message: e.message };
    }
    throw e;
  }
}
