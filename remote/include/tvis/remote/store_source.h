// store_source.h: one run file of a RunStore as a format::ByteSource, so
// that tvis-view reads a remote run (HOST:PATH, a saved target) through the
// same agent `tvis open` serves the browser from.
//
// Contract:
//   - Synchronous, like the file source: `done` is called before read()
//     and recheck_size() return, on the calling thread, after one agent
//     round trip or more. tvis-view calls it off the frame: chunks on the
//     decode worker (viewer_model/decode_worker.h), a live run's recheck on
//     the grow worker (viewer_model/grow_worker.h); only a bounded run
//     (--frames without --decode-worker) reads in the frame.
//   - Safe to read and recheck from two threads at once (the store is).
//   - A read longer than the protocol's kMaxReadLength is split into several
//     store reads; only the bytes asked for cross the wire.
//   - A store read that fails (the connection lost, the file gone) is an Io
//     error carrying the store's one-line reason; the next read tries again
//     (an AgentStore reconnects through its ssh master).
//   - recheck_size() stats the file again: a live run grows.
#pragma once

#include <memory>
#include <string>

#include "tvis/format/byte_source.h"
#include "tvis/remote/run_store.h"

namespace tvis::remote {

/// The run file `path` (relative to the store's root, as its catalog names
/// it) of `store`; fails when the store cannot stat it.
format::Result<std::shared_ptr<format::ByteSource>> open_store_source(std::shared_ptr<RunStore> store,
                                                                      const std::string& path);

}  // namespace tvis::remote
