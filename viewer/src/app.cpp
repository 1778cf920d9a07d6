#include "tvis/viewer/app.h"

#include <imgui.h>

#include <nlohmann/json.hpp>

#include "app_state.h"
#include "pages/explore_state.h"
#include "theme.h"
#include "tvis/format/chunk_kind.h"

namespace tvis::viewer {

App::App(AppOptions options) : impl_(std::make_unique<Impl>(options)) {}
App::~App() = default;

bool App::configure_scale(float ui_scale, float framebuffer_scale) {
  AppState& s = *impl_;
  if (!(ui_scale > 0.25f && ui_scale < 8.0f)) ui_scale = 1.0f;
  if (!(framebuffer_scale > 0.25f && framebuffer_scale < 8.0f)) framebuffer_scale = 1.0f;
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini next to the user's files
  if (s.fonts_built && ui_scale == s.ui_scale && framebuffer_scale == s.framebuffer_scale) return false;
  s.ui_scale = ui_scale;
  s.framebuffer_scale = framebuffer_scale;
  apply_theme(ui_scale);
  build_fonts(ui_scale, framebuffer_scale);
  s.fonts_built = true;
  return true;
}

void AppState::reset_navigation() {
  ++run_generation;
  selected_tensor.reset();
  selected_event.reset();
  nav_step = 0;
  nav_phase = schema::Phase::None;
  jump_pending = false;
  scroll_to.reset();
  sample_ids.clear();
  sample_cursor = 0;
  samples_indexed = false;
  depth_cache.clear();
  file_names.clear();
  files_indexed = false;
  row_rects.clear();
  error_override.clear();
}

void App::open(std::shared_ptr<format::ByteSource> source) {
  AppState& s = *impl_;
  s.runs.clear();
  s.showing_run_list = false;
  s.reset_navigation();
  s.model.open(std::move(source));
}

void App::open_run_list(std::vector<RunListEntry> runs) {
  AppState& s = *impl_;
  s.model.clear();
  s.reset_navigation();
  s.runs.clear();
  for (auto& entry : runs) {
    RunListRow row;
    row.entry = std::move(entry);
    row.model = std::make_unique<RunModel>(8ull << 20);
    if (row.entry.open) {
      auto source = row.entry.open();
      if (source.ok())
        row.model->open(source.value(), OpenPurpose::Metadata);
      else
        row.open_error = row.entry.name + ": " + source.status().message;
    } else {
      row.open_error = row.entry.name + ": no source";
    }
    s.runs.push_back(std::move(row));
  }
  s.showing_run_list = true;
}

void App::show_error(std::string message) {
  AppState& s = *impl_;
  s.runs.clear();
  s.showing_run_list = false;
  s.reset_navigation();
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
  if (model.status() == RunStatus::Open && !showing_run_list)
    if (const ChunkCache* cache = model.cache_if_open())
      for (const auto& m : cache->failure_messages()) out.push_back(m);
  return out;
}

void App::frame() {
  AppState& s = *impl_;
  if (!s.fonts_built) configure_scale(1.0f, 1.0f);
  s.row_rects.clear();
  s.run_row_rects.clear();

  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::Begin("tvis", nullptr, flags);

  if (s.model.status() == RunStatus::Open) {
    s.model.cache().begin_frame(s.options.frame_decode_bytes);
    s.model.info();  // starts the metadata read
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
      case RunStatus::Open:
        handle_keys(s);
        draw_navigator(s);
        if (!errors.empty()) draw_error_panel(s, errors);
        if (ImGui::BeginTabBar("pages")) {
          for (const auto& page : s.pages) {
            if (ImGui::BeginTabItem(page.c_str())) {
              s.page = page;
              if (page == "Explore") draw_explore_page(s);
              ImGui::EndTabItem();
            }
          }
          ImGui::EndTabBar();
        }
        break;
    }
  }
  ImGui::End();
  draw_status_bar(s);
}

void App::record_frame_ms(double ms) { impl_->frame_stats.add(ms); }

bool App::settled() const {
  const AppState& s = *impl_;
  if (s.showing_run_list) return true;
  return s.model.ready() || s.model.status() == RunStatus::Failed;
}

bool App::loading() const {
  const AppState& s = *impl_;
  if (s.model.status() == RunStatus::Opening) return true;
  const ChunkCache* cache = s.model.cache_if_open();
  return cache && cache->in_flight() > 0;
}

void App::select_event(uint64_t id) { tvis::viewer::select_event(*impl_, id); }

bool App::show_panel(const std::string& name) {
  if (!explore_panel_named(name)) return false;
  impl_->show_panel = name;
  return true;
}

bool App::event_row_rect(uint64_t id, float rect[4]) const {
  auto it = impl_->row_rects.find(id);
  if (it == impl_->row_rects.end()) return false;
  rect[0] = it->second.x0;
  rect[1] = it->second.y0;
  rect[2] = it->second.x1;
  rect[3] = it->second.y1;
  return true;
}

bool App::run_row_rect(size_t index, float rect[4]) const {
  auto it = impl_->run_row_rects.find(index);
  if (it == impl_->run_row_rects.end()) return false;
  rect[0] = it->second.x0;
  rect[1] = it->second.y0;
  rect[2] = it->second.x1;
  rect[3] = it->second.y1;
  return true;
}

bool App::event_row_loaded(uint64_t id) const {
  auto it = impl_->row_rects.find(id);
  return it != impl_->row_rects.end() && it->second.loaded;
}

std::string App::state_json() const {
  AppState& s = *impl_;
  using nlohmann::json;
  json j = json::object();
  // A run is reported once its metadata settled, so `steps` never changes
  // after `run` first appears.
  if (s.model.status() == RunStatus::Open) s.model.info();
  const bool run_open = s.model.ready();
  if (run_open) {
    j["run"] = {{"source", s.model.source_name()},
                {"steps", s.model.step_count()},
                {"events", s.model.event_count()}};
  } else {
    j["run"] = nullptr;
  }
  if (s.showing_run_list) {
    json runs = json::array();
    for (auto& row : s.runs) {
      const RunInfo& info = row.model->status() == RunStatus::Open ? row.model->info() : RunInfo{};
      runs.push_back({{"name", row.entry.name},
                      {"script", info.script},
                      {"steps", row.model->status() == RunStatus::Open ? row.model->step_count() : 0},
                      {"date", info.date}});
    }
    j["runs"] = runs;
  } else {
    j["runs"] = nullptr;
  }
  j["page"] = run_open ? s.page : std::string();
  j["pages"] = run_open ? json(s.pages) : json::array();
  j["insights"] = json::array();
  if (run_open && s.selected_event) {
    json sel = {{"event", *s.selected_event}};
    if (const schema::Event* e = s.model.event(*s.selected_event)) {
      sel["name"] = e->name() ? e->name()->str() : std::string();
      sel["kind"] = event_kind_label(e->kind());
      sel["step"] = e->step();
      sel["phase"] = phase_label(e->phase());
    } else if (s.model.event_state(*s.selected_event) == EventState::NotRecorded) {
      sel["not_recorded"] = s.model.not_recorded_label();
    }
    if (s.selected_tensor) sel["tensor"] = *s.selected_tensor;
    if (!s.sample_ids.empty()) sel["sample"] = s.sample_ids[static_cast<size_t>(s.sample_cursor)];
    j["selection"] = sel;
  } else {
    j["selection"] = nullptr;
  }
  j["errors"] = s.errors();
  j["frame_ms"] = {{"median", s.frame_stats.median()}, {"p99", s.frame_stats.p99()}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace tvis::viewer
