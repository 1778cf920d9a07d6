// viewer_page.mjs: reading a viewer.html page from a test (window.tvisViewer).
// Waits are on the page's state or on rendered frames, never on time alone.

// The page's state() once the viewer is ready, else null (throws when
// state() itself throws: a viewer exception is a failure, not a wait).
export async function viewerState(page) {
  return page.evaluate(() => (window.tvisViewer && window.tvisViewer.ready ? window.tvisViewer.state() : null));
}

// Polls state() until `pred` holds, every `pollMs`; returns the last state
// seen (null if none), so the caller's check names what was there instead.
export async function waitForState(page, pred, ms = 20000, pollMs = 50) {
  const t0 = Date.now();
  let s = null;
  while (Date.now() - t0 < ms) {
    s = await viewerState(page).catch(() => null);
    if (s && pred(s)) return s;
    await page.waitForTimeout(pollMs);
  }
  return s;
}

// Waits until the page has rendered `n` more animation frames (a busy
// machine renders fewer frames per second than an idle one).
export async function frames(page, n) {
  await page.evaluate((n) => new Promise((resolve) => {
    const step = (left) => (left === 0 ? resolve() : requestAnimationFrame(() => step(left - 1)));
    step(n);
  }), n);
}

// The run list's row `index` as the viewer last drew it, once it has been
// drawn at the same place on two frames running (a list set by a command or
// a folder pick is laid out on the next frame, not at once); null when it is
// not drawn within `ms`.
export async function drawnRunRow(page, index, ms = 20000) {
  const t0 = Date.now();
  let last = null;
  while (Date.now() - t0 < ms) {
    await frames(page, 1);
    const rect = await page.evaluate((i) => window.tvisViewer.runRowRect(i), index).catch(() => null);
    if (Array.isArray(rect) && last && JSON.stringify(rect) === JSON.stringify(last)) return rect;
    last = Array.isArray(rect) ? rect : null;
  }
  return null;
}
