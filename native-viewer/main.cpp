// tvis-view: the native viewer window (SDL2 + OpenGL3) around the shared App.
//
//   tvis-view [RUN | RUN_DIR | RUNS_DIR | HOST:PATH | TARGET] [--screenshot PATH --frames N] [--state-json PATH]
//
// HOST:PATH and a saved target's name (one that is not a local path) read the
// runs over ssh through `tvis agent --stdio`, as `tvis open` does, with
// --via HOP[,HOP] (repeatable), --remote-tvis PATH and --ssh-config FILE.
//
// A run folder of a distributed run (run.tvis and rank<k>.tvis), or any of
// its rank files, opens as one run with a rank picker (App::open_ranks).
//
// --frames N     render N frames, then exit 0 (default with --screenshot: 10)
// --screenshot   after the last frame, write the window as a PNG
// --state-json   at exit, write App::state_json() (docs/viewer_test_surface.md)
// --state-every S  also write it every S seconds while the window runs (each
//                write replaces the file whole; frames are then paced at about
//                30 a second): a test watches a live run grow.
// --select ID, --panel NAME   start with event ID selected and panel NAME
//                shown (the pages say which names they know; Explore's
//                bottom panels: Timeline, Source, ...): scripted screenshots.
//                Both are App::command()s, as the browser's tests drive them.
// --page NAME, --step K, --param NAME, --show weight|grad|update,
// --phase P, --module PATH, --sample S, --head H|mean   a position
//                to start at, as the browser's ?page=&step=&param=&show=&phase=&module=&sample=&head= link
//                (one {"link": {...}} App::command, applied once the run is open).
// --rank K       a distributed run (a run folder of rank files, or any of
//                its rank files): start on rank K (the link key rank=K).
// --link KEY=VALUE  another key of that link (a page's own: --link
//                weights_tab="All layers"), repeatable.
// Exit codes: 0 ok; 1 no window / screenshot or state file not written;
// 2 bad arguments or nothing to open at PATH.
#include <SDL.h>
#include <SDL_opengl.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "capture_recheck.h"
#include "png_writer.h"
#include "remote_runs.h"
#include "tvis/format/byte_source.h"
#include "tvis/runs/rank_files.h"
#include "tvis/runs/run_resolve.h"
#include "tvis/shell/gl_texture_uploader.h"
#include "tvis/shell/sdl_shell.h"
#include "tvis/viewer/app.h"

namespace {

namespace fs = std::filesystem;

struct Args {
  std::string run;
  std::string screenshot;
  std::string state_json;
  double state_every = 0;  // seconds; 0: only at exit
  int frames = 0;
  bool decode_worker = false;  // a bounded run that still decodes on the worker (frame timing as interactive)
  std::string size = "1400x900";
  float scale = 0;
  int64_t select = -1;  // event to select at start (scripted screenshots)
  std::string panel;    // Explore bottom panel to show at start
  std::string page, param, show;  // the start position (a link)
  int step = -1;
  std::string phase, module;      // Replay's part of it
  int sample = -1;
  std::string head;               // Attention's head: a number, or "mean" (the average of the heads)
  int rank = -1;
  std::vector<std::string> link;  // KEY=VALUE: other keys of the start link
  std::vector<std::string> via;   // HOST:PATH / TARGET: jump hosts
  std::string remote_tvis, ssh_config;
  std::string compare;            // a second run, compared with the shown one (the Compare page)
};

// The rank files of the run folder `dir` as the App takes them; empty for a
// run of one file (fewer than two rank files).
std::vector<tvis::viewer::RankSource> rank_sources_in(const std::string& dir) {
  std::vector<tvis::viewer::RankSource> out;
  const auto files = tvis::runs::rank_files_in(dir);
  if (files.size() < 2) return out;
  for (const auto& [rank, file] : files)
    out.push_back({rank, fs::path(file).filename().string(), [file = file] { return tvis::format::open_file_source(file); }});
  return out;
}

// The rank of `file` among `ranks` (the same file), or -1.
int rank_of_file(const std::vector<tvis::viewer::RankSource>& ranks, const std::string& file) {
  for (const auto& r : ranks)
    if (r.name == fs::path(file).filename().string()) return r.rank;
  return -1;
}

// Hands the located run(s) to the app. Returns false with `problem` set when
// there is nothing to open.
// `rank`: a distributed run's rank to show first (-1: the file's own).
bool open_location(tvis::viewer::App& app, const std::string& path, int rank_wanted, std::string* problem) {
  using tvis::runs::RunLocation;
  const RunLocation loc = tvis::runs::locate_run(path);
  switch (loc.kind) {
    case RunLocation::Kind::Missing: *problem = loc.problem; return false;
    case RunLocation::Kind::File: {
      // A rank file of a distributed run (run.tvis, rank<k>.tvis): the whole run, showing that rank.
      auto ranks = rank_sources_in(fs::path(loc.file).parent_path().string());
      const int rank = rank_of_file(ranks, loc.file);
      if (rank >= 0) {
        app.open_ranks(std::move(ranks), rank_wanted >= 0 ? rank_wanted : rank);
        return true;
      }
      auto source = tvis::format::open_file_source(loc.file);
      if (source.ok())
        app.open(source.value());
      else
        app.show_error(source.status().message);
      return true;
    }
    case RunLocation::Kind::RunsFolder: {
      std::vector<tvis::viewer::RunListEntry> runs;
      for (const auto& dir : loc.run_dirs) {
        std::string file = tvis::runs::run_file_in(dir);
        runs.push_back({fs::path(dir).filename().string(), [file] { return tvis::format::open_file_source(file); },
                        rank_sources_in(dir)});
      }
      app.open_run_list(std::move(runs));
      return true;
    }
  }
  return false;
}

bool write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text << '\n';
  return static_cast<bool>(out.flush());
}

// Replaces `path` whole (a reader never sees half a state).
bool replace_text(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  if (!write_text(tmp, text)) return false;
  std::error_code ec;
  fs::rename(tmp, path, ec);
  return !ec;
}

std::string take_screenshot(const tvis::shell::Shell& shell, const std::string& path) {
  int w = 0, h = 0;
  tvis::shell::shell_framebuffer_size(shell, &w, &h);
  std::vector<uint8_t> pixels(static_cast<size_t>(w) * static_cast<size_t>(h) * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  // GL rows run bottom to top; PNG rows top to bottom.
  std::vector<uint8_t> flipped(pixels.size());
  const size_t row = static_cast<size_t>(w) * 4;
  for (int y = 0; y < h; ++y)
    std::copy_n(&pixels[static_cast<size_t>(h - 1 - y) * row], row, &flipped[static_cast<size_t>(y) * row]);
  for (size_t i = 3; i < flipped.size(); i += 4) flipped[i] = 255;  // opaque
  return tvis::shell::write_png_rgba(path, flipped.data(), w, h);
}

// Shows panel `name` through the App's command entry; on an unknown name,
// says which names the pages know.
bool start_panel(tvis::viewer::App& app, const std::string& name) {
  if (app.command(nlohmann::json{{"panel", name}}.dump()) == "true") return true;
  std::fprintf(stderr, "tvis-view: --panel wants one of %s, got '%s'\n", app.command("{\"panels\": true}").c_str(),
               name.c_str());
  return false;
}

// Opens `path` (a run file, its folder, or a runs folder: its newest run) as
// the run compared with the shown one. A path that names no run is shown on
// the Compare page as the reason, not refused: the window still opens.
void open_compare_location(tvis::viewer::App& app, const std::string& path) {
  using tvis::runs::RunLocation;
  const RunLocation loc = tvis::runs::locate_run(path);
  if (loc.kind == RunLocation::Kind::Missing) {
    app.show_compare_error(loc.problem);
    return;
  }
  const std::string file = loc.kind == RunLocation::Kind::File ? loc.file : tvis::runs::run_file_in(loc.run_dirs.front());
  auto source = tvis::format::open_file_source(file);
  if (source.ok())
    app.open_compare(source.value());
  else
    app.show_compare_error(source.status().message);
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  CLI::App cli{"tvis-view: the native tvis viewer"};
  cli.add_option("run", args.run, "run.tvis, its run folder, a runs folder, HOST:PATH or a saved target");
  cli.add_option("--screenshot", args.screenshot, "write a PNG of the window after the last frame, then exit");
  cli.add_option("--frames", args.frames, "render this many frames, then exit")->check(CLI::Range(1, 1000000));
  cli.add_flag("--decode-worker", args.decode_worker,
               "with --frames: decode chunks on the worker thread as an interactive window does (frame timing "
               "benchmarks; screenshots and states then depend on timing)");
  cli.add_option("--state-json", args.state_json, "write the viewer's state (JSON) at exit");
  cli.add_option("--state-every", args.state_every, "with --state-json: also write it every this many seconds")
      ->check(CLI::Range(0.05, 3600.0));
  cli.add_option("--size", args.size, "window size WxH in window units")->capture_default_str();
  cli.add_option("--select", args.select, "select this event id at start, as a click on its row would")
      ->check(CLI::NonNegativeNumber);
  cli.add_option("--panel", args.panel, "show this panel at start (Explore: Steps, Timeline, Source, Layers, Samples)");
  cli.add_option("--page", args.page, "start on this page (Replay, Loss, Weights, Explore, ...)");
  cli.add_option("--step", args.step, "start at this step")->check(CLI::NonNegativeNumber);
  cli.add_option("--phase", args.phase, "Replay: start in this phase")
      ->check(CLI::IsMember({"data", "forward", "loss", "backward", "optimizer"}));
  cli.add_option("--module", args.module, "Replay: start at this module's call (e.g. layer2.0.conv1)");
  cli.add_option("--sample", args.sample, "follow this sample id")->check(CLI::NonNegativeNumber);
  cli.add_option("--head", args.head, "Attention: the head shown (a number, or mean)")
      ->check(CLI::Validator(
          [](const std::string& v) {
            const bool number = !v.empty() && v.size() < 6 && v.find_first_not_of("0123456789") == std::string::npos;
            return v == "mean" || number ? std::string() : "a head number (0, 1, ...) or mean, got '" + v + "'";
          },
          "HEAD|mean"));
  cli.add_option("--rank", args.rank, "a distributed run: show this rank")->check(CLI::NonNegativeNumber);
  cli.add_option("--param", args.param, "Weights: the parameter shown (e.g. fc.weight)");
  cli.add_option("--show", args.show, "Weights: weight, grad or update; Compare: also activation or gradient")
      ->check(CLI::IsMember({"weight", "grad", "update", "activation", "gradient"}));
  cli.add_option("--compare", args.compare,
                 "a second run (file, run folder, or runs folder: its newest run) to compare with RUN on the Compare page");
  cli.add_option("--link", args.link, "KEY=VALUE: another key of the start link (a page's own), repeatable");
  cli.add_option("--via", args.via, "HOST:PATH or a target: jump hosts (comma-separated or repeated)")
      ->allow_extra_args(false);  // one value per --via: the argument after it is the run
  cli.add_option("--remote-tvis", args.remote_tvis, "HOST:PATH or a target: the tvis to run on the remote");
  cli.add_option("--ssh-config", args.ssh_config, "HOST:PATH or a target: ssh's -F FILE");
  cli.add_option("--scale", args.scale, "UI scale (default: from the display's DPI)")->check(CLI::Range(0.5, 4.0));
  CLI11_PARSE(cli, argc, argv);

  tvis::shell::ShellOptions options;
  if (std::sscanf(args.size.c_str(), "%dx%d", &options.width, &options.height) != 2 || options.width < 200 ||
      options.height < 150 || options.width > 16384 || options.height > 16384) {
    std::fprintf(stderr, "tvis-view: --size wants WxH (at least 200x150), got '%s'\n", args.size.c_str());
    return 2;
  }
  if (!args.screenshot.empty() && args.frames == 0) args.frames = 10;
  options.vsync = args.frames == 0;  // bounded runs go as fast as they can
  options.ui_scale = args.scale;

  tvis::shell::GlTextureUploader textures;  // used only during frames (GL context current)
  tvis::viewer::AppOptions app_options;
  app_options.texture_uploader = &textures;
  // Interactive windows decode chunks on a worker thread (a frame shows
  // "loading" rather than stall); bounded (--frames) runs decode in the frame
  // so that scripted screenshots and states are the same on every machine.
  app_options.decode_in_background = args.frames == 0 || args.decode_worker;
  // The Graph page's freshness: files are read only within the workspace of
  // what the user opened; a remote run's files are not on this machine.
  const tvis::profiles::RecheckScope recheck_scope =
      args.run.empty() || tvis::native::names_remote_runs(args.run)
          ? tvis::profiles::no_recheck_scope(args.run.empty() ? "no run was opened from the command line"
                                                              : "a remote run's files are not on this machine")
          : tvis::profiles::recheck_scope_for(args.run);
  app_options.recheck_files = [recheck_scope](const std::string& evidence) {
    return recheck_capture_evidence(evidence, recheck_scope);
  };
  std::shared_ptr<tvis::remote::OpenedStore> remote_runs;  // the ssh session, up while the window runs
  tvis::viewer::App app(app_options);
  app.set_welcome_hint("Start tvis-view with a run: tvis-view RUN | RUN_DIR | RUNS_DIR");
  if (!args.run.empty()) {
    std::string problem;
    const bool remote = tvis::native::names_remote_runs(args.run);
    if (!remote && (!args.via.empty() || !args.remote_tvis.empty())) {
      std::fprintf(stderr, "tvis-view: --via and --remote-tvis apply to HOST:PATH or a saved target, not the local path %s\n",
                   args.run.c_str());
      return 2;
    }
    if (remote) {
      remote_runs = tvis::native::open_remote_runs(app, {args.run, args.via, args.remote_tvis, args.ssh_config}, args.rank,
                                                   &problem);
    }
    if (remote ? !remote_runs : !open_location(app, args.run, args.rank, &problem)) {
      std::fprintf(stderr, "tvis-view: %s\n", problem.c_str());
      return 2;
    }
    if (!args.compare.empty()) open_compare_location(app, args.compare);
    nlohmann::json link = nlohmann::json::object();
    if (!args.page.empty()) link["page"] = args.page;
    else if (!args.compare.empty()) link["page"] = "Compare";
    if (args.step >= 0) link["step"] = args.step;
    if (!args.param.empty()) link["param"] = args.param;
    if (!args.show.empty()) link["show"] = args.show;
    for (const std::string& kv : args.link) {
      const size_t eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) {
        std::fprintf(stderr, "tvis-view: --link wants KEY=VALUE, got '%s'\n", kv.c_str());
        return 2;
      }
      link[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    if (!args.phase.empty()) link["phase"] = args.phase;
    if (!args.module.empty()) link["module"] = args.module;
    if (args.sample >= 0) link["sample"] = args.sample;
    if (!args.head.empty()) link["head"] = args.head == "mean" ? nlohmann::json("mean") : nlohmann::json(std::stoi(args.head));
    if (args.rank >= 0) link["rank"] = args.rank;
    if (!link.empty()) app.command(nlohmann::json{{"link", link}}.dump());
    if (args.select >= 0) app.command(nlohmann::json{{"select", args.select}}.dump());
    if (!args.panel.empty() && !start_panel(app, args.panel)) return 2;
  }

  tvis::shell::Shell shell;
  std::string error;
  if (!tvis::shell::shell_init(options, &shell, &error)) {
    std::fprintf(stderr, "tvis-view: %s\n", error.c_str());
    return 1;
  }
  int status = 0;
  std::string shot_problem = args.screenshot.empty() ? "" : "window closed before the last frame";
  const bool periodic = args.state_every > 0 && !args.state_json.empty();
  uint64_t next_state = 0;
  for (int frame = 0; args.frames == 0 || frame < args.frames; ++frame) {
    if (frame + 1 == args.frames && !args.screenshot.empty())
      shell.before_swap = [&] { shot_problem = take_screenshot(shell, args.screenshot); };
    if (!tvis::shell::shell_frame(shell, app)) break;
    if (!periodic) continue;
    const uint64_t now = SDL_GetTicks64();
    if (now >= next_state) {
      if (!replace_text(args.state_json, app.state_json()))
        std::fprintf(stderr, "tvis-view: cannot write %s\n", args.state_json.c_str());
      next_state = now + static_cast<uint64_t>(args.state_every * 1000);
    }
    SDL_Delay(33);
  }
  if (!shot_problem.empty()) {
    std::fprintf(stderr, "tvis-view: %s\n", shot_problem.c_str());
    status = 1;
  }
  if (!args.state_json.empty() && !replace_text(args.state_json, app.state_json())) {
    std::fprintf(stderr, "tvis-view: cannot write %s\n", args.state_json.c_str());
    status = 1;
  }
  tvis::shell::shell_shutdown(shell);
  return status;
}
