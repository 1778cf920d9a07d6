// viewer_glue.js: the browser half of the wasm shell (linked with --post-js,
// so it shares the module's scope: HEAPU8, ccall, the exported _tvis_*).
//
// Sources. Every run the page opens is a JS source {size, name, read(o, n)}
// kept in `sources` by id; wasm reads it through Module.tvisRead, which
// answers asynchronously with _tvis_read_done. Offsets arrive as doubles.
//   - a File (Open button, drag-and-drop): Blob.slice(o, o+n).arrayBuffer();
//     the file is never copied whole into wasm memory.
//   - a URL (?url=): HTTP Range requests. Opening fetches the file's head and
//     tail in two concurrent requests (they also tell the size), so the
//     reader's header, trailer and footer reads, and usually the run
//     metadata, are answered from memory without further round trips. For
//     ?url= these requests start when this script runs, while the wasm is
//     still compiling. A server that ignores Range (200 with the whole body,
//     like Python's http.server) is detected on the first answer; the page
//     then keeps that one full fetch in JS memory.
// After every await the heap may have grown: HEAPU8 is read afresh.
//
// tvis open's token: a page it serves has ?token= in its URL; every fetch to
// the page's own origin carries it in an X-Tvis-Token header (tvisFetch), as
// tvis open requires (no cookie holds it: docs/cli.md). Its run list is one
// link away (#tvis-runs, /runs?token=).
//
// Test surface (docs/viewer_test_surface.md): window.tvisViewer.state() returns
// the viewer's state object and command(obj) runs one App::command().

(function () {
  'use strict';
  const sources = new Map();
  let nextSourceId = 1;

  // The session token of the tvis open that served this page, or null.
  const pageToken = (() => {
    try { return new URLSearchParams(window.location.search).get('token'); } catch (err) { return null; }
  })();

  // fetch(), with the page's token in X-Tvis-Token when `url` is on the
  // page's own origin (never sent elsewhere).
  function tvisFetch(url, init) {
    let same = false;
    try { same = new URL(url, window.location.href).origin === window.location.origin; } catch (err) { same = false; }
    if (!pageToken || !same) return fetch(url, init);
    const options = Object.assign({}, init || {});
    options.headers = Object.assign({}, options.headers || {}, { 'X-Tvis-Token': pageToken });
    return fetch(url, options);
  }

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

  // Bytes of the run already in JS memory: [{offset, bytes: Uint8Array}].
  // A read inside one is answered on the microtask queue (no round trip).
  function fromBlocks(blocks, offset, length) {
    for (const b of blocks)
      if (offset >= b.offset && offset + length <= b.offset + b.bytes.length) {
        const at = b.bytes.byteOffset + (offset - b.offset);
        return b.bytes.buffer.slice(at, at + length);
      }
    return null;
  }

  // recheck() (a live run, still being written): the size now, from a
  // one-byte Range request's Content-Range total; the bytes before the old
  // size never change (runs only grow), so `blocks` stay valid.
  function httpSource(url, size, blocks) {
    const src = {
      size: size,
      name: url,
      recheck: async () => {
        const r = await tvisFetch(url, { headers: { Range: 'bytes=0-0' }, cache: 'no-store' });
        if (r.status === 416) return 0;  // empty now
        const total = r.status === 206 ? rangeTotal(r) : null;
        if (total === null) {
          const why = (await r.text().catch(() => '')).trim().split('\n')[0];
          throw new Error(`HTTP ${r.status} ${r.statusText} rechecking the size of ${url}${why ? ': ' + why : ''}`);
        }
        src.size = total;
        return total;
      },
      read: async (offset, length) => {
        const held = fromBlocks(blocks, offset, length);
        if (held) return held;
        const last = offset + length - 1;
        const r = await tvisFetch(url, { headers: { Range: `bytes=${offset}-${last}` } });
        if (r.status === 206) return r.arrayBuffer();
        if (r.status === 200) return (await r.arrayBuffer()).slice(offset, offset + length);
        // The server's own line says why (tvis open: "connection to HOST:PATH lost ...").
        const why = (await r.text().catch(() => '')).trim().split('\n')[0];
        throw new Error(`HTTP ${r.status} ${r.statusText} for bytes ${offset}-${last} of ${url}${why ? ': ' + why : ''}`);
      },
    };
    return src;
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

  // A source's size now (ByteSource::recheck_size); a File's never changes.
  Module.tvisSize = function (sourceId, request) {
    const src = sources.get(sourceId);
    const fail = (msg) => callString('tvis_size_done', [request, 0, 0, String(msg)]);
    if (!src) { fail('the run was closed'); return; }
    const asked = src.recheck ? src.recheck() : Promise.resolve(src.size);
    asked.then((size) => _tvis_size_done(request, 1, size, 0), (err) => fail(`${src.name}: ${errorText(err)}`));
  };

  // The URL of the run shown, when it came from a URL (else null).
  let currentRunUrl = null;

  function openSource(src) {
    resetSources();
    const id = addSource(src);
    currentRunUrl = /^https?:/.test(src.name) ? src.name : null;
    callString('tvis_open_js_source', [id, src.size, src.name]);
  }

  function showError(message) {
    resetSources();
    currentRunUrl = null;
    callString('tvis_show_error', [message]);
  }

  // The Graph page's freshness (AppOptions::recheck_files; main.cpp calls
  // this): the page sees no files, so the server that served the run, when
  // it is tvis open (its /run/PATH), rechecks the files the profile capture
  // read (/api/freshness?run=PATH) and the answer reaches the page as a
  // {freshness} command. A run from elsewhere (a dropped file, a plain web
  // server) stays "not checked".
  Module.tvisRecheckFiles = function () {
    const url = currentRunUrl;
    let u = null;
    try { u = url ? new URL(url) : null; } catch (err) { u = null; }
    if (!u || u.origin !== window.location.origin || !u.pathname.startsWith('/run/')) return;
    const run = decodeURIComponent(u.pathname.slice('/run/'.length));
    tvisFetch('/api/freshness?run=' + encodeURIComponent(run), { cache: 'no-store' })
      .then((r) => (r.ok ? r.json() : null))
      .then((f) => {
        if (f && typeof f === 'object' && !Array.isArray(f) && currentRunUrl === url) window.tvisViewer.command({ freshness: f });
      })
      .catch(() => {});  // no answer: the page keeps saying "not checked"
  };

  function openFile(file) {
    openSource(blobSource(file, file.name));
  }

  // --- opening a URL ------------------------------------------------------------
  // The first and last bytes fetched at open: the file header, and the
  // trailer + footer (the index: ~18 bytes per chunk compressed, so 128 KiB
  // holds a run of ~7000 chunks) with the last RunMeta chunk written just
  // before it. A bigger footer costs one more request, nothing else.
  const HEAD_BYTES = 16 * 1024;
  const TAIL_BYTES = 128 * 1024;

  function errorText(err) { return err && err.message ? err.message : String(err); }

  // Total size from a 206's Content-Range ("bytes 0-16383/987065617"), or null.
  function rangeTotal(r) {
    const m = /\/(\d+)\s*$/.exec(r.headers.get('Content-Range') || '');
    return m ? Number(m[1]) : null;
  }

  // One answer of fetchEnds: {status, statusText, total, offset, bytes} or {error}.
  async function fetchRange(url, range, signal) {
    try {
      const r = await tvisFetch(url, { headers: { Range: range }, signal });
      const out = { status: r.status, statusText: r.statusText, total: rangeTotal(r), offset: 0, bytes: null };
      if (r.status === 206) {
        const m = /bytes\s+(\d+)-/.exec(r.headers.get('Content-Range') || '');
        out.offset = m ? Number(m[1]) : 0;
      }
      if (r.ok) out.bytes = new Uint8Array(await r.arrayBuffer());
      else out.why = (await r.text().catch(() => '')).trim().split('\n')[0];
      return out;
    } catch (err) {
      return { error: err };
    }
  }

  // Starts the two requests of an open (head and tail, concurrently). The
  // answer is {url, head: Promise, tail: Promise, abort()}.
  function fetchEnds(url) {
    const ctl = new AbortController();
    return {
      url: url,
      head: fetchRange(url, `bytes=0-${HEAD_BYTES - 1}`, ctl.signal),
      tail: fetchRange(url, `bytes=-${TAIL_BYTES}`, ctl.signal),
      abort: () => ctl.abort(),
    };
  }

  // ?url= starts fetching now, while the wasm compiles; openUrl picks it up.
  let early = null;
  try {
    const u = new URLSearchParams(window.location.search).get('url');
    if (u) early = fetchEnds(new URL(u, window.location.href).href);
  } catch (err) {
    early = null;  // a malformed ?url= is reported by openUrl
  }

  // Opens a run by URL with Range requests (or one full fetch; see top).
  // While its first requests answer, the shell holds its first frame (main.cpp).
  async function openUrl(url) {
    Module.tvisHoldFrames = true;
    try {
      await openUrlNow(url);
    } finally {
      Module.tvisHoldFrames = false;
    }
  }

  async function openUrlNow(url) {
    const found = await sourceForUrl(url);
    if (found.error) showError(found.error);
    else openSource(found.src);
  }

  // The JS source of the run at `url`: {src} or {error: one line}.
  async function sourceForUrl(url) {
    let ends = early && early.url === url ? early : fetchEnds(url);
    if (ends === early) early = null;
    const head = await ends.head;
    if (head.error) {
      ends.abort();
      return { error: `Cannot reach ${url}: ${errorText(head.error)}` };
    }
    if (head.status === 200) {  // the server ignored Range: this is the whole file
      ends.abort();
      return { src: blobSource(new Blob([head.bytes]), url) };
    }
    if (head.status === 416) {  // Range on an empty file
      ends.abort();
      return { src: blobSource(new Blob([]), url) };
    }
    if (head.status !== 206) {
      ends.abort();
      return { error: `Cannot open ${url}: HTTP ${head.status} ${head.statusText}${head.why ? ': ' + head.why : ''}` };
    }
    if (head.total === null) {  // size unknown: one full fetch
      ends.abort();
      const r = await tvisFetch(url).catch(() => null);
      if (!r || !r.ok) return { error: `Cannot open ${url}: ${r ? 'HTTP ' + r.status : 'unreachable'}` };
      try {
        return { src: blobSource(new Blob([await r.arrayBuffer()]), url) };
      } catch (err) {
        return { error: `Cannot read ${url}: ${errorText(err)}` };
      }
    }
    const blocks = [{ offset: 0, bytes: head.bytes }];
    const tail = await ends.tail;  // already in flight: no extra round trip
    if (tail.status === 206 && tail.total === head.total && tail.bytes) blocks.push({ offset: tail.offset, bytes: tail.bytes });
    return { src: httpSource(url, head.total, blocks) };
  }

  // ?url2= (or a later call): the run compared with the shown one (the Compare
  // page). Opened after the shown run, whose open forgets older sources.
  async function openCompareUrl(url) {
    Module.tvisHoldFrames = true;
    try {
      const found = await sourceForUrl(url);
      if (found.error) callString('tvis_show_compare_error', [found.error]);
      else callString('tvis_open_compare_js_source', [addSource(found.src), found.src.size, found.src.name]);
    } finally {
      Module.tvisHoldFrames = false;
    }
  }

  // --- a distributed run: one file per rank (docs/run_layout.md) -------------
  // The run-file rules are runs/run_file_names.h's, exported by wasm/run_rules.cpp:
  // run.tvis is rank 0, rank<k>.tvis rank k; -1 for other names.
  function rankOfName(name) {
    return Module.ccall('tvis_rank_of_name', 'number', ['string'], [name]);
  }

  // Hands rank sources [{rank, name, src}] to the App, showing `shown`.
  function openRankSources(ranks, shown) {
    resetSources();
    _tvis_ranks_begin();
    for (const r of ranks) callString('tvis_ranks_add', [addSource(r.src), r.src.size, r.rank, r.name]);
    _tvis_ranks_end(shown);
  }

  // ?url= names one rank file and ?rank_files= the names of every rank file
  // beside it (tvis open's run list writes both): each is opened as ?url= is,
  // all concurrently; the rank shown first is the one ?url= names.
  async function openRankUrls(url, names) {
    Module.tvisHoldFrames = true;
    try {
      const own = new URL(url).pathname.split('/').pop();
      const sibling = (name) => {
        const u = new URL(url);
        u.pathname = u.pathname.replace(/[^/]*$/, encodeURIComponent(name));
        return u.href;
      };
      const ranks = names.filter((n) => rankOfName(n) >= 0)
        .map((n) => ({ rank: rankOfName(n), name: n, url: n === own ? url : sibling(n) }));
      if (ranks.length < 2) { await openUrlNow(url); return; }
      const found = await Promise.all(ranks.map((r) => sourceForUrl(r.url)));
      const bad = found.find((f) => f.error);
      if (bad) { showError(bad.error); return; }
      ranks.forEach((r, i) => { r.src = found[i].src; });
      const asked = Number(new URLSearchParams(window.location.search).get('rank'));  // the link's rank=K
      openRankSources(ranks, ranks.some((r) => r.rank === asked) ? asked : Math.max(0, rankOfName(own)));
    } finally {
      Module.tvisHoldFrames = false;
    }
  }

  // --- a runs folder: dropped, or chosen with the folder input ---------------
  // Both ways end in openFound() with the same list: the found run files, as
  // {file, path} where `path` is relative to the drop
  // ("runs/20260101-120000_train/run.tvis"). Which files count and how they
  // group into runs is runs/run_file_names.h's rule (is_found_run_file,
  // group_found_runs), asked through wasm/run_rules.cpp.
  function isFoundRunFile(path) {
    return Module.ccall('tvis_is_found_run_file', 'number', ['string'], [path]) === 1;
  }

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

  // Drop: walks FileSystemEntry trees (a folder's files are not in `files`),
  // into a folder only where a run file directly in it would count.
  async function findRunEntries(entry, out) {
    const path = entry.fullPath.replace(/^\/+/, '');
    if (entry.isFile && isFoundRunFile(path)) {
      const file = await new Promise((res, rej) => entry.file(res, rej)).catch(() => null);
      if (file) out.push({ file, path });
    } else if (entry.isDirectory && isFoundRunFile(path + '/run.tvis')) {
      for (const child of await readEntries(entry)) await findRunEntries(child, out);
    }
  }

  // Folder input (webkitdirectory): every file, with its path in the folder.
  function findRunFiles(files) {
    return Array.from(files)
      .map((file) => ({ file, path: file.webkitRelativePath || file.name }))
      .filter((f) => isFoundRunFile(f.path));
  }

  // The runs among what was found, newest first, each {name, files: [{file, rank}]}, its files by rank.
  function groupRuns(found) {
    const json = Module.ccall('tvis_group_found_runs', 'string', ['string'], [JSON.stringify(found.map((f) => f.path))]);
    return JSON.parse(json).map((run) => ({
      name: run.name,
      files: run.files.map(([rank, index]) => ({ file: found[index].file, rank })),
    }));
  }

  function openFound(found) {
    if (!found.length) { showError('No run found in that folder (expected run.tvis files).'); return; }
    const runs = groupRuns(found);
    if (runs.length === 1 && runs[0].files.length === 1) { openFile(runs[0].files[0].file); return; }
    if (runs.length === 1) {
      openRankSources(runs[0].files.map((f) => ({ rank: f.rank, name: f.file.name, src: blobSource(f.file, f.file.name) })), runs[0].files[0].rank);
      return;
    }
    resetSources();
    _tvis_run_list_begin();
    for (const run of runs) {
      const first = run.files[0].file;
      const id = addSource(blobSource(first, first.name));
      callString('tvis_run_list_add', [id, first.size, run.name, first.name]);
      if (run.files.length < 2) continue;
      for (const f of run.files)
        callString('tvis_run_list_add_rank', [addSource(blobSource(f.file, f.file.name)), f.file.size, f.rank, f.file.name]);
    }
    _tvis_run_list_end();
  }

  async function openDropped(dataTransfer) {
    const items = Array.from(dataTransfer.items || []);
    const entries = items.map((i) => (i.webkitGetAsEntry ? i.webkitGetAsEntry() : null)).filter(Boolean);
    if (entries.length === 1 && entries[0].isFile) { openFile(dataTransfer.files[0]); return; }
    if (!entries.length) {
      if (dataTransfer.files.length) openFile(dataTransfer.files[0]);
      return;
    }
    const found = [];
    for (const e of entries) await findRunEntries(e, found);
    openFound(found);
  }

  function fitCanvas() {
    _tvis_resize(Math.max(1, window.innerWidth), Math.max(1, window.innerHeight));
  }

  // Called by main() before its first frame is drawn: the page's own
  // "Loading" line gives way to the canvas.
  Module.tvisFirstFrame = function () {
    const status = document.getElementById('tvis-status');
    if (status) status.remove();
  };

  // Called by main() once the app exists.
  Module.tvisStart = function () {
    fitCanvas();
    const runsLink = document.getElementById('tvis-runs');
    if (runsLink && pageToken && /^https?:$/.test(window.location.protocol)) {
      runsLink.href = '/runs?token=' + encodeURIComponent(pageToken);
      runsLink.hidden = false;
    }
    window.addEventListener('resize', fitCanvas);
    const input = document.getElementById('tvis-file');
    if (input) {
      input.addEventListener('change', () => {
        if (input.files && input.files.length) openFile(input.files[0]);
        input.value = '';
      });
    }
    const folder = document.getElementById('tvis-folder');
    if (folder) {
      folder.addEventListener('change', () => {
        if (folder.files && folder.files.length) openFound(findRunFiles(folder.files));
        folder.value = '';
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
    // Positions are links: ?page=&step=&param=&show= (and the other keys the
    // pages know) become one {link: {...}} command, applied once the run is open.
    const query = new URLSearchParams(window.location.search);
    const link = {};
    for (const key of ['page', 'step', 'phase', 'module', 'sample', 'param', 'show', 'head', 'rank',
                       'setup_class', 'setup_profile']) {  // setup_*: a run made by tvis graph --setup's form
      if (query.has(key)) link[key] = query.get(key);
    }
    const url = query.get('url');
    const url2 = url ? query.get('url2') : null;  // a second run: compared with the first (the Compare page)
    if (url2 && !link.page) link.page = 'Compare';
    if (Object.keys(link).length) window.tvisViewer.command({ link: link });
    const rankFiles = (query.get('rank_files') || '').split(',').filter(Boolean);
    const opened = url && rankFiles.length > 1 ? openRankUrls(new URL(url, window.location.href).href, rankFiles)
                 : url ? openUrl(new URL(url, window.location.href).href) : null;
    if (opened && url2) {
      let href2 = null;
      try { href2 = new URL(url2, window.location.href).href; } catch (err) { href2 = null; }
      opened.then(() => href2 ? openCompareUrl(href2) : callString('tvis_show_compare_error', [`not a URL: ${url2}`]));
    }
  };

  window.tvisViewer = {
    ready: false,
    state: () => JSON.parse(UTF8ToString(_tvis_state_json())),
    // One App::command(): {select: ID}, {page: NAME}, {panel: NAME}, {key: ']'}, ...
    command: (cmd) => JSON.parse(Module.ccall('tvis_command', 'string', ['string'], [JSON.stringify(cmd)])),
    // Tests: the Explore row of event `id` as [x0, y0, x1, y1] (CSS px) or null.
    eventRowRect: (id) => window.tvisViewer.command({ event_row_rect: id }),
    // Tests: true when the last frame drew event `id`'s row with its data.
    eventRowLoaded: (id) => window.tvisViewer.command({ event_row_loaded: id }) === true,
    // Frames not drawn because nothing changed (an idle page composites nothing).
    framesSkipped: () => _tvis_frames_skipped(),
    // Tests: the run list's row `index` as [x0, y0, x1, y1] (CSS px) or null.
    runRowRect: (index) => window.tvisViewer.command({ run_row_rect: index }),
    openUrl: openUrl,
    openCompareUrl: openCompareUrl,
    openFile: openFile,
  };
})();
