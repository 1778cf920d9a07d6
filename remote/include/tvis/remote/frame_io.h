// frame_io.h: protocol.h's frames over file descriptors (pipes, an ssh
// child's stdin/stdout). Blocking; EINTR is retried; SIGPIPE is the caller's
// to ignore.
#pragma once

#include <functional>
#include <string>

#include "tvis/remote/protocol.h"

namespace tvis::remote {

enum class ReadFrameResult { Ok, Eof, Error };

/// Reads one frame from `fd`. Eof: the stream ended cleanly before a frame
/// began. Error: it ended inside a frame, a read failed, or the length is
/// out of bounds (`error` says which). `*bytes` (if given) grows by the bytes read.
ReadFrameResult read_frame(int fd, Frame* frame, std::string* error, uint64_t* bytes = nullptr);

/// read_frame over any byte stream: `read_exact(dst, n)` returns n, 0 at a
/// clean end before any byte, -1 otherwise (the fuzz target's memory stream).
ReadFrameResult read_frame_from(const std::function<long(char*, size_t)>& read_exact, Frame* frame, std::string* error,
                                uint64_t* bytes = nullptr);

/// Reads up to and including kSyncLine. False when the stream ends or
/// kMaxPreamble bytes pass first; `skipped` gets what came before it.
bool read_sync_line(int fd, std::string* skipped);

/// Writes one reply: an Ok payload over kMaxPartBody goes as Part frames,
/// then the Ok with the rest (protocol.h). False when the peer went away.
bool write_reply(int fd, const Frame& reply);

/// Writes `data` whole. False on any error (the peer went away).
bool write_all(int fd, const std::string& data);

}  // namespace tvis::remote
