#include "tvis/viewer/app.h"

#include <imgui.h>
#include <imgui_internal.h>  // PushOverrideID: a page drawn under its tab's ID

#include <nlohmann/json.hpp>

#include "app_state.h"
#include "link.h"
#include "live_run.h"
#include "page.h"
#include "ranks.h"
#include "test_surface.h"
#include "theme.h"

namespace tvis::viewer {

using nlohmann::json;

App::App(AppOptions options) : impl_(std::make_unique<Impl>(options)) {}
App::~App() = default;

bool App::configure_scale(float ui_scale, float framebuffer_scale) {
  Fonts& f = impl_->fonts;
  if (!(ui_scale > 0.25f && ui_scale < 8.0f)) ui_scale = 1.0f;
  if (!(framebuffer_scale > 0.25f && framebuffer_scale < 8.0f)) framebuffer_scale = 1.0f;
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini next to the user's files
  if (f.built && ui_scale == f.ui_scale && framebuffer_scale == f.framebuffer_scale) return false;
  f.ui_scale = ui_scale;
  f.framebuffer_scale = framebuffer_scale;
  apply_theme(ui_scale);
  build_fonts(ui_scale, framebuffer_scale);
  f.built = true;
  return true;
}

void AppState::reset_navigation() {
  selection.reset_for_new_run();
  drawn.clear();
  error_override.clear();
}

int AppState::followed_sample() {
  const auto& ids = model.samples().followed();
  return ids.empty() ? -1 : ids[static_cast<size_t>(selection.sample_cursor)];
}

void AppState::open_compare(std::shared_ptr<format::ByteSource> source) {
  compare.open(std::move(source));
  compare_generation += 1;
}

void AppState::fail_compare(std::string message) {
  compare.fail(std::move(message));
  compare_generation += 1;
}

void AppState::clear_compare() {
  compare.clear();
  compare_generation += 1;
}

void App::open_compare(std::shared_ptr<format::ByteSource> source) { impl_->open_compare(std::move(source)); }

void App::show_compare_error(std::string message) { impl_->fail_compare(std::move(message)); }

void App::open(std::shared_ptr<format::ByteSource> source) {
  AppState& s = *impl_;
  s.clear_compare();
  s.runs.clear();
  s.showing_run_list = false;
  s.reset_navigation();
  s.ranks.clear();
  s.rank = 0;
  s.rank_request.reset();
  s.model.open(std::move(source));
}

void App::open_ranks(std::vector<RankSource> ranks, int shown_rank) {
  impl_->clear_compare();
  open_rank_set(*impl_, std::move(ranks), shown_rank);
}

namespace {

RunListRow make_run_row(RunListEntry entry) {
  RunListRow row;
  row.entry = std::move(entry);
  row.model = std::make_unique<RunModel>(8ull << 20);
  if (!row.entry.open) {
    row.open_error = row.entry.name + ": no source";
    return row;
  }
  auto source = row.entry.open();
  if (source.ok())
    row.model->open(source.value(), OpenPurpose::Metadata);
  else
    row.open_error = row.entry.name + ": " + source.status().message;
  return row;
}

}  // namespace

void App::open_run_list(std::vector<RunListEntry> runs) {
  AppState& s = *impl_;
  s.clear_compare();
  s.model.clear();
  s.ranks.clear();
  s.rank = 0;
  s.reset_navigation();
  s.runs.clear();
  for (auto& entry : runs) s.runs.push_back(make_run_row(std::move(entry)));
  s.showing_run_list = true;
}

void App::show_error(std::string message) {
  AppState& s = *impl_;
  s.clear_compare();
  s.runs.clear();
  s.showing_run_list = false;
  s.reset_navigation();
  s.ranks.clear();
  s.rank = 0;
  s.model.fail(std::move(message));
}

void App::set_welcome_hint(std::string hint) { impl_->welcome_hint = std::move(hint); }

std::vector<std::string> AppState::errors() const {
  std::vector<std::string> out;
  if (model.status() == RunStatus::Failed) out.push_back(model.error());
  if (showing_run_list)
    for (const auto& row : runs) {
      if (!row.open_error.empty()) out.push_back(row.open_error);
      else if (row.model->status() == RunStatus::Failed) out.push_back(row.entry.name + ": " + row.model->error());
    }
  if (compare.status() == RunStatus::Failed && !showing_run_list) out.push_back("compared run: " + compare.error());
  if (model.status() == RunStatus::Open && !showing_run_list && !model.live_problem().empty())
    out.push_back(model.live_problem());
  if (model.status() == RunStatus::Open && !showing_run_list)
    if (const ChunkCache* cache = model.cache_if_open())
      for (const auto& m : cache->failure_messages()) out.push_back(m);
  return out;
}

namespace {

// The registered pages as tabs; the one drawn becomes AppState::page.
void draw_page_tabs(AppState& s) {
  if (!ImGui::BeginTabBar("pages")) return;
  const std::string requested = std::move(s.page_request);
  s.page_request.clear();
  const PageSpec* asked = requested.empty() ? nullptr : page_named(requested);
  if (asked && !page_present(s, *asked)) {  // not yet (its records still load): asked for again next frame
    s.page_request = requested;
    asked = nullptr;
  }
  bool drawn = false;
  for (const PageSpec* page : registered_pages()) {
    if (!page_present(s, *page)) continue;
    const ImGuiTabItemFlags flags = requested == page->name ? ImGuiTabItemFlags_SetSelected : 0;
    if (ImGui::BeginTabItem(page->name, nullptr, flags)) {
      // A tab bar's first frame shows its first tab; a page asked for
      // (a link, a command) is drawn instead, from the first frame on.
      if (!asked || asked == page) {
        s.page = page->name;
        page->draw(s);
        drawn = true;
      }
      ImGui::EndTabItem();
    }
  }
  if (asked && !drawn) {  // its tab shows from the next frame; drawn now under the tab's own ID
    ImGui::PushOverrideID(ImGui::GetID(asked->name));
    s.page = asked->name;
    asked->draw(s);
    ImGui::PopID();
  }
  ImGui::EndTabBar();
}

void draw_open_run(AppState& s, const std::vector<std::string>& errors) {
  apply_pending_link(s);
  handle_keys(s);
  draw_navigator(s);
  if (!errors.empty()) draw_error_panel(s, errors);
  draw_page_tabs(s);
}

}  // namespace

void App::frame() {
  AppState& s = *impl_;
  if (!s.fonts.built) configure_scale(1.0f, 1.0f);
  s.drawn.clear();
  apply_rank_request(s);  // a rank switch asked for last frame: before anything reads the model
  recheck_live_run(s, ImGui::GetTime());  // a run still being written: its new chunks, without waiting

  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::Begin("tvis", nullptr, flags);

  if (s.model.status() == RunStatus::Open) {
    s.model.cache().begin_frame(s.options.frame_decode_bytes);
    s.model.tensors().begin_frame(kTensorChunkLoadsPerFrame);  // every page's, not the last one that set it
    s.model.info();  // starts the metadata read
    s.ranks.begin_frame(s.options.frame_decode_bytes);  // the other ranks' reads land (Loss, Weights)
  }
  if (s.compare.status() == RunStatus::Open) {  // the compared run's reads land (the Compare page)
    s.compare.cache().begin_frame(s.options.frame_decode_bytes);
    s.compare.tensors().begin_frame(kTensorChunkLoadsPerFrame);
    s.compare.info();
  }
  draw_top_bar(s);
  const std::vector<std::string> errors = s.errors();

  if (s.showing_run_list) {
    draw_run_list(s);
  } else {
    switch (s.model.status()) {
      case RunStatus::Empty: draw_welcome(s); break;
      case RunStatus::Opening:
        ImGui::TextDisabled("Opening %s ...", s.model.source_name().c_str());
        break;
      case RunStatus::Failed: draw_error_panel(s, errors); break;
      case RunStatus::Open: draw_open_run(s, errors); break;
    }
  }
  ImGui::End();
  draw_status_bar(s);
}

void App::record_frame_ms(double ms) {
  impl_->timing.stats.add(ms);
  for (const PageSpec* page : registered_pages())
    if (page->frame_measured) page->frame_measured(*impl_, ms);
}

bool App::settled() const {
  const AppState& s = *impl_;
  if (s.showing_run_list) return true;
  if (s.compare.status() == RunStatus::Opening) return false;
  return s.model.ready() || s.model.status() == RunStatus::Failed;
}

void App::wait_for_decodes() {
  if (impl_->model.status() == RunStatus::Open) impl_->model.cache().wait_for_decodes();
  if (impl_->compare.status() == RunStatus::Open) impl_->compare.cache().wait_for_decodes();
  for (const RankSource& src : impl_->ranks.sources())
    if (RunModel* peer = impl_->ranks.peer_if_open(src.rank); peer && peer->status() == RunStatus::Open)
      peer->cache().wait_for_decodes();
}

bool App::loading() const {
  const AppState& s = *impl_;
  if (s.model.status() == RunStatus::Opening || s.ranks.loading() || s.compare.status() == RunStatus::Opening) return true;
  const ChunkCache* cache = s.model.cache_if_open();
  return cache && cache->in_flight() > 0;
}

// ------------------------------------------------------------ test surface ---

void App::select_event(uint64_t id) { command(json{{"select", id}}.dump()); }

bool App::show_panel(const std::string& name) { return command(json{{"panel", name}}.dump()) == "true"; }

bool App::event_row_rect(uint64_t id, float rect[4]) const {
  auto it = impl_->drawn.events.find(id);
  if (it == impl_->drawn.events.end()) return false;
  it->second.copy_to(rect);
  return true;
}

bool App::run_row_rect(size_t index, float rect[4]) const {
  auto it = impl_->drawn.runs.find(index);
  if (it == impl_->drawn.runs.end()) return false;
  it->second.copy_to(rect);
  return true;
}

bool App::event_row_loaded(uint64_t id) const {
  auto it = impl_->drawn.events.find(id);
  return it != impl_->drawn.events.end() && it->second.loaded;
}

std::string App::state_json() const {
  return state_object(*impl_).dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string App::command(const std::string& text) {
  const json cmd = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return run_command(*impl_, cmd).dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace tvis::viewer
