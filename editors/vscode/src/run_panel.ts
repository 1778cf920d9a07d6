// run_panel.ts: a webview panel running the project's own wasm viewer
// (media/viewer/viewer.{html,js,wasm}, bundled by tools/vsix) on one run.
//
// The run is never copied to the webview whole and never named to it by
// path: the extension host opens the file and answers the webview's range
// requests ({type: 'read', id, offset, length}) from it, so a run on a
// Remote-SSH machine opens with nothing copied first. The webview names
// nothing but ranges of the run it was given: a request with any other key
// (a path, a URL), a range outside the file, or over MAX_READ bytes is
// refused with an error answer and logged.
//
// A call's source link in the viewer (the Inspector's "called from" /
// "defined at": window.tvisViewer.onSourceLink, wasm/main.cpp) arrives as
// {type: 'source', file, line}: `file` as the run names it (relative to the
// recorded project folder, or absolute). It opens in the editor at that line
// only when it resolves to an existing file inside a workspace folder or the
// run's recorded project folder (projectDir, when known); anything else is
// refused and logged to the tvis Output channel.
//
// Test surface: state() answers the viewer's window.tvisViewer.state()
// (docs/viewer_test_surface.md) by a message round trip.
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { LogChannel } from './tvis_cli';

export const MAX_READ = 64 * 1024 * 1024;   // the largest range one request may ask for

export class RunPanel {
  readonly panel: vscode.WebviewPanel;
  private fd: number | undefined;
  private size = 0;
  private runPath = '';
  private readonly pending = new Map<number, (v: any) => void>();
  private nextId = 1;
  private ready: Promise<void>;
  private markReady!: () => void;
  bytesSent = 0;          // bytes handed to the webview since the run was opened
  refused: string[] = []; // why each refused webview request was refused
  disposed = false;
  workspace = '';         // the workspace a capture shown here was made in ('' for a run opened otherwise)
  projectDir = '';        // the run's recorded project folder, when known (run_findings.ts learns it)
  opened: Array<{ file: string; line: number }> = [];   // source links opened in the editor
  private readonly onDisposedEmitter = new vscode.EventEmitter<void>();
  readonly onDisposed = this.onDisposedEmitter.event;

  constructor(private readonly extUri: vscode.Uri, private readonly out: LogChannel, title: string) {
    const viewerDir = vscode.Uri.joinPath(extUri, 'media', 'viewer');
    this.panel = vscode.window.createWebviewPanel('tvis.viewer', title, vscode.ViewColumn.Beside,
      { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [viewerDir] });
    this.ready = new Promise((r) => { this.markReady = r; });
    this.panel.webview.onDidReceiveMessage((m) => this.onMessage(m));
    this.panel.onDidDispose(() => { this.disposed = true; this.closeRun(); this.onDisposedEmitter.fire(); });
    this.panel.webview.html = this.html(viewerDir);
  }

  // Opens `runFile` in the viewer (replacing what it showed), with `link`
  // (a viewer link such as {page: 'Graph'}) applied once it is open.
  async open(runFile: string, link?: Record<string, string>): Promise<void> {
    this.closeRun();
    this.fd = fs.openSync(runFile, 'r');
    this.size = fs.fstatSync(this.fd).size;
    this.runPath = runFile;
    this.bytesSent = 0;
    await this.ready;
    // The name the viewer shows and reports as state().run.source: the run's
    // folder and file name (each capture has its own folder).
    const name = path.join(path.basename(path.dirname(runFile)), path.basename(runFile));
    this.panel.webview.postMessage({ type: 'open', size: this.size, name, link: link || null });
  }

  get run(): string { return this.runPath; }

  // The viewer's state() (docs/viewer_test_surface.md), or null before it is ready.
  state(timeoutMs = 5000): Promise<any> { return this.ask({ type: 'state' }, timeoutMs); }

  // One viewer command (window.tvisViewer.command(obj)).
  command(cmd: unknown, timeoutMs = 5000): Promise<any> { return this.ask({ type: 'command', command: cmd }, timeoutMs); }

  dispose(): void { this.panel.dispose(); }

  private ask(msg: Record<string, unknown>, timeoutMs: number): Promise<any> {
    if (this.disposed) return Promise.resolve(null);
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.pending.delete(id); resolve(null); }, timeoutMs);
      this.pending.set(id, (v) => { clearTimeout(timer); resolve(v); });
      this.panel.webview.postMessage({ ...msg, id });
    });
  }

  private closeRun(): void {
    if (this.fd !== undefined) { try { fs.closeSync(this.fd); } catch { /* already closed */ } }
    this.fd = undefined;
  }

  private refuse(id: unknown, why: string): void {
    this.refused.push(why);
    this.out.appendLine(`viewer panel: refused a request: ${why}`);
    this.panel.webview.postMessage({ type: 'bytes', id, error: why });
  }

  // Webview → host. Only these shapes are answered; see the file comment.
  private onMessage(m: any): void {
    if (!m || typeof m !== 'object') return;
    if (m.type === 'ready') { this.markReady(); return; }
    if (m.type === 'answer' && typeof m.id === 'number') {
      const done = this.pending.get(m.id);
      this.pending.delete(m.id);
      done?.(m.value ?? null);
      return;
    }
    if (m.type === 'read') {
      const keys = Object.keys(m).sort().join(',');
      if (keys !== 'id,length,offset,type') { this.refuse(m.id, `only {id, offset, length} may be asked, not ${keys}`); return; }
      const { offset, length } = m;
      if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) {
        this.refuse(m.id, `not a byte range: offset ${offset}, length ${length}`); return;
      }
      if (this.fd === undefined) { this.refuse(m.id, 'no run is open'); return; }
      if (length > MAX_READ) { this.refuse(m.id, `range of ${length} bytes is over the ${MAX_READ}-byte limit`); return; }
      // A live run grows: the size is read again before refusing a range past it.
      if (offset + length > this.size) this.size = fs.fstatSync(this.fd).size;
      if (offset + length > this.size) {
        this.refuse(m.id, `bytes ${offset}..${offset + length} are outside the run (${this.size} bytes)`); return;
      }
      const buf = Buffer.alloc(length);
      let got = 0;
      while (got < length) {
        const n = fs.readSync(this.fd, buf, got, length - got, offset + got);
        if (n === 0) break;
        got += n;
      }
      this.bytesSent += got;
      this.panel.webview.postMessage({ type: 'bytes', id: m.id, data: new Uint8Array(buf.buffer, buf.byteOffset, got) });
      return;
    }
    if (m.type === 'source') { void this.openSource(m.file, m.line); return; }
    this.out.appendLine(`viewer panel: ignored a message of type ${String(m.type).slice(0, 40)}`);
  }

  // The file a source link names, resolved as the file comment says, or a
  // refusal (a string starting "refused").
  resolveSource(file: unknown, line: unknown): string {
    if (typeof file !== 'string' || !file || file.includes('\0') || !Number.isSafeInteger(line) || (line as number) < 1) {
      return `refused a source link: not a file and line (${String(file).slice(0, 200)}:${String(line)})`;
    }
    const roots = [...(vscode.workspace.workspaceFolders || []).map((f) => f.uri.fsPath), ...(this.projectDir ? [this.projectDir] : [])];
    const real = (p: string) => { try { return fs.realpathSync(p); } catch { return ''; } };
    for (const root of roots) {
      const base = real(root);
      const target = real(path.isAbsolute(file) ? file : path.join(root, file));
      if (!base || !target || !fs.statSync(target).isFile()) continue;
      const rel = path.relative(base, target);
      if (rel && rel.split(path.sep)[0] !== '..' && !path.isAbsolute(rel)) return target;
    }
    return `refused a source link: ${file} is not a file inside the workspace folders or the run's project folder`;
  }

  private async openSource(file: unknown, line: unknown): Promise<void> {
    const target = this.resolveSource(file, line);
    if (target.startsWith('refused')) { this.refused.push(target); this.out.appendLine(`viewer panel: ${target}`); return; }
    const at = new vscode.Position((line as number) - 1, 0);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(target));
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, selection: new vscode.Range(at, at) });
    this.opened.push({ file: target, line: line as number });
  }

  private html(viewerDir: vscode.Uri): string {
    const webview = this.panel.webview;
    const nonce = crypto.randomBytes(16).toString('base64');
    let page = fs.readFileSync(vscode.Uri.joinPath(viewerDir, 'viewer.html').fsPath, 'utf8');
    const csp = `default-src 'none'; img-src ${webview.cspSource} data:; style-src ${webview.cspSource} 'unsafe-inline'; ` +
      `font-src ${webview.cspSource}; connect-src ${webview.cspSource}; ` +
      `script-src 'nonce-${nonce}' 'wasm-unsafe-eval' ${webview.cspSource};`;
    const base = webview.asWebviewUri(viewerDir).toString() + '/';
    page = page.replace('<head>', `<head>\n<meta http-equiv="Content-Security-Policy" content="${csp}">\n<base href="${base}">`);
    // The page's own Open buttons pick local files of the browser: in the
    // panel the run comes from the extension host, so they are hidden.
    page = page.replace('</style>', '  #tvis-buttons { display: none !important; }\n</style>');
    page = page.replace(/ oncontextmenu="[^"]*"/, '');
    page = page.replace(/<script>/g, `<script nonce="${nonce}">`);
    page = page.replace('<script src="viewer.js"></script>',
      `<script nonce="${nonce}">${BRIDGE}</script>\n<script nonce="${nonce}" src="${base}viewer.js"></script>`);
    return page;
  }
}

// The webview half: a file-like object whose slices are answered by the
// extension host (viewer_glue.js reads a File through size/name/slice), the
// state()/command() answers for the host, and the first-ready signal.
const BRIDGE = `
(function () {
  const vscode = acquireVsCodeApi();
  const waiting = new Map();
  let next = 1;
  document.getElementById('canvas').addEventListener('contextmenu', (e) => e.preventDefault());
  function read(offset, length) {
    const id = next++;
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      vscode.postMessage({ type: 'read', id, offset, length });
    });
  }
  function hostFile(size, name) {
    return { size, name, slice: (a, b) => ({ arrayBuffer: () => read(a, b - a) }) };
  }
  window.addEventListener('message', (e) => {
    const m = e.data || {};
    if (m.type === 'bytes') {
      const w = waiting.get(m.id); waiting.delete(m.id);
      if (!w) return;
      if (m.error) w.reject(new Error(m.error));
      else { const d = m.data; w.resolve(d.buffer.slice(d.byteOffset, d.byteOffset + d.byteLength)); }
    } else if (m.type === 'open') {
      window.tvisPanelOpens = (window.tvisPanelOpens || 0) + 1;   // tests: how many runs were handed over
      if (m.link) window.tvisViewer.command({ link: m.link });
      window.tvisViewer.openFile(hostFile(m.size, m.name));
    } else if (m.type === 'state') {
      let value = null;
      try { value = window.tvisViewer && window.tvisViewer.ready ? window.tvisViewer.state() : null; } catch (err) { value = null; }
      vscode.postMessage({ type: 'answer', id: m.id, value });
    } else if (m.type === 'command') {
      let value = null;
      try { value = window.tvisViewer.command(m.command); } catch (err) { value = String(err); }
      vscode.postMessage({ type: 'answer', id: m.id, value });
    }
  });
  const wait = setInterval(() => {
    if (window.tvisViewer && window.tvisViewer.ready) {
      clearInterval(wait);
      // A call's source link: the host opens the file in the editor (or refuses it).
      window.tvisViewer.onSourceLink = (file, line) => vscode.postMessage({ type: 'source', file, line });
      vscode.postMessage({ type: 'ready' });
    }
  }, 20);
})();
`;
