// setup_panel.ts: tvis's setup form (`tvis graph MODULE:CLASS --setup`'s
// page, tools/cli/setup_form.html, bundled by tools/vsix as
// media/setup_form.html) in a webview: the same fields and the same rules,
// because the page is the same and every answer comes from tvis itself.
// The page's three requests are carried by messages instead of HTTP:
//   /api/setup/model   `tvis graph CLASS --setup-model` (the form's model)
//   /api/setup/save    `tvis graph CLASS --setup-splice -` (the form's fields
//                      on stdin): tvis splices and checks the new
//                      tensorviz.toml text and writes nothing; the extension
//                      applies it as ONE WorkspaceEdit replacing the whole
//                      document (undoable with Ctrl+Z; generated blocks
//                      rewritten, every other byte as it was, because tvis's
//                      splice keeps them), then saves the document. A
//                      tensorviz.toml whose real path leaves the workspace is
//                      refused (tvis refuses it too); nothing is edited.
//   /api/setup/capture Open as Graph with the saved profile; the form closes
//                      and the class's graph panel shows the capture.
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { LogChannel, runTvis } from './tvis_cli';

export interface SetupTarget {
  root: string; tvis: string; python: string; cls: string;
  profile?: string;   // "Change inputs" of this profile ("" / undefined: a new setup)
}

// What a save did (tests read it): the profile written and the edit applied.
export interface SetupSaved { profile: string; file: string; created: boolean; replaced: boolean }

// Replaces `file`'s whole text by `text` as one WorkspaceEdit (created when
// missing) and saves it. The real path must stay inside `root`.
export async function applyConfigText(root: string, file: string, text: string): Promise<void> {
  const realRoot = fs.realpathSync(root);
  let real = file;
  try { real = fs.realpathSync(file); } catch { real = path.join(fs.realpathSync(path.dirname(file)), path.basename(file)); }
  if (real !== realRoot && !real.startsWith(realRoot + path.sep))
    throw new Error(`${file} leads to ${real}, outside the workspace ${root}: not edited (replace the link with the file)`);
  const uri = vscode.Uri.file(file);
  const edit = new vscode.WorkspaceEdit();
  if (!fs.existsSync(real)) {
    edit.createFile(uri, { ignoreIfExists: true });
    edit.insert(uri, new vscode.Position(0, 0), text);
  } else {
    const doc = await vscode.workspace.openTextDocument(uri);
    if (doc.isDirty) throw new Error(`Save first: ${path.relative(root, file)} has unsaved edits.`);
    const all = new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length));
    edit.replace(uri, all, text);
  }
  if (!await vscode.workspace.applyEdit(edit)) throw new Error(`VS Code did not apply the edit of ${file}`);
  const doc = await vscode.workspace.openTextDocument(uri);
  if (!await doc.save()) throw new Error(`${file} could not be saved`);
}

export class SetupPanel {
  readonly panel: vscode.WebviewPanel;
  disposed = false;
  saved: SetupSaved | undefined;
  private readonly pending = new Map<number, (v: any) => void>();
  private nextId = 1;

  constructor(extUri: vscode.Uri, private readonly out: LogChannel, private readonly t: SetupTarget,
              private readonly capture: (profile: string) => Promise<{ ok: boolean; message?: string }>) {
    this.panel = vscode.window.createWebviewPanel('tvis.setup', `Set up ${t.cls.split(':').pop()}`, vscode.ViewColumn.Active,
      { enableScripts: true, localResourceRoots: [] });
    this.panel.onDidDispose(() => { this.disposed = true; });
    const nonce = crypto.randomBytes(16).toString('base64');
    const page = fs.readFileSync(vscode.Uri.joinPath(extUri, 'media', 'setup_form.html').fsPath, 'utf8');
    const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'nonce-${nonce}';`;
    const shim = `<script nonce="${nonce}">
'use strict';
(() => {
  const host = acquireVsCodeApi();
  const waiting = new Map(); let next = 1;
  window.addEventListener('message', (e) => {
    const m = e.data || {};
    if (m.type === 'answer' && waiting.has(m.id)) { waiting.get(m.id)(m.body); waiting.delete(m.id); }
    if (m.type === 'test') {   // the extension's tests: the page's own functions, as a user's clicks would run them
      let value = null;
      if (m.op === 'fields') value = collect();
      if (m.op === 'fill') { fill(m.form); value = collect(); }
      if (m.op === 'save') { document.getElementById('save').click(); }
      if (m.op === 'ready') value = document.body.dataset.ready === '1';
      if (m.op === 'error') value = document.getElementById('error') ? document.getElementById('error').textContent : '';
      host.postMessage({ type: 'test-answer', id: m.id, value });
    }
  });
  window.fetch = (url, init) => new Promise((resolve) => {
    const id = next++;
    waiting.set(id, (body) => resolve({ status: 200, json: async () => body }));
    host.postMessage({ type: 'request', id, path: String(url).split('?')[0], body: init && init.body ? JSON.parse(init.body) : null });
  });
})();
</script>`;
    this.panel.webview.html = page
      .replace('<head>', `<head>\n<meta http-equiv="Content-Security-Policy" content="${csp}">`)
      .replace(/<script>/g, `<script nonce="${nonce}">`)
      .replace('</head>', `${shim}\n</head>`);
    this.panel.webview.onDidReceiveMessage(async (m: any) => {
      if (m?.type === 'test-answer') { this.pending.get(m.id)?.(m.value); this.pending.delete(m.id); return; }
      if (m?.type !== 'request' || typeof m.id !== 'number') return;
      let body: any;
      try { body = await this.answer(String(m.path), m.body); } catch (e) {
        body = { ok: false, message: (e as Error).message };
        this.out.appendLine(`setup form: ${body.message}`);
      }
      if (!this.disposed) void this.panel.webview.postMessage({ type: 'answer', id: m.id, body });
    });
  }

  private base(): string[] {
    return ['graph', this.t.cls, '--workspace', this.t.root, '--python', this.t.python];
  }

  private async answer(route: string, body: any): Promise<any> {
    if (route === '/api/setup/model') {
      const r = await runTvis(this.out, this.t.tvis, [...this.base(), '--setup-model'], this.t.root);
      const j = JSON.parse(r.stdout || 'null') || { ok: false, message: r.stderr.trim() || `tvis exit ${r.code}` };
      if (j.ok) j.profile = this.t.profile || '';
      return j;
    }
    if (route === '/api/setup/save') {
      const r = await runTvis(this.out, this.t.tvis, [...this.base(), '--setup-splice', '-'], this.t.root, undefined,
                              JSON.stringify(body?.form ?? null));
      let j: any = null;
      try { j = JSON.parse(r.stdout); } catch { j = null; }
      if (!j) return { ok: false, message: r.stderr.trim().split('\n').pop() || `tvis exit ${r.code}` };
      if (!j.ok) return j;
      await applyConfigText(this.t.root, j.file, j.text);
      this.saved = { profile: j.profile, file: j.file, created: j.created, replaced: j.replaced };
      this.out.appendLine(`setup form: saved profile ${j.profile} into ${j.file} (one undoable edit)`);
      return { ok: true, profile: j.profile, file: path.relative(this.t.root, j.file) || j.file };
    }
    if (route === '/api/setup/capture') {
      const c = await this.capture(String(body?.profile || ''));
      if (c.ok) { this.panel.dispose(); return { ok: true }; }
      return { ok: false, message: c.message || 'the capture did not run' };
    }
    return { ok: false, message: `no such request: ${route}` };
  }

  // Tests: runs one of the page's own operations (see the shim above).
  test(op: string, extra: object = {}): Promise<any> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      void this.panel.webview.postMessage({ type: 'test', id, op, ...extra });
    });
  }
}
