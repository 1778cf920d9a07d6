// The read half of the container (run_reader.h). No exceptions, threads or
// file APIs: every byte arrives through ByteSource callbacks.
#include "tvis/format/run_reader.h"

#include <xxhash.h>
#include <zstd.h>

#include <cinttypes>
#include <cstdio>
#include <optional>
#include <utility>

#include "checksums.h"
#include "chunk_stream.h"
#include "endian.h"
#include "shuffle.h"
#include "wide_vector_alignment.h"
#include "zstd_frame.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/chunk_limits.h"
#include "tvis/format/container_codec.h"
#include "tvis/schema/recording_generated.h"

namespace tvis::format {

namespace {

Status chunk_error(ErrorCode code, const ChunkEntry& e, const std::string& what) {
  return Status::error(code, describe_chunk(e) + ": " + what);
}


size_t filter_element_size(ChunkFilter f) {
  switch (f) {
    case ChunkFilter::None: return 1;
    case ChunkFilter::Shuffle2: return 2;
    case ChunkFilter::Shuffle4: return 4;
    case ChunkFilter::Shuffle8: return 8;
  }
  return 0;
}

Status verify_flatbuffer(const ChunkEntry& e, const Bytes& bytes) {
  // Tables are at least 8 bytes apart in an honest buffer; the bound keeps a
  // crafted buffer whose offsets alias one table from costing more than that.
  flatbuffers::Verifier::Options opts;
  opts.max_depth = 64;
  opts.max_tables = flatbuffers::uoffset_t(bytes.size() / 8 + 64);
  opts.check_alignment = true;
  flatbuffers::Verifier verifier(bytes.data(), bytes.size(), opts);
  if (!schema::VerifyChunkBuffer(verifier))
    return chunk_error(ErrorCode::Corrupt, e, "payload is not a valid tvis FlatBuffer");
  const schema::Body expected = body_of_kind(e.info.kind);
  const schema::Chunk* root = schema::GetChunk(bytes.data());
  const schema::Body actual = root->body_type();
  if (actual != schema::Body::NONE && root->body() == nullptr)  // the verifier lets a union value be absent
    return chunk_error(ErrorCode::Corrupt, e, "FlatBuffer body type set but body missing");
  if (expected != schema::Body::NONE && actual != expected) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "FlatBuffer body is %s, expected %s",
                  actual == schema::Body::NONE ? "empty" : schema::EnumNameBody(actual),
                  schema::EnumNameBody(expected));
    return chunk_error(ErrorCode::Corrupt, e, buf);
  }
  if (const char* field = misaligned_wide_vector(*root)) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "FlatBuffer vector %s is not 8-byte aligned", field);
    return chunk_error(ErrorCode::Corrupt, e, buf);
  }
  return Status::ok();
}

}  // namespace

const schema::Chunk* DecodedChunk::root() const {
  if (entry_.info.kind == uint16_t(ChunkKind::Index) || bytes_.empty()) return nullptr;
  return schema::GetChunk(bytes_.data());
}

namespace {

// Everything judged before a byte is inflated (chunk_limits.h): the sizes
// against the bytes present and the chunk's kind, the checksum, the filter,
// and the zstd frame's own header and block headers.
Status check_before_inflating(const ChunkEntry& e, const uint8_t* data, uint64_t size) {
  if (size != e.compressed_size)
    return chunk_error(ErrorCode::Truncated, e, "payload is shorter than its header says");
  Status s = check_decoded_size(e);
  if (!s) return s;
  if (kEnforceChecksums && XXH64(data, size_t(size), 0) != e.payload_xxh64)
    return chunk_error(ErrorCode::BadChecksum, e, "payload checksum mismatch");
  if (filter_element_size(e.info.filter) == 0)
    return chunk_error(ErrorCode::Corrupt, e, "unknown filter " + std::to_string(int(e.info.filter)));
  if (e.info.encoding != ChunkEncoding::Plain) {
    if (e.info.encoding != ChunkEncoding::XorDelta)
      return chunk_error(ErrorCode::Corrupt, e, "unknown encoding " + std::to_string(int(e.info.encoding)));
    if (e.info.kind != uint16_t(ChunkKind::TensorData))
      return chunk_error(ErrorCode::Corrupt, e, "an XOR delta encoding on a chunk that is not tensor_data");
    if (e.raw_size < kXorDeltaTrailerSize)
      return chunk_error(ErrorCode::Corrupt, e, "XOR delta chunk shorter than its 16-byte trailer");
  }
  ZstdFrame f;
  std::string why;
  if (!read_zstd_frame(data, size, &f, &why)) return chunk_error(ErrorCode::Corrupt, e, why);
  char buf[160];
  if (f.dictionary_id != 0) {
    std::snprintf(buf, sizeof buf, "zstd frame needs dictionary %u (tvis writes none)", f.dictionary_id);
    return chunk_error(ErrorCode::Corrupt, e, buf);
  }
  if (!f.has_content_size) return chunk_error(ErrorCode::Corrupt, e, "zstd frame does not state its size");
  if (f.content_size != e.raw_size) {
    std::snprintf(buf, sizeof buf, "zstd frame holds %llu bytes, the header says %u",
                  static_cast<unsigned long long>(f.content_size), e.raw_size);
    return chunk_error(ErrorCode::Corrupt, e, buf);
  }
  if (f.frame_size != size) return chunk_error(ErrorCode::Corrupt, e, "payload is not exactly one zstd frame");
  if (f.window_size > kMaxZstdWindow)
    return chunk_error(ErrorCode::TooLarge, e,
                       "zstd frame asks for a " + format_bytes(f.window_size) + " window (limit " +
                           format_bytes(kMaxZstdWindow) + ")");
  if (e.raw_size > f.max_decoded || e.raw_size < f.min_decoded) {
    std::snprintf(buf, sizeof buf, "zstd frame's blocks decode to %llu..%llu bytes, its header says %u",
                  static_cast<unsigned long long>(f.min_decoded), static_cast<unsigned long long>(f.max_decoded),
                  e.raw_size);
    return chunk_error(ErrorCode::Corrupt, e, buf);
  }
  return Status::ok();
}

// A chunk that would decode to much more than its stored bytes: decoded
// through a bounded window first (chunk_stream.h), its FlatBuffer root checked.
bool stream_first(const ChunkEntry& e) {
  return e.raw_size > kStreamCheckAbove && uint64_t(e.raw_size) > uint64_t(e.compressed_size) * kStreamCheckRatio;
}

Result<Bytes> inflate_payload(const ChunkEntry& e, const uint8_t* data, uint64_t size);

// The chunk header as read with its payload must be the one the index lists.
Status check_stored_header(const ChunkEntry& entry, const Bytes& b) {
  ChunkEntry h;
  Status s = decode_chunk_header(b.data(), entry.offset, &h);
  if (!s) return Status::error(s.code, describe_chunk(entry) + ": " + s.message);
  if (h.info.kind != entry.info.kind || h.info.filter != entry.info.filter ||
      h.info.encoding != entry.info.encoding || h.ordinal != entry.ordinal ||
      h.compressed_size != entry.compressed_size || h.raw_size != entry.raw_size ||
      h.payload_xxh64 != entry.payload_xxh64 || h.info.step_first != entry.info.step_first ||
      h.info.step_last != entry.info.step_last || h.info.event_first != entry.info.event_first ||
      h.info.event_last != entry.info.event_last)
    return chunk_error(ErrorCode::Corrupt, entry, "chunk header disagrees with the footer index");
  return Status::ok();
}

}  // namespace

Status verify_chunk_payload(const ChunkEntry& e, const uint8_t* data, uint64_t size) {
  if (e.info.encoding != ChunkEncoding::Plain) {  // its body needs its base: the delta itself is checked
    Result<Bytes> raw = inflate_payload(e, data, size);
    if (!raw.ok()) return raw.status();
    const uint8_t* t = raw.value().data() + raw.value().size() - kXorDeltaTrailerSize;
    if (le::get32(t) != kXorDeltaMagic || le::get64(t + 8) != 0)
      return chunk_error(ErrorCode::Corrupt, e, "XOR delta chunk without its trailer (magic TVXD)");
    return Status::ok();
  }
  if (e.raw_size <= kTableChunkFreeSize) {
    Result<DecodedChunk> d = decode_chunk_payload(e, data, size);
    return d.ok() ? Status::ok() : d.status();
  }
  Status s = check_before_inflating(e, data, size);
  if (!s) return s;
  return stream_check_chunk(e, data, size, uint8_t(body_of_kind(e.info.kind)), true);
}

namespace {

// The chunk's raw bytes: checks, zstd, the filter undone. A plain chunk far
// larger decoded than stored is streamed through a window first with its
// FlatBuffer root checked; an XOR delta (mostly zero bytes by design: no root
// to check) is bounded by its base instead (raw_size = base's + 16, checked
// by the caller against the index before its base is read).
Result<Bytes> inflate_payload(const ChunkEntry& e, const uint8_t* data, uint64_t size) {
  Status s = check_before_inflating(e, data, size);
  if (!s) return s;
  if (e.info.encoding == ChunkEncoding::Plain && stream_first(e)) {
    s = stream_check_chunk(e, data, size, uint8_t(body_of_kind(e.info.kind)), true);
    if (!s) return s;
  }
  const size_t elem = filter_element_size(e.info.filter);
  Bytes raw(e.raw_size);
  const size_t n = ZSTD_decompress(raw.data(), raw.size(), data, size_t(size));
  if (ZSTD_isError(n)) return chunk_error(ErrorCode::Corrupt, e, std::string("zstd: ") + ZSTD_getErrorName(n));
  if (n != raw.size()) return chunk_error(ErrorCode::Corrupt, e, "zstd frame decoded to the wrong size");
  if (elem > 1) {
    Bytes plain(raw.size());
    unshuffle_bytes(raw.data(), plain.data(), raw.size(), elem);
    raw.swap(plain);
  }
  return raw;
}

// An XOR delta chunk's trailer: its base's ordinal, after checking the magic,
// the reserved bytes and that the base is an earlier tensor_data chunk of
// the right size in `chunks` (so a chain always ends: no cycle can be named).
Result<uint32_t> xor_delta_base(const ChunkEntry& e, const Bytes& raw, const std::vector<ChunkEntry>& chunks) {
  const uint8_t* t = raw.data() + raw.size() - kXorDeltaTrailerSize;
  if (le::get32(t) != kXorDeltaMagic || le::get64(t + 8) != 0)
    return chunk_error(ErrorCode::Corrupt, e, "XOR delta chunk without its trailer (magic TVXD)");
  const uint32_t base = le::get32(t + 4);
  if (base >= e.ordinal || base >= chunks.size())
    return chunk_error(ErrorCode::Corrupt, e,
                       "XOR delta base " + std::to_string(base) + " is not an earlier chunk of the run");
  const ChunkEntry& b = chunks[base];
  if (b.info.kind != uint16_t(ChunkKind::TensorData))
    return chunk_error(ErrorCode::Corrupt, e, "XOR delta base " + describe_chunk(b) + " is not tensor_data");
  // The base's body: its raw bytes, less the trailer when it is a delta itself.
  const uint64_t base_body = b.info.encoding == ChunkEncoding::XorDelta && b.raw_size >= kXorDeltaTrailerSize
                                 ? b.raw_size - kXorDeltaTrailerSize
                                 : b.raw_size;
  if (base_body + kXorDeltaTrailerSize != e.raw_size)
    return chunk_error(ErrorCode::Corrupt, e,
                       "XOR delta of " + std::to_string(e.raw_size - kXorDeltaTrailerSize) + " bytes against base " +
                           describe_chunk(b) + " whose body is " + std::to_string(base_body) + " bytes");
  return base;
}

}  // namespace

Result<DecodedChunk> decode_chunk_payload(const ChunkEntry& e, const uint8_t* data, uint64_t size) {
  if (e.info.encoding != ChunkEncoding::Plain) {
    Status s = check_before_inflating(e, data, size);
    if (!s) return s;
    return chunk_error(ErrorCode::Corrupt, e, "an XOR delta chunk is read with its base (RunReader::read_chunk)");
  }
  Result<Bytes> raw = inflate_payload(e, data, size);
  if (!raw.ok()) return raw.status();
  if (e.info.kind != uint16_t(ChunkKind::Index)) {
    Status s = verify_flatbuffer(e, raw.value());
    if (!s) return s;
  }
  return DecodedChunk(e, std::move(raw.value()));
}

// ---------------------------------------------------------------- opening --

// Drives one open(): header, trailer, footer; or header then a scan.
class RunOpener : public std::enable_shared_from_this<RunOpener> {
 public:
  RunOpener(std::shared_ptr<ByteSource> source, OpenDone done)
      : reader_(new RunReader), done_(std::move(done)) {
    reader_->source_ = std::move(source);
  }
  // A grow() of `previous` (run_reader.h): the same source, read on from it.
  RunOpener(std::shared_ptr<RunReader> previous, OpenDone done)
      : reader_(new RunReader), done_(std::move(done)), previous_(std::move(previous)) {
    reader_->source_ = previous_->source_;
    reader_->header_ = previous_->header_;
  }

  void start_grow(std::function<bool()> cancelled) {
    cancelled_ = std::move(cancelled);
    auto self = shared_from_this();
    reader_->source_->recheck_size([self](Result<uint64_t> r) { self->on_size(std::move(r)); });
  }

  void start() {
    ByteSource& src = *reader_->source_;
    if (src.size() < kFileHeaderSize) {
      fail(Status::error(ErrorCode::NotARun, src.size() == 0 ? "not a tvis run: the file is empty"
                                                             : "not a tvis run: too short for a file header"));
      return;
    }
    auto self = shared_from_this();
    src.read(0, kFileHeaderSize, [self](Result<Bytes> r) { self->on_header(std::move(r)); });
  }

 private:
  uint64_t file_size() const { return reader_->source_->size(); }

  void on_header(Result<Bytes> r) {
    if (!r.ok()) return fail(r.status());
    Status s = decode_file_header(r.value().data(), r.value().size(), &reader_->header_);
    if (!s) return fail(s);
    if (file_size() < kFileHeaderSize + kChunkHeaderSize + kTrailerSize)
      return start_scan("footer missing");
    auto self = shared_from_this();
    reader_->source_->read(file_size() - kTrailerSize, kTrailerSize,
                           [self](Result<Bytes> t) { self->on_trailer(std::move(t)); });
  }

  // grow(): the size now decides between nothing new, the trailer, and a scan.
  void on_size(Result<uint64_t> r) {
    if (!r.ok()) return fail(r.status());
    const uint64_t was = previous_->size_seen_;
    if (r.value() < was)
      return fail(Status::error(ErrorCode::Truncated, reader_->source_->name() + ": the run file shrank from " +
                                                          std::to_string(was) + " to " + std::to_string(r.value()) +
                                                          " bytes (truncated or replaced); open it again"));
    if (r.value() == was) {
      OpenDone done = std::move(done_);
      done(previous_);
      return;
    }
    uint64_t chunks_end = kFileHeaderSize;
    if (!previous_->chunks_.empty()) {
      const ChunkEntry& last = previous_->chunks_.back();
      chunks_end = last.offset + kChunkHeaderSize + last.compressed_size;
    }
    if (file_size() < chunks_end + kChunkHeaderSize + kTrailerSize) return start_scan("footer missing");
    if (cancelled()) return fail(cancelled_status());
    auto self = shared_from_this();
    reader_->source_->read(file_size() - kTrailerSize, kTrailerSize,
                           [self](Result<Bytes> t) { self->on_trailer(std::move(t)); });
  }

  Status replaced(const std::string& why) const {
    return Status::error(ErrorCode::Corrupt, reader_->source_->name() + ": the run file was replaced (" + why +
                                                 "); open it again");
  }

  // grow() reached a footer: its index must begin with the chunks read before.
  Status check_previous_chunks() const {
    if (!previous_) return Status::ok();
    const auto& before = previous_->chunks_;
    const auto& now = reader_->chunks_;
    if (now.size() < before.size())
      return replaced("its index lists " + std::to_string(now.size()) + " chunks, " + std::to_string(before.size()) +
                      " were read before");
    for (size_t i = 0; i < before.size(); ++i)
      if (!same_chunk(before[i], now[i])) return replaced(describe_chunk(before[i]) + " differs");
    return Status::ok();
  }

  static bool same_chunk(const ChunkEntry& a, const ChunkEntry& b) {
    return a.offset == b.offset && a.ordinal == b.ordinal && a.info.kind == b.info.kind &&
           a.compressed_size == b.compressed_size && a.raw_size == b.raw_size && a.payload_xxh64 == b.payload_xxh64;
  }

  void on_trailer(Result<Bytes> r) {
    if (!r.ok()) return fail(r.status());
    Status s = decode_trailer(r.value().data(), file_size(), &trailer_);
    if (!s) return start_scan(s.code == ErrorCode::Corrupt && s.message == "no trailer at the end of the file"
                                  ? std::string("footer missing")
                                  : "trailer damaged (" + s.message + ")");
    if (trailer_.footer_size - kChunkHeaderSize > kMaxChunkCompressedSize)
      return fail(Status::error(ErrorCode::TooLarge, "trailer: footer size " + std::to_string(trailer_.footer_size) +
                                                         " exceeds the 1 GiB chunk limit"));
    if (cancelled()) return fail(cancelled_status());
    auto self = shared_from_this();
    reader_->source_->read(trailer_.footer_offset, trailer_.footer_size,
                           [self](Result<Bytes> f) { self->on_footer(std::move(f)); });
  }

  void on_footer(Result<Bytes> r) {
    if (!r.ok()) return fail(r.status());
    const Bytes& b = r.value();
    ChunkEntry footer;
    Status s = decode_chunk_header(b.data(), trailer_.footer_offset, &footer);
    if (!s) return start_scan("footer damaged (" + s.message + ")");
    if (footer.info.kind != uint16_t(ChunkKind::Index) || footer.ordinal != trailer_.chunk_count ||
        kChunkHeaderSize + uint64_t(footer.compressed_size) != trailer_.footer_size)
      return start_scan("footer damaged (its header disagrees with the trailer)");
    s = check_chunk_sizes(footer, file_size());
    if (!s) return fail(s);
    if (footer.raw_size > max_index_size(trailer_.footer_offset))
      return fail(Status::error(ErrorCode::TooLarge,
                                describe_chunk(footer) + ": declares " + format_bytes(footer.raw_size) +
                                    " decoded; an index of the chunks that fit before it holds at most " +
                                    format_bytes(max_index_size(trailer_.footer_offset))));
    if (kEnforceChecksums &&
        XXH64(b.data() + kChunkHeaderSize, footer.compressed_size, 0) != footer.payload_xxh64)
      return start_scan("footer damaged (" + describe_chunk(footer) + ": payload checksum mismatch)");
    Result<DecodedChunk> d = decode_chunk_payload(footer, b.data() + kChunkHeaderSize, footer.compressed_size);
    if (!d.ok()) return fail(d.status());
    s = parse_index(footer, d.value().bytes());
    if (!s) return fail(s);
    s = check_previous_chunks();
    if (!s) return fail(s);
    reader_->complete_ = true;
    succeed();
  }

  // Index body: u64 count, then count 64-byte entries; every entry must be a
  // chunk that lies, in order and without overlap, before the footer.
  Status parse_index(const ChunkEntry& footer, const Bytes& body) {
    auto bad = [&](const std::string& what) {
      return Status::error(ErrorCode::Corrupt, describe_chunk(footer) + ": " + what);
    };
    if (body.size() < 8) return bad("index too short");
    const uint64_t count = le::get64(body.data());
    if (count > kMaxIndexEntries) return Status::error(ErrorCode::TooLarge, describe_chunk(footer) +
                                                                                ": index claims " +
                                                                                std::to_string(count) + " chunks");
    if (count != (body.size() - 8) / kIndexEntrySize || (body.size() - 8) % kIndexEntrySize != 0)
      return bad("index entry count " + std::to_string(count) + " does not match its size");
    if (count != trailer_.chunk_count) return bad("index and trailer disagree on the chunk count");
    std::vector<ChunkEntry>& chunks = reader_->chunks_;
    chunks.reserve(size_t(count));
    uint64_t next_free = kFileHeaderSize;
    for (uint64_t i = 0; i < count; ++i) {
      ChunkEntry e = decode_index_entry(body.data() + 8 + i * kIndexEntrySize);
      if (e.ordinal != i) return bad("index entry " + std::to_string(i) + " has ordinal " + std::to_string(e.ordinal));
      if (e.info.kind == uint16_t(ChunkKind::Index)) return bad("index lists an index chunk");
      Status s = check_chunk_sizes(e, trailer_.footer_offset);
      if (!s) return s.code == ErrorCode::Truncated ? bad("index entry " + std::to_string(i) + " overlaps the footer")
                                                     : s;
      if (e.offset < next_free) return bad("index entry " + std::to_string(i) + " overlaps the chunk before it");
      next_free = e.offset + kChunkHeaderSize + e.compressed_size;
      chunks.push_back(e);
    }
    return Status::ok();
  }

  // ------------------------------------------------------------- scanning --

  // A grow() scans on from the last chunk read before, whose header is read
  // again and must be unchanged (a file replaced under the same path is not).
  void start_scan(std::string why) {
    scan_why_ = std::move(why);
    scan_offset_ = kFileHeaderSize;
    reader_->chunks_.clear();
    recovered_bytes_ = 0;
    if (previous_ && !previous_->chunks_.empty()) {
      reader_->chunks_ = previous_->chunks_;
      expect_ = reader_->chunks_.back();
      reader_->chunks_.pop_back();
      scan_offset_ = expect_->offset;
      for (const ChunkEntry& c : reader_->chunks_) recovered_bytes_ += kChunkHeaderSize + c.compressed_size;
    }
    scan_loop();
  }

  // Iterates with a trampoline so a synchronous source does not recurse once
  // per chunk: the callback continues the loop only when it arrives late.
  void scan_loop() {
    for (;;) {
      if (scan_done_) return finish_scan();
      const uint64_t left = file_size() - scan_offset_;
      if (left == 0) {
        scan_done_ = true;
        continue;
      }
      if (left < kChunkHeaderSize) {
        stop_scan(std::to_string(left) + " bytes at the end are too few for a chunk header");
        continue;
      }
      if (reader_->chunks_.size() >= kMaxIndexEntries) {
        stop_scan("too many chunks");
        continue;
      }
      if (cancelled()) {
        fatal_ = cancelled_status();
        scan_done_ = true;
        continue;
      }
      in_read_ = true;
      completed_inline_ = false;
      auto self = shared_from_this();
      reader_->source_->read(scan_offset_, kChunkHeaderSize, [self](Result<Bytes> r) {
        self->scan_step(std::move(r));
        if (self->in_read_)
          self->completed_inline_ = true;
        else
          self->scan_loop();
      });
      in_read_ = false;
      if (!completed_inline_) return;
    }
  }

  void scan_step(Result<Bytes> r) {
    if (!r.ok()) {
      fatal_ = r.status();
      scan_done_ = true;
      return;
    }
    ChunkEntry e;
    Status s = decode_chunk_header(r.value().data(), scan_offset_, &e);
    if (expect_) {
      const ChunkEntry expected = *expect_;
      expect_.reset();
      if (!s || !same_chunk(e, expected)) {
        fatal_ = replaced(describe_chunk(expected) + " differs");
        scan_done_ = true;
        return;
      }
    }
    if (!s) return stop_scan(s.message);
    const uint32_t expected = uint32_t(reader_->chunks_.size());
    if (e.info.kind == uint16_t(ChunkKind::Index)) return stop_scan("reached the footer index");
    if (e.ordinal != expected)
      return stop_scan("chunk header has ordinal " + std::to_string(e.ordinal) + ", expected " +
                       std::to_string(expected));
    s = check_chunk_sizes(e, file_size());
    if (s.code == ErrorCode::TooLarge) {
      // An intact header with an impossible size is not a torn write.
      fatal_ = s;
      scan_done_ = true;
      return;
    }
    if (!s) return stop_scan(describe_chunk(e) + " extends past the end of the file");
    reader_->chunks_.push_back(e);
    recovered_bytes_ += kChunkHeaderSize + e.compressed_size;
    scan_offset_ += kChunkHeaderSize + e.compressed_size;
  }

  void stop_scan(std::string reason) {
    stop_reason_ = std::move(reason);
    scan_done_ = true;
  }

  void finish_scan() {
    if (!fatal_.is_ok()) return fail(fatal_);
    char buf[128];
    std::snprintf(buf, sizeof buf, ": recovered %zu chunks (%s) by scanning", reader_->chunks_.size(),
                  format_bytes(recovered_bytes_).c_str());
    std::string notice = scan_why_ + buf;
    if (stop_reason_.empty()) {
      notice += " to the end of the file";
    } else {
      std::snprintf(buf, sizeof buf, "; stopped at offset %" PRIu64 ": ", scan_offset_);
      notice += buf + stop_reason_;
    }
    reader_->recovery_notice_ = std::move(notice);
    reader_->complete_ = false;
    succeed();
  }

  // grow(): the caller no longer wants the answer (run_reader.h).
  bool cancelled() const { return cancelled_ && cancelled_(); }
  Status cancelled_status() const {
    return Status::error(ErrorCode::Cancelled, reader_->source_->name() + ": the recheck was cancelled");
  }

  void fail(Status s) {
    if (s.is_ok()) s = Status::error(ErrorCode::Corrupt, "unknown error");
    OpenDone done = std::move(done_);
    done(std::move(s));
  }
  void succeed() {
    reader_->size_seen_ = file_size();
    OpenDone done = std::move(done_);
    done(std::move(reader_));
  }

  std::shared_ptr<RunReader> reader_;
  OpenDone done_;
  std::shared_ptr<RunReader> previous_;  // grow(): the reader grown from
  std::optional<ChunkEntry> expect_;     // grow(): the header the scan must read first
  std::function<bool()> cancelled_;      // grow(): asked before each read after the size
  Trailer trailer_;
  // Scan state.
  std::string scan_why_, stop_reason_;
  uint64_t scan_offset_ = 0;
  uint64_t recovered_bytes_ = 0;
  bool scan_done_ = false;
  bool in_read_ = false;
  bool completed_inline_ = false;
  Status fatal_;
};

void RunReader::open(std::shared_ptr<ByteSource> source, OpenDone done) {
  if (!source) {
    done(Status::error(ErrorCode::Io, "no source"));
    return;
  }
  std::make_shared<RunOpener>(std::move(source), std::move(done))->start();
}

void RunReader::grow(OpenDone done, std::function<bool()> cancelled) {
  if (complete_) {
    done(shared_from_this());
    return;
  }
  std::make_shared<RunOpener>(shared_from_this(), std::move(done))->start_grow(std::move(cancelled));
}

namespace {
template <typename T>
struct SyncSlot {
  bool called = false;
  Result<T> result = Status::error(ErrorCode::Io, "the source did not answer synchronously");
};
}  // namespace

Result<std::shared_ptr<RunReader>> RunReader::open_sync(std::shared_ptr<ByteSource> source) {
  auto slot = std::make_shared<SyncSlot<std::shared_ptr<RunReader>>>();
  open(std::move(source), [slot](Result<std::shared_ptr<RunReader>> r) {
    slot->called = true;
    slot->result = std::move(r);
  });
  return std::move(slot->result);
}

// ---------------------------------------------------------------- chunks ---

void RunReader::read_stored_chunk(uint32_t ordinal, StoredChunkDone then) {
  if (ordinal >= chunks_.size()) {
    then({}, Status::error(ErrorCode::Corrupt, "no chunk " + std::to_string(ordinal) + " (the run has " +
                                                   std::to_string(chunks_.size()) + ")"));
    return;
  }
  const ChunkEntry entry = chunks_[ordinal];
  Status s = check_chunk_sizes(entry, source_->size());
  if (!s) {
    then(entry, s);
    return;
  }
  source_->read(entry.offset, kChunkHeaderSize + entry.compressed_size, [entry, then](Result<Bytes> r) {
    if (!r.ok()) return then(entry, Status::error(r.status().code, describe_chunk(entry) + ": " + r.status().message));
    Status s = check_stored_header(entry, r.value());
    if (!s) return then(entry, s);
    then(entry, std::move(r));
  });
}

void RunReader::read_chunk(uint32_t ordinal, ChunkDone done) { read_chunk_in_chain(ordinal, 0, std::move(done)); }

void RunReader::read_chunk_in_chain(uint32_t ordinal, int depth, ChunkDone done) {
  auto self = shared_from_this();  // a late answer finds the reader alive
  read_stored_chunk(ordinal, [self, depth, done](const ChunkEntry& entry, Result<Bytes> r) {
    if (!r.ok()) return done(r.status());
    const uint8_t* payload = r.value().data() + kChunkHeaderSize;
    if (entry.info.encoding == ChunkEncoding::Plain) {
      Result<DecodedChunk> d = decode_chunk_payload(entry, payload, entry.compressed_size);
      if (!d.ok()) return done(d.status());
      return done(std::shared_ptr<const DecodedChunk>(std::make_shared<DecodedChunk>(std::move(d.value()))));
    }
    if (self->header_.version_major < 2)
      return done(chunk_error(ErrorCode::Corrupt, entry,
                              "chunk encoding " + std::to_string(int(entry.info.encoding)) + " in a format " +
                                  std::to_string(self->header_.version_major) + " file (encodings are format 2)"));
    if (depth >= kMaxXorDeltaChain)
      return done(chunk_error(ErrorCode::Corrupt, entry,
                              "XOR delta chain longer than " + std::to_string(kMaxXorDeltaChain) + " chunks"));
    Result<Bytes> raw = inflate_payload(entry, payload, entry.compressed_size);
    if (!raw.ok()) return done(raw.status());
    Result<uint32_t> base = xor_delta_base(entry, raw.value(), self->chunks_);
    if (!base.ok()) return done(base.status());
    auto delta = std::make_shared<Bytes>(std::move(raw.value()));
    self->read_chunk_in_chain(base.value(), depth + 1, [entry, delta, done](Result<std::shared_ptr<const DecodedChunk>> b) {
      if (!b.ok())
        return done(Status::error(b.status().code, describe_chunk(entry) + ": its XOR delta base: " + b.status().message));
      const Bytes& from = b.value()->bytes();
      Bytes body(delta->size() - kXorDeltaTrailerSize);
      if (from.size() != body.size())  // the index said so; a base that decoded otherwise is corrupt
        return done(chunk_error(ErrorCode::Corrupt, entry, "XOR delta base decoded to another size"));
      const uint8_t* d = delta->data();
      const uint8_t* f = from.data();
      for (size_t i = 0; i < body.size(); ++i) body[i] = uint8_t(d[i] ^ f[i]);
      Status s = verify_flatbuffer(entry, body);
      if (!s) return done(s);
      done(std::shared_ptr<const DecodedChunk>(std::make_shared<DecodedChunk>(entry, std::move(body))));
    });
  });
}

void RunReader::verify_chunk(uint32_t ordinal, std::function<void(Status)> done) {
  if (ordinal < chunks_.size() && chunks_[ordinal].info.encoding != ChunkEncoding::Plain) {
    // Only its base makes an XOR delta's body: read it whole (and drop it).
    read_chunk(ordinal, [done](Result<std::shared_ptr<const DecodedChunk>> r) {
      done(r.ok() ? Status::ok() : r.status());
    });
    return;
  }
  read_stored_chunk(ordinal, [done](const ChunkEntry& entry, Result<Bytes> r) {
    if (!r.ok()) return done(r.status());
    done(verify_chunk_payload(entry, r.value().data() + kChunkHeaderSize, entry.compressed_size));
  });
}

Status RunReader::verify_chunk_sync(uint32_t ordinal) {
  // Shared: a source that answers late must not write to this frame.
  auto out = std::make_shared<Status>(Status::error(ErrorCode::Io, "the source did not answer synchronously"));
  verify_chunk(ordinal, [out](Status s) { *out = std::move(s); });
  return *out;
}

Result<std::shared_ptr<const DecodedChunk>> RunReader::read_chunk_sync(uint32_t ordinal) {
  auto slot = std::make_shared<SyncSlot<std::shared_ptr<const DecodedChunk>>>();
  read_chunk(ordinal, [slot](Result<std::shared_ptr<const DecodedChunk>> r) {
    slot->called = true;
    slot->result = std::move(r);
  });
  return std::move(slot->result);
}

}  // namespace tvis::format
