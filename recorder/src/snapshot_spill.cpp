#include "tvis/recorder/snapshot_spill.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace tvis::recorder {

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& dir) {
  throw std::runtime_error("weight snapshot file in " + dir + ": " + what + ": " + std::strerror(errno));
}

}  // namespace

SnapshotSpill::SnapshotSpill(const std::string& dir) : dir_(dir.empty() ? "." : dir) {
#ifdef O_TMPFILE
  fd_ = ::open(dir_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
  if (fd_ < 0) {
    std::string templ = dir_ + "/.tvis-snapshot-XXXXXX";
    std::vector<char> name(templ.begin(), templ.end());
    name.push_back('\0');
    fd_ = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd_ < 0) fail("cannot create", dir_);
    ::unlink(name.data());
  }
}

SnapshotSpill::~SnapshotSpill() {
  if (fd_ >= 0) ::close(fd_);
}

int64_t SnapshotSpill::write(const at::Tensor& t) {
  const auto* p = static_cast<const char*>(t.data_ptr());
  const size_t bytes = static_cast<size_t>(t.numel()) * t.element_size();
  const uint64_t offset = end_;
  for (size_t done = 0; done < bytes;) {
    const ssize_t n = ::pwrite(fd_, p + done, bytes - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write", dir_);
    done += static_cast<size_t>(n);
  }
  end_ = offset + bytes;
  return static_cast<int64_t>(offset);
}

void SnapshotSpill::read(int64_t offset, void* dst, size_t bytes) const {
  auto* p = static_cast<char*>(dst);
  for (size_t done = 0; done < bytes;) {
    const ssize_t n = ::pread(fd_, p + done, bytes - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot read back", dir_);
    done += static_cast<size_t>(n);
  }
}

ValueStats SnapshotSpill::delta_stats(int64_t offset, const at::Tensor& after) const {
  const float* a = after.data_ptr<float>();
  const size_t n = static_cast<size_t>(after.numel());
  constexpr size_t kPiece = size_t(1) << 18;
  std::vector<float> before(kPiece), delta(kPiece);
  const auto piece = [&](size_t k) {  // delta[0, m) = after - before over piece k
    const size_t i0 = k * kPiece, m = std::min(kPiece, n - i0);
    read(offset + static_cast<int64_t>(i0 * sizeof(float)), before.data(), m * sizeof(float));
    for (size_t j = 0; j < m; ++j) delta[j] = a[i0 + j] - before[j];
    return m;
  };
  const size_t pieces = (n + kPiece - 1) / kPiece;
  Sums all;
  for (size_t k = 0; k < pieces; ++k) {
    const size_t m = piece(k);
    all = merge_sums(all, sums_of_f32(delta.data(), m));
  }
  if (!all.finite) {
    std::vector<float> whole(n);
    read(offset, whole.data(), n * sizeof(float));
    for (size_t i = 0; i < n; ++i) whole[i] = a[i] - whole[i];
    return stats_of_f32(whole.data(), n);
  }
  std::vector<uint32_t> hist(kHistogramBins, 0);
  for (size_t k = 0; k < pieces; ++k) {
    const size_t m = piece(k);
    add_histogram_f32(delta.data(), m, all.lo, all.hi, hist.data());
  }
  return stats_from(all, std::move(hist));
}

void SnapshotSpill::rewind() {
  if (end_ == 0) return;
  if (::ftruncate(fd_, 0) != 0) fail("cannot truncate", dir_);
  end_ = 0;
}

}  // namespace tvis::recorder
