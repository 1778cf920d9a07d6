#include "tvis/remote/frame_io.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>

namespace tvis::remote {

namespace {

/// Reads exactly n bytes. Returns n, 0 at a clean end before any byte, -1
/// on error or an end after some bytes.
long read_exact(int fd, char* dst, size_t n) {
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd, dst + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) return got == 0 ? 0 : -1;
    got += size_t(r);
  }
  return long(n);
}

}  // namespace

ReadFrameResult read_frame_from(const std::function<long(char*, size_t)>& read_exact_fn, Frame* frame, std::string* error,
                                uint64_t* bytes) {
  char head[4];
  const long h = read_exact_fn(head, 4);
  if (h == 0) return ReadFrameResult::Eof;
  if (h < 0) {
    *error = "stream ended inside a frame header";
    return ReadFrameResult::Error;
  }
  const std::string len_bytes(head, 4);
  size_t at = 0;
  uint32_t body = 0;
  get_u32(len_bytes, &at, &body);
  if (body < 5 || body > kMaxFrameBody) {
    *error = "bad frame length " + std::to_string(body) + " (not a tvis agent stream?)";
    return ReadFrameResult::Error;
  }
  std::string rest(body, '\0');
  if (read_exact_fn(rest.data(), body) != long(body)) {
    *error = "stream ended inside a frame";
    return ReadFrameResult::Error;
  }
  if (bytes) *bytes += 4 + body;
  decode_frame_body(rest, frame);
  return ReadFrameResult::Ok;
}

ReadFrameResult read_frame(int fd, Frame* frame, std::string* error, uint64_t* bytes) {
  return read_frame_from([fd](char* dst, size_t n) { return read_exact(fd, dst, n); }, frame, error, bytes);
}

bool read_sync_line(int fd, std::string* skipped) {
  const std::string sync(kSyncLine);
  std::string seen;
  char c;
  while (seen.size() < kMaxPreamble + sync.size()) {
    const ssize_t r = ::read(fd, &c, 1);  // byte by byte: nothing after the line may be consumed
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    seen.push_back(c);
    if (seen.size() >= sync.size() && seen.compare(seen.size() - sync.size(), sync.size(), sync) == 0) {
      *skipped = seen.substr(0, seen.size() - sync.size());
      return true;
    }
  }
  *skipped = seen;
  return false;
}

bool write_reply(int fd, const Frame& reply) {
  size_t at = 0;
  if (reply.type == MessageType::Ok) {
    for (; reply.payload.size() - at > kMaxPartBody; at += kMaxPartBody)
      if (!write_all(fd, encode_frame({reply.id, MessageType::Part, reply.payload.substr(at, kMaxPartBody)}))) return false;
  }
  return write_all(fd, at ? encode_frame({reply.id, reply.type, reply.payload.substr(at)}) : encode_frame(reply));
}

bool write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t w = ::write(fd, data.data() + done, data.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    done += size_t(w);
  }
  return true;
}

}  // namespace tvis::remote
