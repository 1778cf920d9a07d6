#include "tvis/remote/targets.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <toml++/toml.h>

#include "tvis/remote/ssh_session.h"

namespace tvis::remote {

namespace fs = std::filesystem;

std::string targets_file() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/tvis/targets.toml";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.config/tvis/targets.toml";
}

bool valid_target_name(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

std::string target_problem(const Target& t) {
  std::string p = ssh_host_problem(t.host);
  if (!p.empty()) return "host: " + p;
  for (const auto& hop : t.via)
    if (!(p = ssh_host_problem(hop)).empty()) return "via: " + p;
  if (t.path.empty()) return "path: empty";
  if (!(p = remote_word_problem(t.path)).empty()) return "path " + p;
  if (!(p = remote_word_problem(t.remote_tvis)).empty()) return "remote_tvis " + p;
  return "";
}

Outcome<Targets> load_targets(const std::string& file) {
  using R = Outcome<Targets>;
  std::error_code ec;
  if (!fs::exists(file, ec)) return R::good({});
  toml::table root;
  try {
    root = toml::parse_file(file);
  } catch (const toml::parse_error& err) {
    std::ostringstream msg;
    msg << file << ":" << err.source().begin.line << ": " << err.description();
    return R::bad(msg.str());
  }
  Targets out;
  for (const auto& [key, node] : root) {
    if (key.str() != "targets") return R::bad(file + ": unknown key '" + std::string(key.str()) + "' (expected [targets.NAME] tables)");
    const toml::table* all = node.as_table();
    if (!all) return R::bad(file + ": 'targets' must be a table");
    for (const auto& [name_key, tnode] : *all) {
      const std::string name(name_key.str());
      const std::string where = file + ": targets." + name;
      const toml::table* t = tnode.as_table();
      if (!t) return R::bad(where + " must be a table");
      Target target;
      for (const auto& [k, v] : *t) {
        const std::string field(k.str());
        if (field == "host" || field == "path" || field == "remote_tvis") {
          auto s = v.value<std::string>();
          if (!s) return R::bad(where + "." + field + " must be a string");
          (field == "host" ? target.host : field == "path" ? target.path : target.remote_tvis) = *s;
        } else if (field == "via") {
          const toml::array* arr = v.as_array();
          if (!arr) return R::bad(where + ".via must be an array of strings");
          for (const auto& hop : *arr) {
            auto s = hop.value<std::string>();
            if (!s) return R::bad(where + ".via must be an array of strings");
            target.via.push_back(*s);
          }
        } else {
          return R::bad(where + ": unknown key '" + field + "' (known: host, via, path, remote_tvis)");
        }
      }
      if (target.host.empty()) return R::bad(where + ".host is missing");
      if (target.path.empty()) return R::bad(where + ".path is missing");
      const std::string problem = target_problem(target);
      if (!problem.empty()) return R::bad(where + "." + problem);
      out[name] = target;
    }
  }
  return R::good(out);
}

Outcome<bool> save_targets(const std::string& file, const Targets& targets) {
  std::error_code ec;
  fs::create_directories(fs::path(file).parent_path(), ec);
  toml::table all;
  for (const auto& [name, t] : targets) {
    toml::table tt;
    tt.insert("host", t.host);
    if (!t.via.empty()) {
      toml::array via;
      for (const auto& v : t.via) via.push_back(v);
      tt.insert("via", via);
    }
    tt.insert("path", t.path);
    if (!t.remote_tvis.empty()) tt.insert("remote_tvis", t.remote_tvis);
    all.insert(name, tt);
  }
  toml::table root;
  root.insert("targets", all);
  const std::string tmp = file + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out) return Outcome<bool>::bad("cannot write " + tmp);
    out << "# tvis targets (tvis target add/list/remove)\n" << root << "\n";
    if (!out) return Outcome<bool>::bad("cannot write " + tmp);
  }
  fs::rename(tmp, file, ec);
  if (ec) return Outcome<bool>::bad("cannot write " + file + ": " + ec.message());
  return Outcome<bool>::good(true);
}

}  // namespace tvis::remote
