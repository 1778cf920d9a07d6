// call_ref.h: one recorded call (an Event: a module call, a function, a
// phase marker) as the pages see it: plain values read through accessors,
// never the record's FlatBuffers table.
//
// Contract:
//   - A CallRef holds the decoded chunk its record lives in, so it stays
//     valid as long as it is held, whatever the cache evicts meanwhile.
//   - An empty ref (`!call`) answers nothing: call no accessor on it.
//   - name(), class_name() and detail()'s strings are views into the held
//     chunk and live as long as the ref; the id lists are copies.
//   - record() is for viewer/model's own code; viewer/src never calls it.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tvis/viewer_model/chunk_cache.h"
#include "tvis/viewer_model/records.h"

namespace tvis::viewer {

/// One kind-specific extra of a call (a loss call's argument, ...).
struct CallDetail {
  std::string_view key, value;
};

class CallRef {
 public:
  CallRef() = default;
  CallRef(ChunkCache::ChunkPtr chunk, const schema::Event* event) : chunk_(std::move(chunk)), e_(event) {}
  explicit operator bool() const { return e_ != nullptr; }

  uint64_t id() const;
  int64_t parent() const;  // the enclosing call's id; -1 at the top
  EventKind kind() const;
  int step() const;
  Phase phase() const;
  std::string_view name() const;        // "layer1.0.conv2", a qualname; "" when none
  std::string_view class_name() const;  // "Conv2d"; "" for functions
  uint32_t call_file() const;           // source file index where it was called (0: none)
  uint32_t call_line() const;
  uint32_t def_file() const;            // where it is defined
  uint32_t def_line() const;
  int64_t t_begin_ns() const;
  int64_t t_end_ns() const;
  double grad_norm() const;             // ||dL/d(output)||; < 0 when not recorded
  int sample() const;                   // the followed sample of a pipeline event; -1 else
  std::vector<uint64_t> inputs() const;        // tensor ids
  std::vector<uint64_t> outputs() const;
  std::vector<uint64_t> grad_outputs() const;  // dL/d(output), recorded in backward
  std::vector<CallDetail> detail() const;

  const schema::Event* record() const { return e_; }

 private:
  friend class RunModel;
  // Walks one chunk's calls without a reference count per call: the walk
  // holds one CallRef and points it at each record of the same chunk.
  void point_at(const schema::Event* event) { e_ = event; }

  ChunkCache::ChunkPtr chunk_;  // keeps e_ valid
  const schema::Event* e_ = nullptr;
};

}  // namespace tvis::viewer
