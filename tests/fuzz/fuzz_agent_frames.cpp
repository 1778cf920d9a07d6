// libFuzzer target: what `tvis open` reads from an agent (remote/protocol.h,
// frame_io.h) and what the agent reads from its client: a stream of frames
// (length bounds, truncation), each frame's payload read as every message
// it could be (Hello, Error with its kind, Read request, Stat and Read
// replies), and an Ok payload rendered as the run list page the way an
// agent's List reply is (serve/src/run_list_page.h: any JSON, any types).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "run_list_page.h"
#include "tvis/remote/frame_io.h"
#include "tvis/remote/protocol.h"

using namespace tvis::remote;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  size_t at = 0;
  auto read_exact = [&](char* dst, size_t n) -> long {
    if (at == size) return 0;
    if (size - at < n) {
      at = size;
      return -1;
    }
    std::memcpy(dst, data + at, n);
    at += n;
    return long(n);
  };
  for (int frames = 0; frames < 64; ++frames) {
    Frame f;
    std::string error;
    const ReadFrameResult r = read_frame_from(read_exact, &f, &error);
    if (r != ReadFrameResult::Ok) break;
    if (f.payload.size() + 5 > kMaxFrameBody) std::abort();
    uint32_t version = 0;
    (void)parse_hello(f.payload, &version);
    ErrorKind kind;
    std::string message;
    parse_error(f.payload, &kind, &message);
    if (uint8_t(kind) > uint8_t(ErrorKind::TooLarge)) std::abort();
    uint64_t offset = 0;
    uint32_t length = 0;
    std::string path;
    if (parse_read_request(f.payload, &offset, &length, &path) && path.size() + 12 != f.payload.size()) std::abort();
    FileStat st;
    (void)parse_stat_reply(f.payload, &st);
    ReadResult rr;
    if (parse_read_reply(f.payload, uint32_t(f.id & 0xffff), &rr) && rr.bytes.size() != (f.id & 0xffff)) std::abort();
    if (f.type == MessageType::Ok && f.payload.size() < 65536)
      (void)tvis::serve::render_run_list("fuzz", f.payload, "0123456789abcdef0123456789abcdef");
  }
  return 0;
}
