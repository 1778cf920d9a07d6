// bench_replay: Replay playing a real run on a headless ImGui context (the
// App's whole frame: model, pages, draw lists; no GPU), one move per frame
// (60 stops a second at 60 frames a second, step size "layer"), from the
// first stop to the end of the run. Prints the frame time per phase (median,
// p99, max), the frames shown "loading" after the first step (the position
// waiting for its step's events: prefetching should make this 0), and the
// run bytes read to play each whole step. Before playing it prints what the
// first page costs once settled (no read in flight for 10 frames): the bytes
// read and the chunks they were, by kind (what `tvis open` sends over ssh).
//
// Chunks are decoded on the decode worker as in an interactive tvis-view;
// --sync decodes them inside the frame (a bounded tvis-view, the old figures).
//
//   bench_replay RUN.tvis [--speed STOPS_PER_S] [--size call|layer] [--sync] [-v: list frames over 16 ms]
//   (the ResNet-18 case: tvis run --steps 3 tools/bench/recorder/resnet18_cpu.py --steps 3)
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "app_state.h"
#include "pages/replay_state.h"
#include "tvis/format/byte_source.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/run_reader.h"
#include "tvis/viewer/app.h"

namespace {

using Clock = std::chrono::steady_clock;

double pct(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5))];
}

// A file source that remembers the offset of every read (to name the chunks read).
class RecordingSource : public tvis::format::ByteSource {
 public:
  explicit RecordingSource(std::shared_ptr<tvis::format::ByteSource> inner) : inner_(std::move(inner)) {}
  uint64_t size() const override { return inner_->size(); }
  std::string name() const override { return inner_->name(); }
  void read(uint64_t offset, uint64_t length, tvis::format::ReadDone done) override {
    offsets.push_back(offset);
    bytes_read_ += length;
    inner_->read(offset, length, std::move(done));
  }
  std::vector<uint64_t> offsets;

 private:
  std::shared_ptr<tvis::format::ByteSource> inner_;
};

// "N x KIND (B MB)" for the chunks starting at the offsets read from..to.
void print_chunks_read(const std::string& path, const std::vector<uint64_t>& offsets) {
  auto src = tvis::format::open_file_source(path);
  if (!src.ok()) return;
  auto reader = tvis::format::RunReader::open_sync(src.value());
  if (!reader.ok()) return;
  std::map<uint64_t, const tvis::format::ChunkEntry*> at;
  for (const auto& c : reader.value()->chunks()) at[c.offset] = &c;
  std::map<std::string, std::pair<int, uint64_t>> by_kind;
  for (uint64_t o : offsets) {
    auto it = at.find(o);
    if (it == at.end()) continue;
    auto& k = by_kind[tvis::format::chunk_kind_name(it->second->info.kind)];
    ++k.first;
    k.second += it->second->compressed_size;
  }
  for (const auto& [kind, n] : by_kind) std::printf("  %3d x %-14s %8.3f MB\n", n.first, kind.c_str(), n.second / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_replay RUN.tvis [--speed STOPS_PER_S] [--size layer|call]\n");
    return 2;
  }
  const std::string path = argv[1];
  double speed = 60;
  std::string size = "layer";
  bool verbose = false, sync = false;
  for (int i = 2; i < argc; ++i) {
    if (!std::strcmp(argv[i], "-v")) verbose = true;
    if (!std::strcmp(argv[i], "--sync")) sync = true;
  }
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--speed")) speed = std::atof(argv[i + 1]);
    if (!std::strcmp(argv[i], "--size")) size = argv[i + 1];
    if (!std::strcmp(argv[i], "--sync") || !std::strcmp(argv[i], "-v")) --i;  // flags take no value
  }
  ImGuiContext* ctx = ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(1400, 900);
  io.DeltaTime = 1.0f / 60.0f;
  io.IniFilename = nullptr;
  for (int k = 0; k < ImGuiKey_COUNT; ++k) io.KeyMap[k] = 100 + k;
  io.MousePos = ImVec2(-1, -1);
  tvis::viewer::AppOptions options;
  options.decode_in_background = !sync;
  auto app = std::make_unique<tvis::viewer::App>(options);
  app->configure_scale(1.0f, 1.0f);
  unsigned char* px;
  int w, h;
  io.Fonts->GetTexDataAsRGBA32(&px, &w, &h);
  auto frame = [&] {
    const auto t0 = Clock::now();
    ImGui::NewFrame();
    app->frame();
    ImGui::Render();
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    app->record_frame_ms(ms);
    return ms;
  };
  auto file_source = tvis::format::open_file_source(path);
  if (!file_source.ok()) {
    std::fprintf(stderr, "bench_replay: %s\n", file_source.status().message.c_str());
    return 1;
  }
  auto source = std::make_shared<RecordingSource>(file_source.value());
  const auto t_open = Clock::now();
  app->open(source);
  tvis::viewer::AppState& s = app->internals();
  const tvis::viewer::PageSpec& replay_page = *tvis::viewer::page_named("Replay");
  int opening = 0;
  for (; opening < 600; ++opening) {
    frame();
    tvis::viewer::ReplayState* r = tvis::viewer::existing_page_state<tvis::viewer::ReplayState>(s, replay_page);
    if (r && tvis::viewer::current_stop(s, *r)) break;
  }
  const double first_ms = std::chrono::duration<double, std::milli>(Clock::now() - t_open).count();
  const uint64_t file = s.model.file_size();
  std::printf("run %s: %.1f MB, %d steps; chunks decoded %s\n", path.c_str(), file / 1e6, s.model.step_count(),
              s.model.cache().decodes_in_background() ? "on the decode worker" : "in the frame (--sync)");
  std::printf("first Replay position after %d frames, %.0f ms, %.2f MB read\n", opening + 1, first_ms,
              s.model.bytes_read() / 1e6);
  int idle = 0, settle = 0;
  for (; settle < 600 && idle < 10; ++settle) {
    frame();
    idle = app->loading() ? 0 : idle + 1;
  }
  std::printf("first page settled after %d more frames: %.3f MB read in %zu reads; chunks read:\n", settle,
              s.model.bytes_read() / 1e6, source->offsets.size());
  print_chunks_read(path, source->offsets);
  app->command(nlohmann::json{{"step_size", size}}.dump());
  app->command(nlohmann::json{{"speed", speed}}.dump());
  app->command(nlohmann::json{{"play", true}}.dump());

  std::map<std::string, std::vector<double>> by_phase;
  std::map<int, uint64_t> bytes_at_step_start;
  int loading_after_first = 0, frames = 0, slow = 0, slow_decoding = 0;
  int waiting = 0, waiting_run = 0, waiting_longest = 0;  // frames drawn while a chunk was still being read
  int last_step = -1;
  const int steps = s.model.step_count();
  for (; frames < 200000; ++frames) {
    tvis::viewer::ReplayState& r = tvis::viewer::page_state<tvis::viewer::ReplayState>(s, replay_page);
    if (r.step != last_step) {
      bytes_at_step_start[r.step] = s.model.bytes_read();
      last_step = r.step;
    }
    const uint64_t decoded0 = s.model.cache().decoded_bytes();
    const auto t_frame = Clock::now();
    const double ms = frame();
    // Frames are paced at 60 a second, as a window's are: a background decode
    // takes real time, which the frames it spans must cover.
    std::this_thread::sleep_until(t_frame + std::chrono::microseconds(16667));
    waiting_run = app->loading() ? waiting_run + 1 : 0;
    waiting += waiting_run > 0;
    waiting_longest = std::max(waiting_longest, waiting_run);
    const tvis::viewer::Stop* st = tvis::viewer::current_stop(s, r);
    const uint64_t decoded = s.model.cache().decoded_bytes() - decoded0;
    if (ms > 16.0) {
      ++slow;
      if (decoded) ++slow_decoding;
      if (verbose)
        std::printf("  slow frame %.1f ms at step %d %s %s (decoded %.2f MB this frame)\n", ms, r.step,
                    st ? tvis::viewer::phase_label(st->phase) : "-", st ? st->name.c_str() : "-", decoded / 1e6);
    }
    if (!st) {
      if (r.step > 0) ++loading_after_first;
      by_phase["(loading)"].push_back(ms);
    } else {
      by_phase[tvis::viewer::phase_label(st->phase)].push_back(ms);
    }
    if (!r.playing) break;  // the run's end
  }
  bytes_at_step_start[steps] = s.model.bytes_read();
  std::printf("played %d frames (step size %s, %.0f stops/s)\n", frames + 1, size.c_str(), speed);
  std::printf("%-10s %7s %9s %9s %9s\n", "phase", "frames", "median", "p99", "max");
  std::vector<double> all;
  for (const char* p : {"data", "forward", "loss", "backward", "optimizer", "(loading)"}) {
    auto it = by_phase.find(p);
    if (it == by_phase.end()) continue;
    const auto& v = it->second;
    all.insert(all.end(), v.begin(), v.end());
    std::printf("%-10s %7zu %7.2fms %7.2fms %7.2fms\n", p, v.size(), pct(v, 0.5), pct(v, 0.99),
                *std::max_element(v.begin(), v.end()));
  }
  std::printf("%-10s %7zu %7.2fms %7.2fms %7.2fms\n", "all", all.size(), pct(all, 0.5), pct(all, 0.99),
              all.empty() ? 0.0 : *std::max_element(all.begin(), all.end()));
  std::printf("frames shown loading after the first step: %d\n", loading_after_first);
  std::printf("frames over 16 ms: %d (%d of them took in a decoded chunk%s)\n", slow, slow_decoding,
              s.model.cache().decodes_in_background() ? "" : ": a synchronous file source decodes in the frame");
  std::printf("frames drawn while a chunk was still being read/decoded: %d (longest run %d frames)\n", waiting,
              waiting_longest);
  for (int k = 0; k < steps; ++k)
    if (bytes_at_step_start.count(k) && bytes_at_step_start.count(k + 1))
      std::printf("bytes read playing step %d: %.2f MB (%.1f%% of the file)\n", k,
                  (bytes_at_step_start[k + 1] - bytes_at_step_start[k]) / 1e6,
                  100.0 * (bytes_at_step_start[k + 1] - bytes_at_step_start[k]) / std::max<uint64_t>(1, file));
  app.reset();
  ImGui::DestroyContext(ctx);
  return 0;
}
