// viewer_glue.js: the browser half of the wasm shell (linked with --post-js,
// so it shares the module's scope: HEAPU8, ccall, the exported _tvis_*).
//
// Sources. Every run the page opens is a JS source {size, name, read(o, n)}
// kept in `sources` by id; wasm reads it through Module.tvisRead, which
// answers asynchronously with _tvis_read_done. Offsets arrive as doubles.
//   - a File (Open button, drag-and-drop): Blob.slice(o, o+n).arrayBuffer();
//     the file is never copied whole into wasm memory.
//   - a URL (?url=): HTTP Range requests. A server that ignores Range (200
//     with the whole body, like Python's http.server) is detected on the
//     first request; the page then keeps that one full fetch in JS memory.
// After every await the heap may have grown: HEAPU8 is read afresh.
//
// Test surface: window.tvisViewer.state() returns INTERFACES.md's object.

(function () {
  'use strict';
  const sources = new Map();
  let nextSourceId = 1;

  function addSource(src) {
    const id = nextSourceId++;
    sources.set(id, src);
    return id;
  }

  // A new user action replaces what was open: forget older sources.
  function resetSources() { sources.clear(); }

  function blobSource(blob, name) {
    return {
      size: blob.size,
      name: name,
      read: (offset, length) => blob.slice(offset, offset + length).arrayBuffer(),
    };
  }

  function httpSource(url, size) {
    return {
      size: size,
      name: url,
      read: async (offset, length) => {
        const last = offset + length - 1;
        const r = await fetch(url, { headers: { Range: `bytes=${offset}-${last}` } });
        if (r.status === 206) return r.arrayBuffer();
        if (r.status === 200) return (await r.arrayBuffer()).slice(offset, offset + length);
        throw new Error(`HTTP ${r.status} ${r.statusText} for bytes ${offset}-${last} of ${url}`);
      },
    };
  }

  function callString(fn, args) {
    Module.ccall(fn, null, args.map((a) => (typeof a === 'string' ? 'string' : 'number')), args);
  }

  Module.tvisRead = function (sourceId, request, offset, length, dest) {
    const src = sources.get(sourceId);
    const fail = (msg) => callString('tvis_read_done', [request, 0, String(msg)]);
    if (!src) { fail('the run was closed'); return; }
    src.read(offset, length).then((buf) => {
      if (buf.byteLength !== length) {
        fail(`${src.name}: short read, ${buf.byteLength} of ${length} bytes at offset ${offset}`);
        return;
      }
      HEAPU8.set(new Uint8Array(buf), dest);  // HEAPU8 as of now: memory may have grown
      _tvis_read_done(request, 1, 0);
    }, (err) => fail(`${src.name}: ${err && err.message ? err.message : err}`));
  };

  function openSource(src) {
    resetSources();
    const id = addSource(src);
    callString('tvis_open_js_source', [id, src.size, src.name]);
  }

  function showError(message) {
    resetSources();
    callString('tvis_show_error', [message]);
  }

  function openFile(file) {
    openSource(blobSource(file, file.name));
  }

  // Opens a run by URL with Range requests (or one full fetch; see top).
  async function openUrl(url) {
    let r;
    try {
      r = await fetch(url, { headers: { Range: 'bytes=0-0' } });
    } catch (err) {
      showError(`Cannot reach ${url}: ${err && err.message ? err.message : err}`);
      return;
    }
    if (r.status === 206) {
      const m = /\/(\d+)\s*$/.exec(r.headers.get('Content-Range') || '');
      if (m) {
        await r.arrayBuffer().catch(() => {});
        openSource(httpSource(url, Number(m[1])));
        return;
      }
      r = await fetch(url).catch(() => null);  // size unknown: one full fetch
      if (!r) { showError(`Cannot reach ${url}`); return; }
    }
    if (r.status === 416) {  // Range on an empty file
      openSource(blobSource(new Blob([]), url));
      return;
    }
    if (!r.ok) {
      showError(`Cannot open ${url}: HTTP ${r.status} ${r.statusText}`);
      return;
    }
    try {
      const whole = await r.arrayBuffer();  // the server ignored Range
      openSource(blobSource(new Blob([whole]), url));
    } catch (err) {
      showError(`Cannot read ${url}: ${err && err.message ? err.message : err}`);
    }
  }

  // --- a dropped runs folder: every run.tvis below it (two levels deep) ------
  function readEntries(dir) {
    return new Promise((resolve) => {
      const reader = dir.createReader();
      const all = [];
      const next = () => reader.readEntries((batch) => {
        if (!batch.length) { resolve(all); return; }
        all.push(...batch);
        next();
      }, () => resolve(all));
      next();
    });
  }

  async function findRuns(entry, depth, out) {
    if (entry.isFile && entry.name.endsWith('.tvis')) {
      const file = await new Promise((res, rej) => entry.file(res, rej)).catch(() => null);
      if (file) out.push({ file, name: entry.fullPath.split('/').slice(-2, -1)[0] || file.name });
    } else if (entry.isDirectory && depth < 3) {
      for (const child of await readEntries(entry)) await findRuns(child, depth + 1, out);
    }
  }

  async function openDropped(dataTransfer) {
    const items = Array.from(dataTransfer.items || []);
    const entries = items.map((i) => (i.webkitGetAsEntry ? i.webkitGetAsEntry() : null)).filter(Boolean);
    if (entries.length === 1 && entries[0].isFile) { openFile(dataTransfer.files[0]); return; }
    if (!entries.length) {
      if (dataTransfer.files.length) openFile(dataTransfer.files[0]);
      return;
    }
    const runs = [];
    for (const e of entries) await findRuns(e, 0, runs);
    if (!runs.length) { showError('No run found in what was dropped (expected run.tvis files).'); return; }
    if (runs.length === 1) { openFile(runs[0].file); return; }
    runs.sort((a, b) => (a.name < b.name ? 1 : -1));  // run folders start with a timestamp: newest first
    resetSources();
    _tvis_run_list_begin();
    for (const run of runs) {
      const id = addSource(blobSource(run.file, run.file.name));
      callString('tvis_run_list_add', [id, run.file.size, run.name, run.file.name]);
    }
    _tvis_run_list_end();
  }

  function fitCanvas() {
    _tvis_resize(Math.max(1, window.innerWidth), Math.max(1, window.innerHeight));
  }

  // Called by main() once the app exists.
  Module.tvisStart = function () {
    fitCanvas();
    window.addEventListener('resize', fitCanvas);
    const input = document.getElementById('tvis-file');
    if (input) {
      input.addEventListener('change', () => {
        if (input.files && input.files.length) openFile(input.files[0]);
        input.value = '';
      });
    }
    const overlay = document.getElementById('tvis-drop');
    document.addEventListener('dragover', (e) => {
      e.preventDefault();
      if (overlay) overlay.classList.add('active');
    });
    document.addEventListener('dragleave', (e) => {
      if (overlay && e.target === overlay) overlay.classList.remove('active');
    });
    document.addEventListener('drop', (e) => {
      e.preventDefault();
      if (overlay) overlay.classList.remove('active');
      if (e.dataTransfer) openDropped(e.dataTransfer);
    });
    window.tvisViewer.ready = true;
    const url = new URLSearchParams(window.location.search).get('url');
    if (url) openUrl(new URL(url, window.location.href).href);
  };

  window.tvisViewer = {
    ready: false,
    state: () => JSON.parse(UTF8ToString(_tvis_state_json())),
    // Tests: the Explore row of event `id` as [x0, y0, x1, y1] (CSS px) or null.
    eventRowRect: (id) => JSON.parse(UTF8ToString(_tvis_event_row_rect_json(id))),
    openUrl: openUrl,
    openFile: openFile,
  };
})();
