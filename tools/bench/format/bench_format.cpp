// bench_format: writes a synthetic ~1 GB run (activation-like float32 values:
// ReLU'd gaussians and smooth image fields, plus event metadata) through
// RunWriter, then opens it and reads one tensor chunk. Prints:
//   - write MB/s (raw bytes in / wall time from first append to finalize()
//     returning, fsync included) and its ratio to zstd's own single-thread
//     compression of the same chunk bytes at the same level, measured here;
//   - compression ratio;
//   - open time and bytes read to open; time to read one tensor chunk.
// Goals: write >= 0.6x raw zstd; open < 1 MB read and < 50 ms.
//   bench_format [--bytes 1e9] [--level 1] [--out PATH] [--keep]
#include <CLI/CLI.hpp>
#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <thread>
#include <vector>

#include "synthetic_run.h"
#include "tvis/format/chunk_pack.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/run_reader.h"
#include "tvis/format/run_writer.h"
#include "tvis/format/tensor_data_chunk.h"
#include "tvis/schema/recording_generated.h"

namespace fmt = tvis::format;
namespace sc = tvis::schema;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct PoolChunk {
  fmt::ChunkInfo info;
  fmt::Bytes raw;
};

// An events chunk like a recorder's: 512 module calls with names and lines.
fmt::Bytes events_chunk(uint64_t first_id) {
  sc::EventBatchT batch;
  for (uint64_t i = 0; i < 512; ++i) {
    auto e = std::make_unique<sc::EventT>();
    e->id = first_id + i;
    e->parent = int64_t(first_id);
    e->kind = sc::EventKind::ModuleCall;
    e->step = int32_t(first_id / 10000);
    e->phase = sc::Phase::Forward;
    e->name = "blocks." + std::to_string(i % 24) + ".mlp.fc" + std::to_string(i % 2 + 1);
    e->class_name = "Linear";
    e->call_line = uint32_t(40 + i % 7);
    e->def_line = 12;
    e->t_begin_ns = int64_t(i * 1700);
    e->t_end_ns = int64_t(i * 1700 + 900);
    e->outputs = {first_id + i};
    batch.events.push_back(std::move(e));
  }
  sc::ChunkT chunk;
  chunk.body.Set(std::move(batch));
  return fmt::pack_chunk(chunk);
}

// Distinct chunks, reused in rotation to reach the target size (each chunk
// is compressed on its own, so reuse cannot help the compressor).
std::vector<PoolChunk> make_pool(size_t data_chunks, size_t chunk_bytes) {
  std::vector<PoolChunk> pool;
  std::vector<float> values(chunk_bytes / 4);
  for (size_t i = 0; i < data_chunks; ++i) {
    // Each chunk holds several tensors of 64k elements, alternating kinds.
    for (size_t off = 0; off < values.size(); off += 65536)
      tvis::synth::fill_activations(values.data() + off, std::min<size_t>(65536, values.size() - off),
                                    i * 1000 + off, int((off / 65536 + i) % 3 == 0));
    PoolChunk c;
    c.info.kind = uint16_t(fmt::ChunkKind::TensorData);
    c.info.filter = fmt::ChunkFilter::Shuffle4;
    c.raw = fmt::make_tensor_data_chunk(reinterpret_cast<const uint8_t*>(values.data()), values.size() * 4);
    pool.push_back(std::move(c));
    PoolChunk ev;
    ev.info.kind = uint16_t(fmt::ChunkKind::Events);
    ev.raw = events_chunk(i * 512);
    pool.push_back(std::move(ev));
  }
  return pool;
}

// zstd alone, one thread, same level, same bytes: MB/s over the pool.
double raw_zstd_mb_s(const std::vector<PoolChunk>& pool, int level, uint64_t* in_bytes, uint64_t* out_bytes) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  std::vector<uint8_t> out;
  *in_bytes = *out_bytes = 0;
  const auto t0 = Clock::now();
  for (const auto& c : pool) {
    out.resize(ZSTD_compressBound(c.raw.size()));
    const size_t n = ZSTD_compressCCtx(cctx, out.data(), out.size(), c.raw.data(), c.raw.size(), level);
    *in_bytes += c.raw.size();
    *out_bytes += n;
  }
  const double s = seconds_since(t0);
  ZSTD_freeCCtx(cctx);
  return double(*in_bytes) / 1e6 / s;
}

// CPU seconds used by the whole process (all threads) / by this thread.
double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_format: run-file write/open/read benchmark"};
  double target = 1e9;
  int level = 1;
  std::string out = "/tmp/tvis_bench_format.tvis";
  bool keep = false;
  size_t chunk_mb = 4;
  app.add_option("--bytes", target, "raw bytes to write (default 1e9)");
  app.add_option("--level", level, "zstd level (default 1)");
  app.add_option("--chunk-mb", chunk_mb, "tensor data chunk size in MB (default 4)");
  app.add_option("--out", out, "run file to write");
  app.add_flag("--keep", keep, "keep the file");
  CLI11_PARSE(app, argc, argv);

  const size_t chunk_bytes = chunk_mb << 20;
  const size_t pool_chunks = 32;
  std::printf("bench_format: %.2f GB target, zstd level %d, %zu MB tensor chunks\n", target / 1e9, level, chunk_mb);
  const auto tg = Clock::now();
  auto pool = make_pool(pool_chunks, chunk_bytes);
  std::printf("  generated %zu distinct chunks in %.1f s\n", pool.size(), seconds_since(tg));

  // zstd alone is measured before and after the write (the mean is the
  // baseline), so a busy machine hits both sides of the ratio alike.
  uint64_t zin = 0, zout = 0;
  raw_zstd_mb_s(pool, level, &zin, &zout);  // warm up
  const double zstd_cpu0 = thread_cpu_seconds();
  const double zstd_before = raw_zstd_mb_s(pool, level, &zin, &zout);
  const double zstd_cpu_per_byte = (thread_cpu_seconds() - zstd_cpu0) / double(zin);

  fmt::WriterOptions wo;
  wo.zstd_level = level;
  auto created = fmt::RunWriter::create(out, wo);
  if (!created.ok()) {
    std::fprintf(stderr, "bench_format: %s\n", created.status().message.c_str());
    return 1;
  }
  auto& writer = *created.value();
  // The chunks to append are copied out of the pool before the clock starts:
  // a recorder hands over buffers it built anyway, so the copy is not the
  // writer's cost. Then each is moved into append().
  std::vector<PoolChunk> work;
  uint64_t raw = 0;
  for (size_t i = 0; raw < uint64_t(target); ++i) {
    work.push_back(pool[i % pool.size()]);
    raw += work.back().raw.size();
  }
  const uint64_t appended = work.size();
  const double cpu0 = process_cpu_seconds();
  const auto t0 = Clock::now();
  for (PoolChunk& c : work) writer.append(c.info, std::move(c.raw));
  const double t_appended = seconds_since(t0);
  while (writer.stats().chunks < appended && writer.error().is_ok())
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  const double t_written = seconds_since(t0);  // every chunk handed to the OS
  fmt::Status s = writer.finalize();
  const double t_final = seconds_since(t0);    // footer, trailer, fsync
  const double write_cpu = process_cpu_seconds() - cpu0;
  if (!s) {
    std::fprintf(stderr, "bench_format: %s\n", s.message.c_str());
    return 1;
  }
  const double zstd_after = raw_zstd_mb_s(pool, level, &zin, &zout);
  const double zstd_mb_s = (zstd_before + zstd_after) / 2;
  const fmt::WriterStats st = writer.stats();
  const double write_mb_s = double(raw) / 1e6 / t_written;
  const double durable_mb_s = double(raw) / 1e6 / t_final;
  std::printf("  raw zstd %d, 1 thread, same chunk bytes: %.0f MB/s (%.0f before, %.0f after the write), ratio %.2fx\n",
              level, zstd_mb_s, zstd_before, zstd_after, double(zin) / double(zout));
  std::printf("  write: %.2f GB raw, appends returned after %.2f s, all chunks written after %.2f s = %.0f MB/s\n",
              double(raw) / 1e9, t_appended, t_written, write_mb_s);
  std::printf("  write / raw zstd = %.2f (goal >= 0.60)\n", write_mb_s / zstd_mb_s);
  std::printf("  finalize (footer, trailer, fsync) done after %.2f s = %.0f MB/s durable on disk\n", t_final,
              durable_mb_s);
  std::printf("  writer thread: encoding (shuffle + zstd + xxh64) %.2f s = %.0f MB/s, I/O calls %.2f s; peak backlog %.0f MB\n",
              st.compress_seconds, double(raw) / 1e6 / st.compress_seconds, st.io_seconds,
              double(st.peak_backlog_bytes) / 1e6);
  // On a machine shared with other work the wall-clock ratio reflects the CPU
  // share this process got; the CPU-time ratio is the writer's own cost.
  std::printf("  CPU time: zstd alone %.2f s per GB; writer (all threads, copies and syscalls) %.2f s per GB; "
              "ratio %.2f\n",
              zstd_cpu_per_byte * 1e9, write_cpu / double(raw) * 1e9, zstd_cpu_per_byte * double(raw) / write_cpu);
  std::printf("  file %.2f GB, %llu chunks, compression ratio %.2fx\n", double(st.file_bytes) / 1e9,
              (unsigned long long)st.chunks, double(raw) / double(st.file_bytes));

  std::vector<double> open_ms, read_ms;
  uint64_t open_bytes = 0;
  uint32_t tensor_chunk = 0;
  for (int i = 0; i < 7; ++i) {
    auto src = fmt::open_file_source(out);
    if (!src.ok()) return 1;
    const auto to = Clock::now();
    auto r = fmt::RunReader::open_sync(src.value());
    open_ms.push_back(seconds_since(to) * 1e3);
    if (!r.ok()) {
      std::fprintf(stderr, "bench_format: %s\n", r.status().message.c_str());
      return 1;
    }
    open_bytes = src.value()->bytes_read();
    tensor_chunk = uint32_t(r.value()->chunks().size() / 2) & ~1u;  // an even ordinal: TensorData
    const auto tr = Clock::now();
    auto c = r.value()->read_chunk_sync(tensor_chunk);
    read_ms.push_back(seconds_since(tr) * 1e3);
    if (!c.ok() || !c.value()->root()->body_as_TensorData()) {
      std::fprintf(stderr, "bench_format: reading chunk %u failed\n", tensor_chunk);
      return 1;
    }
  }
  std::printf("  open: %.2f ms (median of 7, page cache warm), %llu bytes read (goals < 50 ms, < 1 MB)\n",
              median(open_ms), (unsigned long long)open_bytes);
  std::printf("  read one %zu MB tensor chunk (%u): %.2f ms median\n", chunk_mb, tensor_chunk, median(read_ms));
  if (!keep) std::remove(out.c_str());
  const bool ok = write_mb_s >= 0.6 * zstd_mb_s && open_bytes < (1u << 20) && median(open_ms) < 50;
  std::printf("  goals %s\n", ok ? "met" : "NOT met");
  return ok ? 0 : 3;
}
