#include "tvis/profiles/source_reader.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "child_process.h"

namespace tvis::profiles {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (unsigned char c : s)
    if (!(std::isalnum(c) || c == '_' || c >= 0x80)) return false;
  return true;
}

bool skipped_folder(const fs::path& dir) {
  const std::string name = dir.filename().string();
  if (name.empty() || name[0] == '.' || name == "__pycache__" || name == "node_modules" || name == "site-packages")
    return true;
  std::error_code ec;
  return fs::exists(dir / "pyvenv.cfg", ec);
}

// "a/b/c.py" → "a.b.c"; "a/b/__init__.py" → "a.b"; "" when a part is not an identifier.
std::string module_of(const fs::path& rel, bool* is_package) {
  std::vector<std::string> parts;
  for (const auto& part : rel) parts.push_back(part.string());
  std::string last = parts.back();
  last = last.substr(0, last.size() - 3);
  *is_package = last == "__init__";
  parts.pop_back();
  if (!*is_package) parts.push_back(last);
  std::string out;
  for (const auto& p : parts) {
    if (!is_identifier(p)) return "";
    out += (out.empty() ? "" : ".") + p;
  }
  return out;
}

std::vector<Param> params_of(const json& arr) {
  std::vector<Param> out;
  for (const auto& p : arr) {
    Param q{p.value("name", ""), p.value("kind", ""), p.value("default", false)};
    if (p.contains("default_text") && p["default_text"].is_string()) q.default_text = p["default_text"].get<std::string>();
    if (p.contains("annotation") && p["annotation"].is_string()) q.annotation = p["annotation"].get<std::string>();
    out.push_back(std::move(q));
  }
  return out;
}

FileFacts file_of(const json& j, const std::string& root) {
  FileFacts f;
  f.path = j["path"].is_string() ? j["path"].get<std::string>() : "";
  f.module = j.value("module", "");
  f.is_package = j.value("is_package", false);
  f.external = j.value("external", false);
  f.error = j["error"].is_string() ? j["error"].get<std::string>() : "";
  if (!f.external && f.path.size() > root.size() && f.path.compare(0, root.size() + 1, root + "/") == 0)
    f.rel = f.path.substr(root.size() + 1);
  if (j.contains("imports"))
    for (const auto& [k, v] : j["imports"].items()) f.imports[k] = v.get<std::string>();
  for (const auto& c : j.value("classes", json::array())) {
    ClassFacts cf;
    cf.name = c.value("name", "");
    cf.line = c.value("line", 0);
    cf.first_line = c.value("first_line", cf.line);
    cf.end_line = c.value("end_line", cf.line);
    cf.above_start = c.value("above_start", cf.first_line);
    for (const auto& b : c.value("bases", json::array()))
      cf.bases.push_back(b.is_string() ? std::optional<std::string>(b.get<std::string>()) : std::nullopt);
    if (c.contains("forward") && c["forward"].is_object()) {
      Signature s;
      s.line = c["forward"].value("line", 0);
      s.assigned = c["forward"].value("assigned", false);
      s.params = params_of(c["forward"].value("params", json::array()));
      cf.forward = s;
    }
    if (c.contains("init") && c["init"].is_object()) {
      Signature s;
      s.line = c["init"].value("line", 0);
      s.params = params_of(c["init"].value("params", json::array()));
      cf.init = s;
    }
    if (c.contains("call") && c["call"].is_object()) {
      Signature s;
      s.line = c["call"].value("line", 0);
      s.params = params_of(c["call"].value("params", json::array()));
      cf.call = s;
    }
    f.classes.push_back(std::move(cf));
  }
  for (const auto& fn : j.value("functions", json::array()))
    f.functions.push_back({fn.value("name", ""), fn.value("line", 0), fn.value("async", false),
                           params_of(fn.value("params", json::array()))});
  for (const auto& a : j.value("assigned", json::array())) f.assigned.push_back(a.get<std::string>());
  for (const auto& d : j.value("declarations", json::array()))
    f.declarations.push_back({d.value("line", 0), d.value("column", 0), d.value("text", ""), d.value("comment_only", false)});
  return f;
}

}  // namespace

std::string Signature::text(const std::string& name) const {
  if (assigned) return name + " = ... (assigned; signature unknown)";
  std::string out = name + "(";
  bool star_done = false, first = true;
  for (size_t i = 0; i < params.size(); ++i) {
    const Param& p = params[i];
    std::string piece;
    if (p.kind == "kwonly" && !star_done) piece = "*, ";
    if (p.kind == "vararg" || p.kind == "kwonly" || p.kind == "varkw") star_done = true;
    piece += (p.kind == "vararg" ? "*" : p.kind == "varkw" ? "**" : "") + p.name + (p.has_default ? "=..." : "");
    out += (first ? "" : ", ") + piece;
    first = false;
    if (p.kind == "posonly" && (i + 1 == params.size() || params[i + 1].kind != "posonly")) out += ", /";
  }
  return out + ")";
}

const ClassFacts* FileFacts::find_class(const std::string& name) const {
  const ClassFacts* found = nullptr;
  for (const auto& c : classes)
    if (c.name == name) found = &c;  // the last definition wins, as in Python
  return found;
}

const FunctionFacts* FileFacts::find_function(const std::string& name) const {
  const FunctionFacts* found = nullptr;
  for (const auto& f : functions)
    if (f.name == name) found = &f;
  return found;
}

const FileFacts* SourceFacts::find_module(const std::string& module) const {
  for (const auto& f : files)
    if (f.module == module && !f.external) return &f;
  for (const auto& f : files)
    if (f.module == module) return &f;
  return nullptr;
}

std::vector<SourceFile> list_sources(const std::string& root, size_t* skipped, std::vector<std::string>* links_out) {
  std::vector<SourceFile> out;
  *skipped = 0;
  std::error_code ec;
  const fs::path real_root = fs::weakly_canonical(root, ec);
  const std::string inside_prefix = real_root.string() + (real_root.string() == "/" ? "" : "/");
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::directory_entry& e = *it;
    std::error_code sec;
    if (e.is_symlink(sec) && e.is_directory(sec)) {
      it.disable_recursion_pending();
      continue;
    }
    if (e.is_directory(sec)) {
      if (skipped_folder(e.path())) it.disable_recursion_pending();
      continue;
    }
    if (e.path().extension() != ".py" || !e.is_regular_file(sec)) continue;
    const fs::path rel = e.path().lexically_relative(root);
    if (e.is_symlink(sec)) {  // a link is a source only when it resolves inside the workspace
      const std::string target = fs::weakly_canonical(e.path(), sec).string();
      if (sec || target.rfind(inside_prefix, 0) != 0) {
        if (links_out) links_out->push_back(rel.string() + " -> " + target);
        continue;
      }
    }
    bool is_package = false;
    const std::string module = module_of(rel, &is_package);
    if (module.empty()) continue;
    if (out.size() >= kMaxSourceFiles) {
      ++*skipped;
      continue;
    }
    out.push_back({e.path().string(), rel.string(), module, is_package});
  }
  std::sort(out.begin(), out.end(), [](const SourceFile& a, const SourceFile& b) { return a.rel < b.rel; });
  return out;
}

SourceFacts parse_reader_output(const std::string& json_text, const std::string& root) {
  SourceFacts s;
  json j = json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("files")) {
    s.error = "the source reader's output is not the expected JSON";
    return s;
  }
  s.python_version = j.value("python", "");
  for (const auto& f : j["files"]) s.files.push_back(file_of(f, root));
  return s;
}

SourceFacts read_sources(const std::string& python, const std::string& root, const std::vector<SourceFile>& files,
                         const std::vector<std::string>& extra_modules) {
  SourceFacts s;
  if (python.empty()) {
    s.error = "no Python interpreter to read the sources with (give --python PATH)";
    return s;
  }
  std::string requests;
  for (const auto& f : files)
    requests += "file\t" + f.path + "\t" + f.module + "\t" + (f.is_package ? "1" : "0") + "\n";
  for (const auto& m : extra_modules) requests += "find\t" + m + "\n";
  const tvis::process::Result r = detail::run_child({python, "-I", "-c", source_reader_script()}, requests, "/");
  if (!r.started) {
    s.error = r.error;
  } else if (r.exit_code != 0) {
    std::string err = r.err.substr(r.err.size() > 400 ? r.err.size() - 400 : 0);
    while (!err.empty() && err.back() == '\n') err.pop_back();
    const size_t nl = err.rfind('\n');
    s.error = python + " could not run the source reader (exit " + std::to_string(r.exit_code) +
              "): " + (nl == std::string::npos ? err : err.substr(nl + 1));
  } else {
    s = parse_reader_output(r.out, root);
  }
  s.python = python;
  return s;
}

}  // namespace tvis::profiles
