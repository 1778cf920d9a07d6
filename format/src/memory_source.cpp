#include <utility>

#include "tvis/format/byte_source.h"

namespace tvis::format {

namespace {

// Serves reads from a byte vector it owns; synchronous.
class MemorySource final : public ByteSource {
 public:
  MemorySource(Bytes bytes, std::string name) : bytes_(std::move(bytes)), name_(std::move(name)) {}
  uint64_t size() const override { return bytes_.size(); }
  std::string name() const override { return name_; }

  void read(uint64_t offset, uint64_t length, ReadDone done) override {
    const uint64_t size = bytes_.size();
    if (offset > size || length > size - offset) {
      done(Status::error(ErrorCode::Truncated, "read past the end of " + name_));
      return;
    }
    Bytes out(bytes_.begin() + static_cast<ptrdiff_t>(offset),
              bytes_.begin() + static_cast<ptrdiff_t>(offset + length));
    bytes_read_ += length;
    done(std::move(out));
  }

 private:
  Bytes bytes_;
  std::string name_;
};

}  // namespace

std::shared_ptr<ByteSource> make_memory_source(Bytes bytes, std::string name) {
  return std::make_shared<MemorySource>(std::move(bytes), std::move(name));
}

}  // namespace tvis::format
