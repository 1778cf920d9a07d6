#include "capture_request.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "interpreter_resolver.h"

namespace tvis::cli {

namespace fs = std::filesystem;

namespace {

// Neither a class nor a profile: the one model profile of the file, else a refusal listing them.
bool pick_default(const profiles::Config& config, profiles::Request& r, std::vector<std::string>& problems) {
  std::vector<std::string> names;
  for (const auto& p : config.profiles)
    if (p.kind == "model") names.push_back(p.name);
  if (names.size() == 1) {
    r.profile = names[0];
    return true;
  }
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  problems.push_back(names.empty() ? "name a model class (MODULE:CLASS) or --profile NAME; tensorviz.toml has no model profile"
                                   : "name --profile NAME or a class (MODULE:CLASS): profiles " + list);
  return false;
}

}  // namespace

PreparedCapture prepare_capture(const CaptureRequestArgs& a) {
  PreparedCapture p;
  p.exit_code = 2;
  if (a.timeout_ms != 0 && (a.timeout_ms < profiles::kTimeoutMinMs || a.timeout_ms > profiles::kTimeoutMaxMs)) {
    p.problems.push_back(a.timeout_setting + " " + std::to_string(a.timeout_ms) + " is outside " +
                         std::to_string(profiles::kTimeoutMinMs) + ".." + std::to_string(profiles::kTimeoutMaxMs) + " ms");
    return p;
  }
  const profiles::Workspace w = profiles::find_workspace(a.workspace, fs::current_path().string());
  if (!w.error.empty()) {
    p.problems.push_back(w.error);
    return p;
  }
  const ResolvedInterpreter interpreter = resolve_interpreter({a.python, w.root, true}, PythonSearch::from_environment());
  for (const auto& line : interpreter.ignored) std::fprintf(stderr, "tvis: %s\n", line.c_str());
  if (!interpreter.ok()) {
    p.problems.push_back(interpreter.error);
    return p;
  }
  p.pin = interpreter.pin;
  p.python = p.pin.path;
  p.catalog = profiles::build_catalog(w, p.python);
  if (!p.catalog.config.valid()) {
    p.config_problems = p.catalog.config.all_problems();
    for (const auto& pr : p.config_problems) p.problems.push_back(pr.text());
    return p;
  }
  profiles::Request r{a.target, a.profile};
  if (r.class_ref.empty() && r.profile.empty() && !pick_default(p.catalog.config, r, p.problems)) return p;
  if (!r.class_ref.empty() && r.class_ref.find(':') == std::string::npos) {
    p.problems.push_back("'" + r.class_ref + "' is not MODULE:CLASS");
    return p;
  }
  const profiles::Resolution res = profiles::resolve(r, p.catalog.config, p.catalog.classes, p.catalog.choices);
  std::string error;
  p.job = profiles::worker_job(p.catalog, res, r.class_ref, &error);
  if (p.job.job.is_null()) {
    p.problems.push_back(error);
    return p;
  }
  if (a.timeout_ms > 0) p.job.timeout_ms = a.timeout_ms, p.job.timeout_setting = a.timeout_setting;
  p.exit_code = 0;
  return p;
}

nlohmann::json refusal_json(const CaptureRequestArgs& a, const PreparedCapture& p) {
  nlohmann::json j = {{"ok", false},
                      {"profile", a.profile.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.profile)},
                      {"model", a.target},
                      {"stage", p.config_problems.empty() ? "request" : "config"},
                      {"outputs", nlohmann::json::array()},
                      {"diagnostics", nlohmann::json::array()}};
  if (!p.config_problems.empty()) {
    for (const auto& pr : p.config_problems) {
      nlohmann::json d = {{"kind", "config"}, {"message", pr.text()}, {"operands", nlohmann::json::array()}};
      if (!pr.field.empty()) d["field"] = pr.field;
      j["diagnostics"].push_back(std::move(d));
    }
  } else {
    for (const auto& line : p.problems)
      j["diagnostics"].push_back({{"kind", "request"}, {"message", line}, {"operands", nlohmann::json::array()}});
  }
  return j;
}

std::string default_log_path(const std::string& command) {
  // $XDG_CACHE_HOME, else the home folder ($HOME, else the password database's): never a shared,
  // predictable folder. With neither, a fresh private folder (mkdtemp, 0700) under $TMPDIR or /tmp.
  // The log itself is opened 0600 with O_NOFOLLOW (worker_process.h open_private_log()).
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  std::string home_dir = home && *home ? home : "";
  if (home_dir.empty())
    if (const passwd* pw = getpwuid(geteuid()); pw && pw->pw_dir && *pw->pw_dir && std::string(pw->pw_dir) != "/")
      home_dir = pw->pw_dir;
  fs::path dir;
  if (xdg && *xdg) dir = fs::path(xdg) / "tvis/logs";
  else if (!home_dir.empty()) dir = fs::path(home_dir) / ".cache/tvis/logs";
  if (!dir.empty()) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return "";
  } else {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/tvis-logs-XXXXXX";
    if (!mkdtemp(tmpl.data())) return "";
    dir = tmpl;
  }
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", std::gmtime(&now));
  return (dir / (command + "-" + stamp + "-" + std::to_string(getpid()) + ".log")).string();
}

}  // namespace tvis::cli
