// js_byte_source.h: a ByteSource whose bytes come from JavaScript (a dropped
// or chosen File read with Blob.slice, or an HTTP server with Range).
//
// read() registers a request (id -> destination buffer + callback) and asks
// JS, through tvis_js_read(), to fill the buffer; JS answers later, on the
// browser's event loop, with tvis_read_done(request, ok, message). Offsets
// cross the JS boundary as doubles (exact up to 2^53; wasm32's size_t is 32
// bits). The buffer lives in the request, not in the source, so a source
// dropped while reads are in flight is safe: late answers are delivered to
// their callback, which the reader side ignores if it no longer cares.
//
// recheck_size() (a live run) asks JS, through tvis_js_size(), for the
// source's size now (an HTTP source: the total of a one-byte Range
// request's Content-Range; a File never changes), answered later with
// tvis_size_done(request, ok, size, message).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tvis/format/byte_source.h"

namespace tvis::web {

class JsByteSource : public format::ByteSource {
 public:
  /// `js_id` names the source in the JS glue's table.
  JsByteSource(int js_id, uint64_t size, std::string name);
  ~JsByteSource() override;
  uint64_t size() const override { return size_; }
  void read(uint64_t offset, uint64_t length, format::ReadDone done) override;
  void recheck_size(format::SizeDone done) override;
  void set_size(uint64_t size) { size_ = size; }
  std::string name() const override { return name_; }
  void count_delivered(uint64_t n) { bytes_read_ += n; }

 private:
  int js_id_;
  uint64_t size_;
  std::string name_;
  std::shared_ptr<bool> alive_;
};

}  // namespace tvis::web
