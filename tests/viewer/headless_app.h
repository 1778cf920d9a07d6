// headless_app.h: the viewer App on a headless ImGui context (no window, no
// GPU): frames are built and rendered to draw lists only. Input is fed the
// way a backend would (mouse position/buttons, KeysDown, characters).
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "tvis/format/byte_source.h"
#include "tvis/viewer/app.h"

struct ImGuiContext;

namespace tvis::test {

class HeadlessApp {
 public:
  explicit HeadlessApp(viewer::AppOptions options = {}, float width = 1400, float height = 900);
  ~HeadlessApp();

  viewer::App& app() { return *app_; }
  void frame(int n = 1);
  nlohmann::json state() const;

  /// Clicks the centre of the Explore row of event `id` (press, release);
  /// false if that row was not drawn in the last frame.
  bool click_event_row(uint64_t id);
  /// Clicks the centre of the run list's row `index`, as click_event_row does.
  bool click_run_row(size_t index);
  /// Presses and releases one navigation key (ImGuiKey_LeftArrow, ...).
  void press_key(int imgui_key);
  void type_char(char c);
  /// Asks for page `name` ({"page": NAME}); shown from the next frame of an
  /// open run (a request made before the run opens waits for it).
  void show_page(const std::string& name);
  /// Vertex count of the last frame's draw data (0 = nothing drawn).
  int drawn_vertices() const;

 private:
  bool click_rect(const float r[4]);

  ImGuiContext* ctx_ = nullptr;
  std::unique_ptr<viewer::App> app_;
};

/// A ByteSource that answers reads only when pump() is called, like the
/// browser's event loop; counts reads still waiting.
class DeferredSource : public format::ByteSource {
 public:
  explicit DeferredSource(std::shared_ptr<format::ByteSource> inner) : inner_(std::move(inner)) {}
  uint64_t size() const override { return inner_->size(); }
  std::string name() const override { return inner_->name(); }
  void read(uint64_t offset, uint64_t length, format::ReadDone done) override;
  /// The inner source's recheck, answered at pump() as reads are.
  void recheck_size(format::SizeDone done) override;
  /// Answers every read queued so far (not those queued while answering).
  size_t pump();
  size_t waiting() const { return queue_.size(); }

 private:
  std::shared_ptr<format::ByteSource> inner_;
  std::deque<std::function<void()>> queue_;
};

/// Writes a synthetic run (tools/synth) into a fresh temp file; returns its path.
std::string write_synthetic_run(const std::string& name, int steps, uint64_t calls = 0, bool finalize = true);
/// A file source over `path` (the test fails when it cannot be opened).
std::shared_ptr<format::ByteSource> file_source_for(const std::string& path);
std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& bytes);

}  // namespace tvis::test
