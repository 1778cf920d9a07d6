#include "tvis/remote/agent.h"

#include <cstdio>

#include "tvis/remote/frame_io.h"
#include "tvis/remote/protocol.h"
#include "tvis/remote/run_store.h"

namespace tvis::remote {

namespace {

bool reply(int fd, uint32_t id, MessageType type, std::string payload) {
  return write_reply(fd, {id, type, std::move(payload)});
}

template <class T>
bool reply_error(int fd, uint32_t id, const Outcome<T>& failed) {
  return reply(fd, id, MessageType::Error, error_payload(failed.kind, failed.error));
}

int refuse(int fd, uint32_t id, const std::string& why, ErrorKind kind = ErrorKind::Refused) {
  std::fprintf(stderr, "tvis agent: %s\n", why.c_str());
  reply(fd, id, MessageType::Error, error_payload(kind, why));
  return 2;
}

}  // namespace

int serve_agent(const std::string& path, int in_fd, int out_fd, const AgentOptions& options) {
  if (!write_all(out_fd, kSyncLine)) return 1;
  Frame f;
  std::string error;
  switch (read_frame(in_fd, &f, &error)) {
    case ReadFrameResult::Eof: return 0;
    case ReadFrameResult::Error:
      std::fprintf(stderr, "tvis agent: %s\n", error.c_str());
      return 1;
    case ReadFrameResult::Ok: break;
  }
  uint32_t client_version = 0;
  if (f.type != MessageType::Hello || !parse_hello(f.payload, &client_version))
    return refuse(out_fd, f.id, "the first message was not a tvis Hello", ErrorKind::Malformed);
  // Our Hello goes first either way, so the client can name both versions.
  if (!reply(out_fd, f.id, MessageType::Hello, hello_payload(options.version))) return 1;
  if (client_version != options.version)
    return refuse(out_fd, f.id, "this agent speaks protocol " + std::to_string(options.version) + ", the client " +
                                    std::to_string(client_version));
  auto store = open_local_store(path);
  if (!store.ok) return refuse(out_fd, 0, store.error, store.kind);
  RunStore& runs = *store.value;

  for (;;) {
    switch (read_frame(in_fd, &f, &error)) {
      case ReadFrameResult::Eof: return 0;
      case ReadFrameResult::Error:
        std::fprintf(stderr, "tvis agent: %s\n", error.c_str());
        return 1;
      case ReadFrameResult::Ok: break;
    }
    bool sent = false;
    switch (f.type) {
      case MessageType::List: {
        auto r = runs.list();
        sent = r.ok ? reply(out_fd, f.id, MessageType::Ok, r.value) : reply_error(out_fd, f.id, r);
        break;
      }
      case MessageType::Stat: {
        auto r = runs.stat(f.payload);
        std::string out;
        if (r.ok) {
          put_u64(out, r.value.size);
          put_u64(out, uint64_t(r.value.mtime_ms));
        }
        sent = r.ok ? reply(out_fd, f.id, MessageType::Ok, out) : reply_error(out_fd, f.id, r);
        break;
      }
      case MessageType::Read: {
        uint64_t offset = 0;
        uint32_t length = 0;
        std::string path;
        if (!parse_read_request(f.payload, &offset, &length, &path)) {
          sent = reply(out_fd, f.id, MessageType::Error, error_payload(ErrorKind::Malformed, "malformed Read request"));
          break;
        }
        if (length > kMaxReadLength) {
          sent = reply(out_fd, f.id, MessageType::Error,
                       error_payload(ErrorKind::TooLarge, "Read of " + std::to_string(length) + " bytes exceeds the limit of " +
                                                              std::to_string(kMaxReadLength)));
          break;
        }
        auto r = runs.read(path, offset, length);
        if (!r.ok) {
          sent = reply_error(out_fd, f.id, r);
          break;
        }
        std::string out;
        out.reserve(8 + r.value.bytes.size());
        put_u64(out, r.value.file_size);
        out += r.value.bytes;
        sent = reply(out_fd, f.id, MessageType::Ok, std::move(out));
        break;
      }
      default:
        sent = reply(out_fd, f.id, MessageType::Error,
                     error_payload(ErrorKind::Malformed, "unknown request type " + std::to_string(int(f.type))));
    }
    if (!sent) return 1;  // the client went away
  }
}

}  // namespace tvis::remote
