#include "tvis/shell/frame_fingerprint.h"

#include <imgui.h>

#include <cstring>

namespace tvis::shell {

namespace {

// Word-wise multiply-xorshift mixing: fast enough for ~1 MB of vertices a
// frame (a fraction of a millisecond); not a cryptographic hash.
struct Mixer {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  void word(uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  }
  void bytes(const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t v;
      std::memcpy(&v, p + i, 8);
      word(v);
    }
    uint64_t tail = 0;
    std::memcpy(&tail, p + i, n - i);
    word(tail ^ (static_cast<uint64_t>(n) << 56));
  }
  void f(float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    word(u);
  }
};

}  // namespace

uint64_t frame_fingerprint(const ImDrawData& data, uint64_t extra) {
  Mixer m;
  m.word(extra);
  m.f(data.DisplayPos.x);
  m.f(data.DisplayPos.y);
  m.f(data.DisplaySize.x);
  m.f(data.DisplaySize.y);
  m.f(data.FramebufferScale.x);
  m.f(data.FramebufferScale.y);
  m.word(static_cast<uint64_t>(data.CmdListsCount));
  for (int n = 0; n < data.CmdListsCount; ++n) {
    const ImDrawList* list = data.CmdLists[n];
    m.bytes(list->VtxBuffer.Data, static_cast<size_t>(list->VtxBuffer.Size) * sizeof(ImDrawVert));
    m.bytes(list->IdxBuffer.Data, static_cast<size_t>(list->IdxBuffer.Size) * sizeof(ImDrawIdx));
    for (const ImDrawCmd& cmd : list->CmdBuffer) {
      if (cmd.UserCallback) return kAlwaysDraw;
      m.f(cmd.ClipRect.x);
      m.f(cmd.ClipRect.y);
      m.f(cmd.ClipRect.z);
      m.f(cmd.ClipRect.w);
      m.word(reinterpret_cast<uint64_t>(cmd.TextureId));
      m.word((static_cast<uint64_t>(cmd.VtxOffset) << 32) | cmd.IdxOffset);
      m.word(cmd.ElemCount);
    }
  }
  return m.h == kAlwaysDraw ? 1 : m.h;
}

}  // namespace tvis::shell
