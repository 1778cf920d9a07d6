#include "setup_session.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "browser_handoff.h"
#include "capture_freshness.h"
#include "capture_request.h"
#include "open_session.h"
#include "profile_commands.h"
#include "python_discovery.h"
#include "tvis/profiles/catalog.h"
#include "tvis/profiles/profile_writer.h"
#include "tvis/profiles/setup_form.h"
#include "tvis/profiles/workspace.h"
#include "tvis/remote/run_store.h"
#include "tvis/runs/run_folders.h"
#include "tvis/serve/run_server.h"
#include "web_dir.h"
#include "tvis/json/safe.h"

namespace tvis::cli {

const char* setup_form_html();  // setup_form_page.cpp, generated from setup_form.html

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

int fail(const std::string& why) {
  std::fprintf(stderr, "tvis graph --setup: %s\n", why.c_str());
  return 2;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string url_encode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '/' || c == ':') out += char(c);
    else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// One line for the page: the first problem (bounded) and how many more.
std::string bounded(const std::vector<std::string>& lines, const std::string& log) {
  if (lines.empty()) return "refused (see " + log + ")";
  std::string m = lines.front();
  if (m.size() > 300) m = m.substr(0, 297) + "...";
  if (lines.size() > 1) m += " (" + std::to_string(lines.size() - 1) + " more in " + log + ")";
  return m;
}

class SetupSession {
 public:
  SetupSession(SetupRequest r, std::string root, std::string config_path, std::string runs, std::string log)
      : r_(std::move(r)), root_(std::move(root)), config_path_(std::move(config_path)), runs_(std::move(runs)),
        log_(std::move(log)) {}

  std::vector<serve::Route> routes() {
    return {{"GET", "/setup", [](const serve::RouteRequest&) {
               return serve::RouteReply{200, "text/html; charset=utf-8", setup_form_html()};
             }},
            {"GET", "/api/setup/model", [this](const serve::RouteRequest& q) { return model(q); }},
            {"POST", "/api/setup/save", [this](const serve::RouteRequest& q) { return save(q); }},
            {"POST", "/api/setup/capture", [this](const serve::RouteRequest& q) { return capture(q); }}};
  }

 private:
  // Everything the page is not shown, with the time; the session log and stderr.
  void log(const std::string& what, const std::vector<std::string>& lines) {
    std::lock_guard<std::mutex> lock(log_mutex_);
    std::ofstream out(log_, std::ios::app);
    out << "== " << what << "\n";
    std::fprintf(stderr, "tvis graph --setup: %s\n", what.c_str());
    for (const auto& l : lines) {
      out << l << "\n";
      std::fprintf(stderr, "  %s\n", l.c_str());
    }
  }

  static serve::RouteReply reply(const json& j, int status = 200) { return {status, "application/json", tvis::safe_json::text(j)}; }

  serve::RouteReply refusal(const std::string& what, const std::vector<std::string>& lines, int status = 200) {
    log(what, lines);
    return reply({{"ok", false}, {"message", bounded(lines, log_)}, {"log", log_}}, status);
  }

  // The catalog as `tvis profiles` builds it: reading sources needs no torch, so the
  // interpreter is the one tvis run would most likely use, found without running it.
  profiles::Catalog catalog(std::string* error) {
    const profiles::Workspace w = profiles::find_workspace(root_, root_);
    const std::string py = likely_python(r_.python, PythonSearch::from_environment());
    if (py.empty()) *error = "no Python interpreter found to read the sources (pass --python PATH)";
    return profiles::build_catalog(w, py);
  }

  serve::RouteReply model(const serve::RouteRequest& q) {
    auto it = q.params.find("class");
    const std::string cls = it == q.params.end() ? r_.target : it->second;
    std::string error;
    const profiles::Catalog c = catalog(&error);
    if (!error.empty()) return refusal("model of " + cls, {error});
    json m = profiles::setup_form_model(c, cls, read_text(config_path_));
    if (m.contains("error")) return refusal("model of " + cls, {m["error"].get<std::string>()});
    m["ok"] = true;
    m["profile"] = r_.profile;  // "Change inputs" of this one ("" = a new setup)
    return reply(m);
  }

  serve::RouteReply save(const serve::RouteRequest& q) {
    const json body = json::parse(q.body, nullptr, false);
    if (!body.is_object() || !body.contains("class") || !body["class"].is_string() || !body.contains("form"))
      return refusal("save", {"the request is not {class, form} JSON"}, 400);
    const std::string cls = body["class"].get<std::string>();
    const json& form = body["form"];
    const std::string wanted = form.value("name", "");
    if (!profiles::valid_profile_name(wanted))
      return refusal("save", {"name: '" + wanted.substr(0, 64) + "' is not a profile name: 1 to 64 letters, digits, '_' or '-'"});
    std::string error;
    json profile = profiles::profile_from_form(form, cls, &error);
    if (profile.is_null()) return refusal("save " + wanted, {error});
    // A Flax class (source discovery, nothing imported) is captured by the JAX worker.
    std::string catalog_error;
    for (const auto& m : catalog(&catalog_error).classes)
      if (m.ref == cls && m.framework != "torch") profile["framework"] = m.framework;
    std::lock_guard<std::mutex> lock(save_mutex_);  // one splice at a time
    std::string text, target;
    const profiles::ProfileWrite w = print_only_
                                         ? profiles::plan_generated_profile(config_path_, root_, wanted, profile, &text, &target)
                                         : profiles::write_generated_profile(config_path_, root_, wanted, profile);
    if (!w.error.empty()) return refusal("save " + wanted, {w.error});
    if (!w.ok) {
      // The saved profile's own problems first: they are what the form can fix.
      // The page gets FIELD: MESSAGE (the line numbers are of a text that was not written); the log, all of it.
      std::vector<std::string> lines, others, detail;
      for (const auto& p : w.problems) {
        (p.field.rfind("profiles." + w.name, 0) == 0 ? lines : others).push_back(p.field.empty() ? p.message : p.field + ": " + p.message);
        detail.push_back(p.text());
      }
      lines.insert(lines.end(), others.begin(), others.end());
      log("save " + w.name + ": " + config_path_ + " would be invalid; nothing was written", detail);
      return reply({{"ok", false}, {"message", bounded(lines, log_)}, {"log", log_}});
    }
    if (print_only_)  // nothing written: the editor applies `text` to `file` itself
      return reply({{"ok", true}, {"profile", w.name}, {"file", target}, {"created", w.created}, {"replaced", w.replaced},
                    {"text", text}});
    log("saved profile " + w.name + " into " + config_path_, {});
    return reply({{"ok", true}, {"profile", w.name}, {"file", config_path_}, {"created", w.created}, {"replaced", w.replaced}});
  }

  serve::RouteReply capture(const serve::RouteRequest& q) {
    const json body = json::parse(q.body, nullptr, false);
    if (!body.is_object() || !body.contains("profile") || !body["profile"].is_string())
      return refusal("capture", {"the request is not {profile} JSON"}, 400);
    CaptureRequestArgs a;
    a.profile = body["profile"].get<std::string>();
    a.workspace = root_;
    a.python = r_.python;
    const CommandOutcome o = graph_outcome(a, runs_, graph_argv(a));
    std::vector<std::string> detail = o.problems;
    detail.push_back(tvis::safe_json::text(o.json));
    log("capture of profile " + a.profile + ": exit " + std::to_string(o.exit_code), detail);
    if (o.exit_code == 2 || !o.json.contains("run")) {
      std::vector<std::string> lines = o.problems;
      if (lines.empty())
        for (const auto& d : o.json.value("diagnostics", json::array())) lines.push_back(d.value("message", ""));
      return reply({{"ok", false}, {"message", bounded(lines, log_)}, {"log", log_}, {"exit_code", o.exit_code}});
    }
    const std::string run = o.json["run"].get<std::string>();
    const std::string rel = fs::relative(run, runs_).string();
    const std::string viewer = "/viewer.html?url=" + url_encode("run/" + rel) + "&page=Graph&setup_class=" +
                               url_encode(o.json.value("model", "")) + "&setup_profile=" + url_encode(a.profile);
    return reply({{"ok", true}, {"exit_code", o.exit_code}, {"run", rel}, {"viewer", viewer}, {"result", o.json}});
  }

 public:
  bool print_only_ = false;  // save() splices and answers the text; it writes nothing

 private:
  SetupRequest r_;
  std::string root_, config_path_, runs_, log_;
  std::mutex log_mutex_, save_mutex_;
};

}  // namespace

int print_setup(const SetupRequest& request, const std::string& form_file) {
  if (request.target.find(':') == std::string::npos)
    return fail(request.target.empty() ? "name the model class to set up: tvis graph MODULE:CLASS --setup-model"
                                       : "'" + request.target + "' is not MODULE:CLASS");
  const profiles::Workspace w = profiles::find_workspace(request.workspace, fs::current_path().string());
  if (!w.error.empty()) return fail(w.error);
  const std::string log = default_log_path("setup");
  if (log.empty()) return fail("no folder for the session log (~/.cache/tvis/logs)");
  SetupSession session(request, w.root, w.config_path, "", log);
  session.print_only_ = true;
  serve::RouteRequest q;
  std::string path = "/api/setup/model";
  if (form_file.empty()) {
    q.params["class"] = request.target;
  } else {
    std::string form_text;
    if (form_file == "-") {
      std::stringstream ss;
      ss << std::cin.rdbuf();
      form_text = ss.str();
    } else {
      std::error_code ec;
      if (!fs::is_regular_file(form_file, ec)) return fail("--setup-splice " + form_file + ": no such file");
      form_text = read_text(form_file);
    }
    const json form = json::parse(form_text, nullptr, false);
    if (!form.is_object()) return fail("--setup-splice " + form_file + ": not a JSON object (the form's fields)");
    q.body = tvis::safe_json::text(json{{"class", request.target}, {"form", form}});
    path = "/api/setup/save";
  }
  for (auto& route : session.routes())
    if (route.path == path) {
      const serve::RouteReply r = route.handle(q);
      std::printf("%s\n", r.body.c_str());
      const json j = json::parse(r.body, nullptr, false);
      return j.is_object() && j.value("ok", false) ? 0 : 1;
    }
  return fail("internal: no route " + path);
}

int run_setup(const SetupRequest& request) {
  if (request.target.find(':') == std::string::npos)
    return fail(request.target.empty() ? "name the model class to set up: tvis graph MODULE:CLASS --setup"
                                       : "'" + request.target + "' is not MODULE:CLASS");
  const profiles::Workspace w = profiles::find_workspace(request.workspace, fs::current_path().string());
  if (!w.error.empty()) return fail(w.error);
  std::string error;
  const std::string web_dir = find_web_dir(&error);
  if (web_dir.empty()) return fail(error);
  const std::string runs = request.out.empty() ? w.root + "/tvis_runs" : fs::absolute(request.out).lexically_normal().string();
  if (!runs::ensure_runs_folder(runs, &error)) return fail(error);
  const std::string log = default_log_path("setup");
  if (log.empty()) return fail("no folder for the session log (~/.cache/tvis/logs)");

  SetupSession session(request, w.root, w.config_path, runs, log);
  // The class must be one the form can set up: checked once before serving.
  {
    serve::RouteRequest q;
    q.params["class"] = request.target;
    for (auto& route : session.routes())
      if (route.path == "/api/setup/model") {
        const json m = json::parse(route.handle(q).body, nullptr, false);
        if (!m.value("ok", false)) return fail(m.value("message", "the class cannot be set up"));
      }
  }

  sigset_t stop_signals = block_stop_signals();
  auto store = remote::open_local_store(runs);
  if (!store.ok) return fail(store.error);
  serve::ServeOptions options;
  options.web_dir = web_dir;
  options.routes = session.routes();
  options.routes.push_back(  // the Graph page opened after a save rechecks its capture too
      freshness_route(store.value, [](const std::string& run_file) { return tvis::safe_json::text(run_freshness_json(run_file)); }));
  serve::RunServer server(store.value, options);
  auto started = server.start();
  if (!started.ok) return fail(started.error);
  std::string query = "class=" + url_encode(request.target);
  if (!request.profile.empty()) query += "&profile=" + url_encode(request.profile);
  const std::string url = server.url("/setup", query);
  std::printf("%s\n", url.c_str());
  std::fflush(stdout);
  std::fprintf(stderr, "tvis graph --setup: serving the setup form of %s (workspace %s); log %s; Ctrl-C stops\n",
               request.target.c_str(), w.root.c_str(), log.c_str());
  std::unique_ptr<BrowserHandoff> handoff;  // the page stays while the server runs
  if (!request.no_browser) {
    handoff = std::make_unique<BrowserHandoff>(url);
    if (handoff->ok()) open_browser(handoff->page());
    else std::fprintf(stderr, "tvis graph --setup: no browser started (%s); open the URL above\n", handoff->error().c_str());
  }
  int sig = 0;
  sigwait(&stop_signals, &sig);
  server.stop();
  std::fprintf(stderr, "tvis graph --setup: stopped\n");
  return 0;
}

}  // namespace tvis::cli
