#include "tvis/remote/store_source.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "tvis/remote/protocol.h"

namespace tvis::remote {

namespace {

using format::ErrorCode;
using format::Status;

class StoreSource final : public format::ByteSource {
 public:
  StoreSource(std::shared_ptr<RunStore> store, std::string path, uint64_t size)
      : store_(std::move(store)), path_(std::move(path)), size_(size) {}

  uint64_t size() const override { return size_; }
  std::string name() const override { return store_->describe() + "/" + path_; }

  void recheck_size(format::SizeDone done) override {
    auto st = store_->stat(path_);
    if (!st.ok) {
      done(Status::error(ErrorCode::Io, name() + ": " + st.error));
      return;
    }
    size_ = st.value.size;
    done(st.value.size);
  }

  void read(uint64_t offset, uint64_t length, format::ReadDone done) override {
    const uint64_t size = size_;
    if (offset > size || length > size - offset) {
      done(Status::error(ErrorCode::Truncated, "read past the end of " + name()));
      return;
    }
    format::Bytes out(length);
    uint64_t got = 0;
    while (got < length) {
      const auto piece = static_cast<uint32_t>(std::min<uint64_t>(length - got, kMaxReadLength));
      auto r = store_->read(path_, offset + got, piece);
      if (!r.ok) {
        done(Status::error(ErrorCode::Io, name() + ": " + r.error));
        return;
      }
      if (r.value.bytes.size() != piece) {
        done(Status::error(ErrorCode::Io, name() + ": a read of " + std::to_string(piece) + " bytes returned " +
                                              std::to_string(r.value.bytes.size())));
        return;
      }
      std::memcpy(out.data() + got, r.value.bytes.data(), piece);
      got += piece;
    }
    bytes_read_ += length;
    done(std::move(out));
  }

 private:
  std::shared_ptr<RunStore> store_;
  std::string path_;
  std::atomic<uint64_t> size_;  // recheck_size() on the grow worker's thread, read() on the decode worker's
};

}  // namespace

format::Result<std::shared_ptr<format::ByteSource>> open_store_source(std::shared_ptr<RunStore> store,
                                                                      const std::string& path) {
  auto st = store->stat(path);
  if (!st.ok) return Status::error(ErrorCode::Io, store->describe() + "/" + path + ": " + st.error);
  return std::shared_ptr<format::ByteSource>(std::make_shared<StoreSource>(std::move(store), path, st.value.size));
}

}  // namespace tvis::remote
