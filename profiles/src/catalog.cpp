#include "tvis/profiles/catalog.h"

#include <set>

#include "tvis/profiles/source_reader.h"

namespace tvis::profiles {

using nlohmann::json;

namespace {

Problem at_profile(const Catalog& c, const Profile& p, const std::string& field, const std::string& msg) {
  return Problem{c.config.path, p.line, 0, "profiles." + p.name + "." + field, msg};
}

std::string module_file(const std::string& module) {
  std::string f = module;
  for (char& ch : f)
    if (ch == '.') ch = '/';
  return f;
}

// The checks of one profile that need the sources.
void check_against_sources(Catalog& c, Profile& p) {
  if (!c.sources.error.empty()) return;  // reported once, at the file level
  if (!p.module.empty() && p.kind == "model") {
    const FileFacts* f = c.sources.find_module(p.module);
    const std::string files = module_file(p.module) + ".py or " + module_file(p.module) + "/__init__.py";
    if (!f)
      p.problems.push_back(at_profile(c, p, "model", "no module " + p.module + ": neither " + files +
                                                         " is in the workspace or on " + c.sources.python + "'s path"));
    else if (!f->error.empty())
      p.problems.push_back(at_profile(c, p, "model", (f->rel.empty() ? f->path : f->rel) + " does not parse: " + f->error));
    else if (p.framework == "jax" ? !f->find_class(p.class_name) && !f->find_function(p.class_name) : !f->find_class(p.class_name))
      // A JAX profile's model is a Flax module class or a plain function.
      p.problems.push_back(at_profile(c, p, "model", (f->rel.empty() ? f->path : f->rel) + " defines no class " +
                                                         (p.framework == "jax" ? "or top-level function " : "") + p.class_name));
  }
  for (const auto* callable : {p.factory ? &*p.factory : nullptr, p.input_factory ? &*p.input_factory : nullptr}) {
    if (!callable) continue;
    const std::string field = callable == (p.factory ? &*p.factory : nullptr) ? "factory.callable" : "inputs.factory.callable";
    const FileFacts* f = nullptr;
    for (const auto& ff : c.sources.files)
      if (ff.rel == callable->file) f = &ff;
    if (!f) {
      p.problems.push_back(at_profile(c, p, field, callable->file + " was not read as a Python source (a .py file under an importable path)"));
    } else if (!f->error.empty()) {
      p.problems.push_back(at_profile(c, p, field, callable->file + " does not parse: " + f->error));
    } else if (!f->find_function(callable->callable)) {
      bool assigned = false;
      for (const auto& a : f->assigned) assigned = assigned || a == callable->callable;
      p.problems.push_back(at_profile(c, p, field, callable->file + (assigned ? " assigns " + callable->callable + " but a factory must be a top-level def"
                                                                             : " defines no top-level function " + callable->callable)));
    }
  }
}

json problem_json(const Problem& p) {
  json j = {{"message", p.message}, {"text", p.text()}};
  j["field"] = p.field.empty() ? json(nullptr) : json(p.field);
  j["line"] = p.line ? json(p.line) : json(nullptr);
  j["column"] = p.column ? json(p.column) : json(nullptr);
  return j;
}

json problems_json(const std::vector<Problem>& ps) {
  json out = json::array();
  for (size_t i = 0; i < ps.size() && i < kMaxProblemsShown; ++i) out.push_back(problem_json(ps[i]));
  return out;
}

json params_json(const std::vector<Param>& ps) {
  json out = json::array();
  for (const auto& p : ps) out.push_back({{"name", p.name}, {"kind", p.kind}, {"default", p.has_default}});
  return out;
}

json callable_json(const Callable& c) { return {{"file", c.file}, {"callable", c.callable}, {"kwargs", c.kwargs}}; }

json profile_json(const Profile& p) {
  json j = {{"name", p.name}, {"model", p.model}, {"kind", p.kind}, {"valid", p.valid()},
            {"errors", problems_json(p.problems)}, {"line", p.line}, {"framework", p.framework}};
  if (p.kind == "script") {
    j["script"] = p.script;
    return j;
  }
  j["mode"] = p.mode;
  j["device"] = p.device;
  j["grad_enabled"] = p.grad_enabled;
  j["seed"] = p.seed ? json(*p.seed) : json(nullptr);
  j["deterministic"] = p.deterministic;
  j["cwd"] = p.cwd;
  j["limits"] = {{"timeout_ms", p.timeout_ms}, {"max_capture_bytes", p.max_capture_bytes}};
  j["init"] = p.init ? *p.init : json(nullptr);
  j["factory"] = p.factory ? callable_json(*p.factory) : json(nullptr);
  j["inputs"] = p.inputs ? *p.inputs : json(nullptr);
  j["input_factory"] = p.input_factory ? callable_json(*p.input_factory) : json(nullptr);
  return j;
}

json class_json(const ModelClass& m) {
  json j = {{"class", m.ref}, {"module", m.module}, {"name", m.name},
            {"file", m.file->rel}, {"line", m.cls->line}, {"base", m.base},
            {"framework", m.framework}};
  j["forward"] = m.forward ? json(m.forward->text(m.forward_name())) : json(nullptr);
  j["forward_params"] = m.forward && !m.forward->assigned ? params_json(m.forward->params) : json(nullptr);
  j["forward_from"] = m.forward_from.empty() ? json(nullptr) : json(m.forward_from);
  if (m.declaration.ok) {
    j["declaration"] = {{"ok", true}, {"lines", m.declaration.lines}, {"inputs", m.declaration.shapes},
                        {"dtype", "float32"}, {"generator", {{"kind", "normal"}, {"seed", 0}}}};
  } else if (!m.declaration.error.empty()) {
    j["declaration"] = {{"ok", false}, {"lines", m.declaration.lines}, {"error", m.declaration.error}};
  } else {
    j["declaration"] = nullptr;
  }
  return j;
}

}  // namespace

int Catalog::exit_code() const {
  if (!workspace.error.empty() || !config.valid()) return 2;
  return 0;
}

Catalog build_catalog(const Workspace& workspace, const std::string& python) {
  Catalog c;
  c.workspace = workspace;
  if (!workspace.error.empty()) return c;
  c.config = load_config(workspace.config_path, workspace.root);
  size_t skipped = 0;
  std::vector<std::string> links_out;
  const std::vector<SourceFile> files = list_sources(workspace.root, &skipped, &links_out);
  std::set<std::string> local, extra;
  for (const auto& f : files) local.insert(f.module);
  for (const auto& p : c.config.profiles)
    if (!p.module.empty() && !local.count(p.module)) extra.insert(p.module);
  c.sources = read_sources(python, workspace.root, files, {extra.begin(), extra.end()});
  c.sources.skipped_files = skipped;
  if (!c.sources.error.empty() && c.config.present && !c.config.profiles.empty())
    c.config.problems.push_back(Problem{c.config.path, 0, 0, "", "cannot check the profiles against the sources: " + c.sources.error});
  for (auto& p : c.config.profiles) check_against_sources(c, p);
  c.classes = find_model_classes(c.sources);
  if (!c.sources.error.empty()) c.notices.push_back("sources not read: " + c.sources.error);
  for (const auto& l : links_out) c.notices.push_back(l + ": not read: a link out of the workspace");
  if (skipped) c.notices.push_back(std::to_string(skipped) + " Python files past the first " + std::to_string(kMaxSourceFiles) + " were not read");
  for (const auto& f : c.sources.files) {
    if (f.external) continue;
    if (!f.error.empty()) {
      c.notices.push_back(f.rel + ": not read: " + f.error);
      continue;
    }
    std::vector<const ClassFacts*> models;
    for (const auto& m : c.classes)
      if (m.file == &f) models.push_back(m.cls);
    for (auto& n : unowned_declarations(f, models)) c.notices.push_back(std::move(n));
  }
  c.choices = load_choices(workspace.root);
  for (const auto& m : c.classes) {
    Request r{m.ref, ""};
    c.requests.push_back({r, resolve(r, c.config, c.classes, c.choices)});
  }
  for (const auto& p : c.config.profiles) {
    Request r{"", p.name};
    c.requests.push_back({r, resolve(r, c.config, c.classes, c.choices)});
  }
  return c;
}

json catalog_json(const Catalog& c) {
  json j;
  j["workspace"] = c.workspace.root;
  j["config"] = c.config.present ? json(c.workspace.config_path) : json(nullptr);
  j["valid"] = c.exit_code() == 0;
  std::vector<Problem> file_level = c.config.problems;
  if (!c.workspace.error.empty()) file_level.push_back(Problem{"", 0, 0, "", c.workspace.error});
  j["errors"] = problems_json(file_level);
  j["error_count"] = c.config.all_problems().size() + (c.workspace.error.empty() ? 0 : 1);
  j["profiles"] = json::array();
  for (const auto& p : c.config.profiles) j["profiles"].push_back(profile_json(p));
  j["classes"] = json::array();
  for (const auto& m : c.classes) j["classes"].push_back(class_json(m));
  j["jax_functions"] = json::array();
  for (const auto& f : find_jax_functions(c.sources))
    j["jax_functions"].push_back({{"function", f.ref}, {"file", f.file->rel}, {"line", f.function->line},
                                  {"params", params_json(f.function->params)}});
  j["requests"] = json::array();
  for (const auto& r : c.requests) {
    json req = {{"class", r.request.class_ref.empty() ? json(nullptr) : json(r.request.class_ref)},
                {"profile", r.request.profile.empty() ? json(nullptr) : json(r.request.profile)}};
    const Resolution& s = r.resolution;
    json res = {{"status", resolved_name(s.status)}, {"candidates", s.candidates}, {"remembered", s.remembered}};
    res["profile"] = s.profile.empty() ? json(nullptr) : json(s.profile);
    res["reason"] = s.reason.empty() ? json(nullptr) : json(s.reason);
    j["requests"].push_back({{"request", req}, {"resolution", res}});
  }
  j["python"] = c.sources.python.empty() ? json(nullptr) : json(c.sources.python);
  j["notices"] = c.notices;
  j["choices_file"] = c.workspace.root + "/" + kChoicesName;
  return j;
}

std::string catalog_text(const Catalog& c) {
  std::string out;
  if (!c.workspace.error.empty()) return c.workspace.error + "\n";
  out += "workspace " + c.workspace.root + (c.config.present ? " (" + std::string(kConfigName) + ")" : " (no " + std::string(kConfigName) + ")") + "\n";
  out += "profiles:" + std::string(c.config.profiles.empty() ? " none" : "") + "\n";
  for (const auto& p : c.config.profiles)
    out += "  " + p.name + "  " + (p.kind == "script" ? "script " + p.script : p.model) + "  " + (p.valid() ? "valid" : "INVALID") + "\n";
  out += "classes:" + std::string(c.classes.empty() ? " none" : "") + "\n";
  for (const auto& m : c.classes) {
    out += "  " + m.ref + "  " + m.file->rel + ":" + std::to_string(m.cls->line) + "  " +
           (m.forward ? m.forward->text(m.forward_name())
                      : m.forward_from.empty() ? "no forward found" : "forward of " + m.forward_from) +
           (m.framework == "jax" ? "  (jax)" : "");
    if (m.declaration.ok) out += "  declares " + m.declaration.spec();
    if (!m.declaration.error.empty()) out += "  declaration: " + m.declaration.error;
    out += "\n";
  }
  const auto jax_functions = find_jax_functions(c.sources);
  if (!jax_functions.empty()) {
    out += "jax functions:\n";
    for (const auto& f : jax_functions) out += "  " + f.ref + "  " + f.file->rel + ":" + std::to_string(f.function->line) + "\n";
  }
  out += "requests:\n";
  for (const auto& r : c.requests) {
    const std::string what = r.request.profile.empty() ? r.request.class_ref : "--profile " + r.request.profile;
    const Resolution& s = r.resolution;
    std::string to = s.status == Resolved::profile ? "profile " + s.profile + (s.remembered ? " (remembered choice)" : "")
                                                   : std::string(resolved_name(s.status)) + ": " + s.reason;
    out += "  " + what + " -> " + to + "\n";
  }
  for (const auto& n : c.notices) out += "note: " + n + "\n";
  const std::vector<Problem> all = c.config.all_problems();
  for (size_t i = 0; i < all.size() && i < kMaxProblemsShown; ++i) out += all[i].text() + "\n";
  if (all.size() > kMaxProblemsShown) out += "... and " + std::to_string(all.size() - kMaxProblemsShown) + " more problems\n";
  return out;
}

}  // namespace tvis::profiles
