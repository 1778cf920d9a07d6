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
