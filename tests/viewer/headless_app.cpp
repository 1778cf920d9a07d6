#include "headless_app.h"
#include "scratch_dir.h"

#include <imgui.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "synthetic_run.h"

namespace tvis::test {

namespace {
// Backend key indices (any distinct values below 512).
constexpr int kKeyIndexBase = 100;
}  // namespace

HeadlessApp::HeadlessApp(viewer::AppOptions options, float width, float height) {
  ctx_ = ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(width, height);
  io.DeltaTime = 1.0f / 60.0f;
  io.IniFilename = nullptr;
  for (int k = 0; k < ImGuiKey_COUNT; ++k) io.KeyMap[k] = kKeyIndexBase + k;
  io.MousePos = ImVec2(-1, -1);
  app_ = std::make_unique<viewer::App>(options);
  app_->configure_scale(1.0f, 1.0f);
}

HeadlessApp::~HeadlessApp() {
  app_.reset();
  ImGui::DestroyContext(ctx_);
}

void HeadlessApp::frame(int n) {
  for (int i = 0; i < n; ++i) {
    ImGui::NewFrame();
    app_->frame();
    ImGui::Render();
    app_->record_frame_ms(1.0);
  }
}

nlohmann::json HeadlessApp::state() const { return nlohmann::json::parse(app_->state_json()); }

bool HeadlessApp::click_event_row(uint64_t id) {
  float r[4];
  return app_->event_row_rect(id, r) && click_rect(r);
}

void HeadlessApp::show_page(const std::string& name) { app_->command(nlohmann::json{{"page", name}}.dump()); }

bool HeadlessApp::click_run_row(size_t index) {
  float r[4];
  return app_->run_row_rect(index, r) && click_rect(r);
}

bool HeadlessApp::click_rect(const float r[4]) {
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = ImVec2((r[0] + r[2]) * 0.5f, (r[1] + r[3]) * 0.5f);
  frame();  // hover
  io.MouseDown[0] = true;
  frame();
  io.MouseDown[0] = false;
  frame();
  io.MousePos = ImVec2(-1, -1);
  return true;
}

void HeadlessApp::press_key(int imgui_key) {
  ImGuiIO& io = ImGui::GetIO();
  io.KeysDown[io.KeyMap[imgui_key]] = true;
  frame();
  io.KeysDown[io.KeyMap[imgui_key]] = false;
  frame();
}

void HeadlessApp::type_char(char c) {
  ImGui::GetIO().AddInputCharacter(static_cast<unsigned>(c));
  frame();
}

int HeadlessApp::drawn_vertices() const {
  const ImDrawData* d = ImGui::GetDrawData();
  return d ? d->TotalVtxCount : 0;
}

void DeferredSource::read(uint64_t offset, uint64_t length, format::ReadDone done) {
  auto inner = inner_;
  queue_.push_back([inner, offset, length, done = std::move(done)]() mutable {
    inner->read(offset, length, std::move(done));
  });
}

void DeferredSource::recheck_size(format::SizeDone done) {
  auto inner = inner_;
  queue_.push_back([inner, done = std::move(done)]() mutable { inner->recheck_size(std::move(done)); });
}

size_t DeferredSource::pump() {
  size_t n = queue_.size();
  for (size_t i = 0; i < n; ++i) {
    auto job = std::move(queue_.front());
    queue_.pop_front();
    job();
  }
  return n;
}

std::string write_synthetic_run(const std::string& name, int steps, uint64_t calls, bool finalize) {
  std::string path = scratch_path(name);
  synth::SynthOptions o;
  o.steps = steps;
  o.calls = calls;
  o.finalize = finalize;
  auto report = synth::write_synthetic_run(path, o);
  REQUIRE(report.ok());
  return path;
}

std::shared_ptr<format::ByteSource> file_source_for(const std::string& path) {
  auto source = format::open_file_source(path);
  REQUIRE(source.ok());
  return source.value();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

}  // namespace tvis::test
