#include "js_byte_source.h"

#include <emscripten.h>

#include <unordered_map>

namespace tvis::web {

namespace {

// Hard limit on one read: the reader never asks for more than a chunk
// (container.h caps chunks at 1 GiB); wasm memory is the practical bound.
constexpr uint64_t kMaxRead = 1ull << 30;

struct Request {
  format::Bytes buffer;
  format::ReadDone done;
  std::weak_ptr<bool> source_alive;
  JsByteSource* source = nullptr;
};

struct SizeRequest {
  format::SizeDone done;
  std::weak_ptr<bool> source_alive;
  JsByteSource* source = nullptr;
};

std::unordered_map<int, SizeRequest>& size_requests() {
  static std::unordered_map<int, SizeRequest> r;
  return r;
}

std::unordered_map<int, Request>& requests() {
  static std::unordered_map<int, Request> r;
  return r;
}
int g_next_request = 1;

// Implemented in viewer_glue.js (Module.tvisRead): starts the asynchronous
// read of [offset, offset+length) of JS source `source` into wasm memory at
// `dest`, then calls _tvis_read_done(request, ok, message).
EM_JS(void, tvis_js_read, (int source, int request, double offset, double length, uint8_t* dest), {
  Module.tvisRead(source, request, offset, length, dest);
});

// Implemented in viewer_glue.js (Module.tvisSize): asks JS source `source`
// for its size now, then calls _tvis_size_done(request, ok, size, message).
EM_JS(void, tvis_js_size, (int source, int request), { Module.tvisSize(source, request); });

}  // namespace

void JsByteSource::recheck_size(format::SizeDone done) {
  const int id = g_next_request++;
  SizeRequest& r = size_requests()[id];
  r.done = std::move(done);
  r.source_alive = alive_;
  r.source = this;
  tvis_js_size(js_id_, id);
}

JsByteSource::JsByteSource(int js_id, uint64_t size, std::string name)
    : js_id_(js_id), size_(size), name_(std::move(name)), alive_(std::make_shared<bool>(true)) {}

// The JS glue owns the File / URL behind `js_id_` and drops it when the user
// opens something else; several JsByteSources may share one id (run list).
JsByteSource::~JsByteSource() = default;

void JsByteSource::read(uint64_t offset, uint64_t length, format::ReadDone done) {
  if (offset > size_ || length > size_ - offset) {
    done(format::Status::error(format::ErrorCode::Truncated,
                               name_ + ": read of " + std::to_string(length) + " bytes at offset " +
                                   std::to_string(offset) + " passes the end (" + std::to_string(size_) + " bytes)"));
    return;
  }
  if (length > kMaxRead) {
    done(format::Status::error(format::ErrorCode::TooLarge,
                               name_ + ": read of " + std::to_string(length) + " bytes is over the 1 GiB limit"));
    return;
  }
  const int id = g_next_request++;
  Request& r = requests()[id];
  r.buffer.resize(static_cast<size_t>(length));
  r.done = std::move(done);
  r.source_alive = alive_;
  r.source = this;
  if (length == 0) {
    Request finished = std::move(r);
    requests().erase(id);
    finished.done(std::move(finished.buffer));
    return;
  }
  tvis_js_read(js_id_, id, static_cast<double>(offset), static_cast<double>(length), r.buffer.data());
}

}  // namespace tvis::web

extern "C" {

/// Called by the JS glue when read `request` finished: ok != 0 with the bytes
/// written into the request's buffer, else `message` says why.
EMSCRIPTEN_KEEPALIVE void tvis_read_done(int request, int ok, const char* message) {
  auto& all = tvis::web::requests();
  auto it = all.find(request);
  if (it == all.end()) return;
  tvis::web::Request r = std::move(it->second);
  all.erase(it);
  if (!ok) {
    r.done(tvis::format::Status::error(tvis::format::ErrorCode::Io, message ? message : "read failed"));
    return;
  }
  if (!r.source_alive.expired()) r.source->count_delivered(r.buffer.size());
  r.done(std::move(r.buffer));
}

/// Called by the JS glue when size request `request` finished: ok != 0 with
/// the source's size now, else `message` says why.
EMSCRIPTEN_KEEPALIVE void tvis_size_done(int request, int ok, double size, const char* message) {
  auto& all = tvis::web::size_requests();
  auto it = all.find(request);
  if (it == all.end()) return;
  tvis::web::SizeRequest r = std::move(it->second);
  all.erase(it);
  if (!ok || !(size >= 0)) {
    r.done(tvis::format::Status::error(tvis::format::ErrorCode::Io, message ? message : "size unknown"));
    return;
  }
  const uint64_t bytes = static_cast<uint64_t>(size);
  if (!r.source_alive.expired()) r.source->set_size(bytes);
  r.done(bytes);
}

}  // extern "C"
