// copy_budget.h: how much a reader of records may copy out of one decoded
// chunk, and the one check that holds it. Header-only (a walk over the
// schema's generated type tables); used by every layer that turns a chunk's
// tables into its own values: analysis' RunFacts (RunFacts::add_chunk) and
// the viewer's model (ChunkCache refuses the chunk, so no index sees it).
//
// Why: the reader verifies each chunk and bounds the number of tables it
// visits (about one per 8 bytes of body), but a FlatBuffer may point any
// number of tables at one vector or string. A consumer that copies each
// table's fields copies the shared object once per table: a 200 kB file
// whose 4096 events share one 1 MiB id list asks for tens of GiB.
//
// Invariant: a chunk is used only if its copy size, the bytes of every
// vector and string counted once per table that refers to it (what a
// consumer copying each field of each table it visits would copy), is at
// most kCopyFactor × its decoded size + kCopySlack. An honest file passes
// with room to spare: the writer never shares an object between tables, so
// its copy size is at most its body's size. A consumer that copies each
// field a bounded number of times then copies a bounded multiple of the
// body, which the file (its raw_size, checked by the reader) justifies; the
// consumer's own per-table structs are bounded by the verifier's table
// bound. The walk itself stops as soon as the limit is passed, so checking
// a crafted chunk costs no more than checking an honest one of its size.
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>

#include <flatbuffers/flatbuffers.h>
#include <flatbuffers/minireflect.h>

#include "tvis/format/container_codec.h"
#include "tvis/format/error.h"
#include "tvis/format/run_reader.h"
#include "tvis/schema/recording_generated.h"

namespace tvis::format {

inline constexpr uint64_t kCopyFactor = 2;
inline constexpr uint64_t kCopySlack = 64ull << 10;

/// What may be copied from one chunk: charge() until the limit is passed.
class CopyBudget {
 public:
  /// A budget for `entry`'s chunk whose decoded body is `body_bytes` long.
  CopyBudget(const ChunkEntry& entry, uint64_t body_bytes)
      : entry_(entry), body_(body_bytes), limit_(body_bytes * kCopyFactor + kCopySlack) {}

  /// Charges `bytes`; false once the total passes the limit, and from then on.
  bool charge(uint64_t bytes) {
    if (spent_ > limit_ || bytes > limit_ - spent_) {
      spent_ = limit_ + 1;
      return false;
    }
    spent_ += bytes;
    return true;
  }
  bool exceeded() const { return spent_ > limit_; }
  uint64_t spent() const { return spent_; }

  /// Ok within the limit; else TooLarge naming the chunk and its size.
  Status status() const {
    if (!exceeded()) return Status::ok();
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  ": its records name the same data over and over (copying them would take more than %" PRIu64
                  " times the chunk's %s); refused as a crafted or corrupt file",
                  kCopyFactor, format_bytes(body_).c_str());
    return Status::error(ErrorCode::TooLarge, describe_chunk(entry_) + buf);
  }

 private:
  ChunkEntry entry_;
  uint64_t body_ = 0, limit_ = 0, spent_ = 0;
};

namespace copy_walk {

namespace fb = flatbuffers;

void table(const uint8_t* obj, const fb::TypeTable* type, CopyBudget& budget, int depth);

/// One value whose slot is at `slot` (an offset for strings, tables and
/// unions; structs and scalars are inline and copy nothing out of line).
/// `utype` is the union's type field, for a union value.
inline void value(fb::ElementaryType et, const uint8_t* slot, const fb::TypeTable* ref, const uint8_t* utype,
                  CopyBudget& budget, int depth) {
  if (et == fb::ET_STRING) {
    const auto* s = reinterpret_cast<const fb::String*>(slot + fb::ReadScalar<fb::uoffset_t>(slot));
    budget.charge(s->size());
    return;
  }
  if (et != fb::ET_SEQUENCE || !ref) return;
  if (ref->st == fb::ST_TABLE) {
    table(slot + fb::ReadScalar<fb::uoffset_t>(slot), ref, budget, depth + 1);
  } else if (ref->st == fb::ST_UNION && utype) {
    const int64_t index = fb::LookupEnum(*utype, ref->values, ref->num_elems);
    if (index <= 0 || index >= static_cast<int64_t>(ref->num_elems)) return;  // NONE or unknown
    const fb::TypeCode code = ref->type_codes[index];
    if (code.base_type == fb::ET_SEQUENCE && code.sequence_ref >= 0)
      table(slot + fb::ReadScalar<fb::uoffset_t>(slot), ref->type_refs[code.sequence_ref](), budget, depth + 1);
    else if (code.base_type == fb::ET_STRING)
      value(fb::ET_STRING, slot, nullptr, nullptr, budget, depth);
  }
}

/// Every field of the table at `obj`, as minireflect's IterateObject walks
/// them, charging vectors and strings; stops once the budget is spent.
inline void table(const uint8_t* obj, const fb::TypeTable* type, CopyBudget& budget, int depth) {
  if (depth > 64 || type->st != fb::ST_TABLE) return;  // the verifier's max_depth; structs hold no offsets
  const uint8_t* previous = nullptr;
  for (size_t i = 0; i < type->num_elems && !budget.exceeded(); ++i) {
    const fb::TypeCode code = type->type_codes[i];
    const auto et = static_cast<fb::ElementaryType>(code.base_type);
    const fb::TypeTable* ref = code.sequence_ref >= 0 ? type->type_refs[code.sequence_ref]() : nullptr;
    const uint8_t* slot =
        reinterpret_cast<const fb::Table*>(obj)->GetAddressOf(fb::FieldIndexToOffset(static_cast<fb::voffset_t>(i)));
    if (slot && code.is_repeating) {
      const auto* vec = reinterpret_cast<const fb::Vector<uint8_t>*>(slot + fb::ReadScalar<fb::uoffset_t>(slot));
      const uint64_t n = vec->size();
      if (!budget.charge(n * fb::InlineSize(et, ref))) break;
      const bool out_of_line = et == fb::ET_STRING || (et == fb::ET_SEQUENCE && ref && ref->st == fb::ST_TABLE);
      for (uint64_t j = 0; out_of_line && j < n && !budget.exceeded(); ++j)
        value(et, vec->Data() + j * sizeof(fb::uoffset_t), ref, nullptr, budget, depth);
    } else if (slot) {
      value(et, slot, ref, previous, budget, depth);
    }
    previous = slot;
  }
}

}  // namespace copy_walk

/// Ok when `chunk`'s copy size is within its budget (the invariant above);
/// else TooLarge naming the chunk. `chunk` must have passed the reader's
/// verification (every offset it follows is then inside the body).
inline Status check_copy_budget(const DecodedChunk& chunk) {
  CopyBudget budget(chunk.entry(), chunk.bytes().size());
  if (const schema::Chunk* root = chunk.root())
    copy_walk::table(reinterpret_cast<const uint8_t*>(root), schema::ChunkTypeTable(), budget, 0);
  return budget.status();
}

}  // namespace tvis::format
