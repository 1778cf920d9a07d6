#include "tvis/remote/protocol.h"

#include <cstring>

namespace tvis::remote {

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(char((v >> (8 * i)) & 0xff));
}

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(char((v >> (8 * i)) & 0xff));
}

bool get_u32(const std::string& in, size_t* at, uint32_t* v) {
  if (in.size() < *at + 4) return false;
  *v = 0;
  for (int i = 0; i < 4; ++i) *v |= uint32_t(uint8_t(in[*at + i])) << (8 * i);
  *at += 4;
  return true;
}

bool get_u64(const std::string& in, size_t* at, uint64_t* v) {
  if (in.size() < *at + 8) return false;
  *v = 0;
  for (int i = 0; i < 8; ++i) *v |= uint64_t(uint8_t(in[*at + i])) << (8 * i);
  *at += 8;
  return true;
}

std::string encode_frame(const Frame& frame) {
  std::string out;
  out.reserve(9 + frame.payload.size());
  put_u32(out, uint32_t(5 + frame.payload.size()));
  put_u32(out, frame.id);
  out.push_back(char(frame.type));
  out += frame.payload;
  return out;
}

std::string hello_payload(uint32_t version) {
  std::string out(kMagic, sizeof kMagic);
  put_u32(out, version);
  return out;
}

bool parse_hello(const std::string& payload, uint32_t* version) {
  if (payload.size() < sizeof kMagic + 4 || std::memcmp(payload.data(), kMagic, sizeof kMagic) != 0) return false;
  size_t at = sizeof kMagic;
  return get_u32(payload, &at, version);
}

}  // namespace tvis::remote

namespace tvis::remote {

std::string error_payload(ErrorKind kind, const std::string& message) {
  std::string out(1, char(kind));
  return out + message;
}

void parse_error(const std::string& payload, ErrorKind* kind, std::string* message) {
  if (payload.empty()) {
    *kind = ErrorKind::Failed;
    message->clear();
    return;
  }
  const uint8_t k = uint8_t(payload[0]);
  *kind = k <= uint8_t(ErrorKind::TooLarge) ? ErrorKind(k) : ErrorKind::Failed;
  *message = payload.substr(1);
}

std::string encode_read_request(uint64_t offset, uint32_t length, const std::string& path) {
  std::string p;
  put_u64(p, offset);
  put_u32(p, length);
  return p + path;
}

bool parse_read_request(const std::string& payload, uint64_t* offset, uint32_t* length, std::string* path) {
  size_t at = 0;
  if (!get_u64(payload, &at, offset) || !get_u32(payload, &at, length)) return false;
  *path = payload.substr(at);
  return true;
}

bool parse_stat_reply(const std::string& payload, FileStat* stat) {
  size_t at = 0;
  uint64_t mtime = 0;
  if (payload.size() != 16 || !get_u64(payload, &at, &stat->size) || !get_u64(payload, &at, &mtime)) return false;
  stat->mtime_ms = int64_t(mtime);
  return true;
}

bool parse_read_reply(const std::string& payload, uint32_t length, ReadResult* out) {
  size_t at = 0;
  if (!get_u64(payload, &at, &out->file_size) || payload.size() - at != length) return false;
  out->bytes = payload.substr(at);
  return true;
}

bool decode_frame_body(const std::string& body, Frame* frame) {
  size_t at = 0;
  if (body.size() < 5 || !get_u32(body, &at, &frame->id)) return false;
  frame->type = MessageType(uint8_t(body[4]));
  frame->payload = body.substr(5);
  return true;
}

}  // namespace tvis::remote
