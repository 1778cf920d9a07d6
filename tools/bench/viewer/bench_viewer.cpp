// bench_viewer: how fast the viewer shows a big run, natively and headless
// (Dear ImGui context without a window or GPU: the figures are the App's CPU
// cost per frame, which is what the shells add their draw calls to).
//
//   bench_viewer [--calls N] [--bytes B] [--dir DIR] [--keep] [--reuse]
//
// --reuse: measure big.tvis and sparse.tvis already in DIR (from --keep).
//
// 1. Writes a synthetic run (tools/synth) of ~B bytes of tensor values with N
//    module calls over 3 steps, and a sparse copy whose chunks after the
//    first half sit beyond a 4 GiB hole (the file is > 4 GiB on paper).
// 2. For each file: opens it, renders frames until the call tree shows its
//    first rows (loaded, not placeholders) and reports that time, the frames
//    it took and the bytes read (share of the file).
// 3. Scrolls the fully expanded tree with the mouse wheel through the whole
//    run (and back), timing each frame: median and p99. Then selects a call
//    (inspector with a heatmap) and steps through calls with the arrow key.
// Goals (issue 5): first frame < 200 ms, < 1% of the file read, p99 < 16 ms.
// Exit 0 when all are met, 3 otherwise.
#include <fcntl.h>
#include <imgui.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "synthetic_run.h"
#include "tvis/format/chunk_encoder.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/container_codec.h"
#include "tvis/format/run_reader.h"
#include "tvis/viewer/app.h"
#include "app_state.h"
#include "pages/explore_state.h"

namespace fmt = tvis::format;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5));
  return v[k];
}

// Re-lays `src` out into `dst` with a hole of `hole` bytes before the chunk
// at the middle of the file; footer and trailer rebuilt. Returns "" or why not.
std::string write_sparse_copy(const std::string& src, const std::string& dst, uint64_t hole) {
  auto source = fmt::open_file_source(src);
  if (!source.ok()) return source.status().message;
  auto reader = fmt::RunReader::open_sync(source.value());
  if (!reader.ok()) return reader.status().message;
  const auto& chunks = reader.value()->chunks();
  const int in = ::open(src.c_str(), O_RDONLY);
  const int out = ::open(dst.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (in < 0 || out < 0) return "cannot open " + src + " or " + dst;
  std::vector<uint8_t> buf;
  auto copy = [&](uint64_t from, uint64_t to, uint64_t n) {
    buf.resize(n);
    return ::pread(in, buf.data(), n, static_cast<off_t>(from)) == static_cast<ssize_t>(n) &&
           ::pwrite(out, buf.data(), n, static_cast<off_t>(to)) == static_cast<ssize_t>(n);
  };
  if (!copy(0, 0, fmt::kFileHeaderSize)) return "copy failed";
  const uint64_t middle = source.value()->size() / 2;
  std::vector<fmt::ChunkEntry> entries;
  uint64_t at = fmt::kFileHeaderSize;
  bool holed = false;
  for (const auto& c : chunks) {
    if (!holed && c.offset >= middle) {
      at += hole;
      holed = true;
    }
    const uint64_t n = fmt::kChunkHeaderSize + c.compressed_size;
    if (!copy(c.offset, at, n)) return "copy failed";
    fmt::ChunkEntry e = c;
    e.offset = at;
    entries.push_back(e);
    at += n;
  }
  fmt::Bytes index(8 + entries.size() * fmt::kIndexEntrySize, 0);
  const uint64_t count = entries.size();
  std::memcpy(index.data(), &count, 8);  // little-endian host
  for (size_t i = 0; i < entries.size(); ++i) fmt::encode_index_entry(entries[i], index.data() + 8 + i * fmt::kIndexEntrySize);
  fmt::ChunkEncoder enc;
  fmt::Bytes footer;
  fmt::ChunkEntry fe;
  fmt::ChunkInfo fi;
  fi.kind = static_cast<uint16_t>(fmt::ChunkKind::Index);
  if (!enc.encode(fi, static_cast<uint32_t>(entries.size()), index.data(), index.size(), &footer, &fe).is_ok())
    return "footer encode failed";
  fmt::Trailer t{at, footer.size(), static_cast<uint32_t>(entries.size())};
  uint8_t tail[fmt::kTrailerSize];
  fmt::encode_trailer(t, tail);
  if (::pwrite(out, footer.data(), footer.size(), static_cast<off_t>(at)) != static_cast<ssize_t>(footer.size()) ||
      ::pwrite(out, tail, sizeof tail, static_cast<off_t>(at + footer.size())) != static_cast<ssize_t>(sizeof tail))
    return "footer write failed";
  ::close(in);
  ::close(out);
  return {};
}

struct Headless {
  ImGuiContext* ctx = nullptr;
  std::unique_ptr<tvis::viewer::App> app;
  Headless() {
    ctx = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(1400, 900);
    io.DeltaTime = 1.0f / 60.0f;
    io.IniFilename = nullptr;
    for (int k = 0; k < ImGuiKey_COUNT; ++k) io.KeyMap[k] = 100 + k;
    io.MousePos = ImVec2(-1, -1);
    app = std::make_unique<tvis::viewer::App>();
    app->configure_scale(1.0f, 1.0f);
  }
  ~Headless() {
    app.reset();
    ImGui::DestroyContext(ctx);
  }
  double frame() {
    const auto t0 = Clock::now();
    ImGui::NewFrame();
    app->frame();
    ImGui::Render();
    const double ms = ms_since(t0);
    app->record_frame_ms(ms);
    return ms;
  }
};

struct Figures {
  double first_ms = 0;
  int first_frames = 0;
  uint64_t first_bytes = 0, file_bytes = 0;
  double scroll_median = 0, scroll_p99 = 0, scroll_max = 0;
  int scroll_frames = 0;
  double inspect_median = 0, inspect_p99 = 0;
  bool rows_ok = false;
  bool reached_end = false;  // the scroll went through every row and back
};

Figures measure(const std::string& path) {
  Figures f;
  Headless h;
  ImGuiIO& io = ImGui::GetIO();
  const auto t0 = Clock::now();
  auto source = fmt::open_file_source(path);
  if (!source.ok()) {
    std::fprintf(stderr, "bench_viewer: %s\n", source.status().message.c_str());
    return f;
  }
  auto src = source.value();
  h.app->open(src);
  float r[4];
  // Rows are shown once row 0 is drawn and the selection of row 0 has a name,
  // i.e. its Events chunk is decoded (sync source: the frame after it was asked for).
  // The call tree is Explore's (Replay is a training run's first page): it is
  // asked for as a user's click on its tab, once the run has opened.
  bool explore_shown = false;
  for (int i = 0; i < 100; ++i) {
    if (!explore_shown) explore_shown = h.app->command(R"({"page": "Explore"})") == "true";
    h.frame();
    ++f.first_frames;
    if (h.app->event_row_rect(0, r) && h.app->event_row_rect(20, r)) {
      h.frame();  // rows drawn with the answered chunk
      ++f.first_frames;
      break;
    }
  }
  f.first_ms = ms_since(t0);
  f.first_bytes = src->bytes_read();
  f.file_bytes = src->size();
  // Validate: the first row is a loaded call (its name is in the selection).
  if (h.app->event_row_rect(0, r)) {
    io.MousePos = ImVec2((r[0] + r[2]) * 0.5f, (r[1] + r[3]) * 0.5f);
    h.frame();
    io.MouseDown[0] = true;
    h.frame();
    io.MouseDown[0] = false;
    h.frame();
    const std::string st = h.app->state_json();
    f.rows_ok = st.find("\"name\":\"train\"") != std::string::npos;
  }
  // Scroll the fully expanded tree down through the whole run and back up.
  io.MousePos = ImVec2(300, 400);
  std::vector<double> times;
  const std::string st = h.app->state_json();
  const size_t at = st.find("\"events\":");
  const uint64_t events = at == std::string::npos ? 0 : std::strtoull(st.c_str() + at + 9, nullptr, 10);
  for (int dir : {-1, 1}) {
    for (int i = 0; i < 1500; ++i) {
      io.MouseWheel = static_cast<float>(dir) * 25.0f;  // ~125 rows a frame
      times.push_back(h.frame());
    }
    // Down: the last call's row is on screen; up: the first one's again.
    if (dir < 0) f.reached_end = events > 0 && h.app->event_row_rect(events - 1, r);
    else f.reached_end = f.reached_end && h.app->event_row_rect(0, r);
  }
  io.MouseWheel = 0;
  f.scroll_frames = static_cast<int>(times.size());
  f.scroll_median = percentile(times, 0.5);
  f.scroll_p99 = percentile(times, 0.99);
  f.scroll_max = percentile(times, 1.0);
  // Inspector: select the first module call and step through calls (heatmaps, lazily loaded tensors).
  std::vector<double> inspect;
  for (int i = 0; i < 400; ++i) {
    io.KeysDown[100 + ImGuiKey_RightArrow] = (i % 2) == 0;
    inspect.push_back(h.frame());
  }
  io.KeysDown[100 + ImGuiKey_RightArrow] = false;
  f.inspect_median = percentile(inspect, 0.5);
  f.inspect_p99 = percentile(inspect, 0.99);
  return f;
}

// One bottom panel drawn on its own over the run (a window like the page's
// strip), step 1 selected: frame median / p99 once its chunks have loaded.
template <typename Draw>
void panel_figures(const std::string& path, const char* name, Draw draw) {
  Headless h;
  tvis::viewer::AppState s(tvis::viewer::AppOptions{});
  auto source = fmt::open_file_source(path);
  if (!source.ok()) return;
  s.model.open(source.value());
  s.selection.step = 1;
  tvis::viewer::ExploreState x;
  std::vector<double> times;
  double first = 0;
  uint64_t most_decoded = 0;  // raw bytes decoded by one frame
  int decoding_frames = 0;
  ImGuiIO& io = ImGui::GetIO();
  for (int i = 0; i < 300; ++i) {
    const uint64_t decoded0 = s.model.cache().decoded_bytes();
    io.MousePos = ImVec2(200.0f + static_cast<float>(i % 600), 150.0f);
    io.MouseWheel = i >= 100 && i < 200 ? (i % 20 < 10 ? 1.0f : -1.0f) : 0.0f;  // zoom in and out
    const auto t0 = Clock::now();
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(860, 300));
    ImGui::Begin("panel");
    s.model.tensors().begin_frame(2);  // as draw_explore_page does
    s.model.cache().begin_frame(s.options.frame_decode_bytes);  // as App::frame does
    draw(s, x);
    ImGui::End();
    ImGui::Render();
    const double ms = ms_since(t0);
    if (i == 0) first = ms;
    times.push_back(ms);
    const uint64_t decoded = s.model.cache().decoded_bytes() - decoded0;
    most_decoded = std::max(most_decoded, decoded);
    if (decoded) ++decoding_frames;
  }
  io.MouseWheel = 0;
  std::printf("  %-9s panel, step 1: first frame %.1f ms, worst %.1f ms (while the step loads), median %.2f ms, p99 %.2f ms\n"
              "            decoding spread over %d frames, at most %.0f kB raw in one\n",
              name, first, percentile(times, 1.0), percentile(times, 0.5), percentile(times, 0.99), decoding_frames,
              static_cast<double>(most_decoded) / 1e3);
}

void print(const char* label, const Figures& f) {
  std::printf("%s\n", label);
  std::printf("  file                 %.1f MB\n", static_cast<double>(f.file_bytes) / 1e6);
  std::printf("  first frame          %.1f ms (%d frames) with call-tree rows%s\n", f.first_ms, f.first_frames,
              f.rows_ok ? "" : "  [rows NOT verified]");
  std::printf("  bytes read for it    %.1f kB = %.4f%% of the file\n", static_cast<double>(f.first_bytes) / 1e3,
              100.0 * static_cast<double>(f.first_bytes) / static_cast<double>(std::max<uint64_t>(1, f.file_bytes)));
  std::printf("  frame, tree scrolled median %.2f ms, p99 %.2f ms, max %.2f ms (%d frames, %s)\n", f.scroll_median,
              f.scroll_p99, f.scroll_max, f.scroll_frames,
              f.reached_end ? "to the last call and back" : "did NOT reach the last call");
  std::printf("  frame, stepping calls + inspector median %.2f ms, p99 %.2f ms\n", f.inspect_median, f.inspect_p99);
}

bool goals_met(const Figures& f) {
  return f.rows_ok && f.reached_end && f.first_ms < 200 &&
         static_cast<double>(f.first_bytes) < 0.01 * static_cast<double>(f.file_bytes) && f.scroll_p99 < 16;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t calls = 100000;
  double bytes = 1.7e9;  // raw value bytes: ~1 GB on disk after zstd
  std::string dir = (std::filesystem::temp_directory_path() / "tvis_bench_viewer").string();
  bool keep = false, reuse = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--calls" && i + 1 < argc) calls = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--bytes" && i + 1 < argc) bytes = std::strtod(argv[++i], nullptr);
    else if (a == "--dir" && i + 1 < argc) dir = argv[++i];
    else if (a == "--keep") keep = true;
    else if (a == "--reuse") reuse = keep = true;
    else {
      std::fprintf(stderr, "usage: bench_viewer [--calls N] [--bytes B] [--dir DIR] [--keep] [--reuse]\n");
      return 2;
    }
  }
  std::filesystem::create_directories(dir);
  const std::string run = dir + "/big.tvis", sparse = dir + "/sparse.tvis";
  if (!reuse || !std::filesystem::exists(run) || !std::filesystem::exists(sparse)) {
    tvis::synth::SynthOptions o;
    o.steps = 3;
    o.calls = calls;
    o.target_bytes = bytes;
    const auto t0 = Clock::now();
    auto report = tvis::synth::write_synthetic_run(run, o);
    if (!report.ok()) {
      std::fprintf(stderr, "bench_viewer: %s\n", report.status().message.c_str());
      return 1;
    }
    std::printf("synthetic run: %llu events, %llu tensors, %.1f MB, written in %.1f s\n",
                static_cast<unsigned long long>(report.value().events),
                static_cast<unsigned long long>(report.value().tensors),
                static_cast<double>(report.value().file_bytes) / 1e6, ms_since(t0) / 1e3);
    const std::string problem = write_sparse_copy(run, sparse, 4ull << 30);
    if (!problem.empty()) {
      std::fprintf(stderr, "bench_viewer: sparse copy: %s\n", problem.c_str());
      return 1;
    }
  }
  const Figures a = measure(run);
  print("~1 GB run", a);
  panel_figures(run, "timeline", tvis::viewer::draw_timeline);
  panel_figures(run, "layers", tvis::viewer::draw_layers_table);
  panel_figures(run, "source", tvis::viewer::draw_source_view);
  const Figures b = measure(sparse);
  print("sparse run (> 4 GiB, half its chunks past the hole)", b);
  if (!keep) {
    std::filesystem::remove(run);
    std::filesystem::remove(sparse);
  }
  const bool ok = goals_met(a) && goals_met(b);
  std::printf("goals (first frame < 200 ms, < 1%% read, p99 < 16 ms): %s\n", ok ? "met" : "NOT met");
  return ok ? 0 : 3;
}
