// Shared by the suites: the activated extension's API and the workspace.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { TvisApi } from '../../src/extension';

export async function api(): Promise<TvisApi> {
  const ext = vscode.extensions.getExtension<TvisApi>('tvis.tvis');
  if (!ext) throw new Error('extension tvis.tvis not loaded');
  return ext.isActive ? ext.exports : await ext.activate();
}

export function root(): string { return vscode.workspace.workspaceFolders![0].uri.fsPath; }
export function wsFile(rel: string): string { return path.join(root(), rel); }
export function modelUri(): vscode.Uri { return vscode.Uri.file(wsFile('audit_models.py')); }
export function read(rel: string): string { return fs.readFileSync(wsFile(rel), 'utf8'); }

export async function setSetting(section: string, key: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration(section).update(key, value, vscode.ConfigurationTarget.Workspace);
}

// Polls `get` until it returns a truthy value (the webview answers asynchronously).
export async function until<T>(get: () => Promise<T>, ms = 60000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (v || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}
