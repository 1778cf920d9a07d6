// codelens.ts: "Open as Graph" above each model class that `tvis profiles
// --json` discovers (read from the source, nothing imported). The classes are
// re-read when a Python file or tensorviz.toml is saved; in an untrusted
// workspace there are none (discovery runs the interpreter's ast reader).
import * as path from 'path';
import * as vscode from 'vscode';
import { ClassJson } from './profiles';

export class ModelLensProvider implements vscode.CodeLensProvider {
  private classes: ClassJson[] = [];
  private root = '';
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  update(root: string, classes: ClassJson[]): void {
    this.root = root;
    this.classes = classes;
    this.changed.fire();
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    if (!this.root) return [];
    const rel = path.relative(this.root, doc.uri.fsPath).split(path.sep).join('/');
    return this.classes.filter((c) => c.file === rel).map((c) => {
      const line = Math.max(0, c.line - 1);
      return new vscode.CodeLens(new vscode.Range(line, 0, line, 0), {
        title: 'tvis: Open as Graph', command: 'tvis.openAsGraph',
        arguments: [doc.uri, c.class], tooltip: `Capture ${c.class} with its saved profile and show its graph`,
      });
    });
  }
}
