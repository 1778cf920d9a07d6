// worker_job(): a resolved request as the JSON job python/worker.py reads
// (its header lists the keys). Paths become absolute; a declaration becomes
// explicit float32 normal inputs (seed 0); without a profile the forward
// limit is the automatic 180,000 ms.
#include "tvis/profiles/capture.h"

namespace tvis::profiles {

namespace {

using nlohmann::json;

std::string absolute(const std::string& root, const std::string& rel) {
  if (rel.empty() || rel == ".") return root;
  return rel[0] == '/' ? rel : root + "/" + rel;
}

json callable_json(const Callable& c, const std::string& root) {
  return {{"file", absolute(root, c.file)}, {"callable", c.callable}, {"kwargs", c.kwargs}};
}

json profile_job(const Profile& p, const std::string& root) {
  json j = {{"workspace", root}, {"cwd", absolute(root, p.cwd)}, {"module", p.module}, {"class", p.class_name},
            {"mode", p.mode}, {"device", p.device}, {"grad_enabled", p.grad_enabled},
            {"deterministic", p.deterministic}, {"max_capture_bytes", p.max_capture_bytes}};
  j["seed"] = p.seed ? json(*p.seed) : json(nullptr);
  if (p.framework != "torch") j["framework"] = p.framework;
  if (p.init) j["init"] = *p.init;
  if (p.factory) j["factory"] = callable_json(*p.factory, root);
  if (p.inputs) j["inputs"] = *p.inputs;
  if (p.input_factory) j["input_factory"] = callable_json(*p.input_factory, root);
  return j;
}

// No profile: eval, cpu, no grad, deterministic, an empty constructor.
json default_job(const std::string& module, const std::string& cls, const std::string& root) {
  return {{"workspace", root}, {"cwd", root}, {"module", module}, {"class", cls}, {"mode", "eval"}, {"device", "cpu"},
          {"grad_enabled", false}, {"deterministic", true}, {"seed", nullptr}, {"max_capture_bytes", kCaptureDefaultBytes},
          {"init", {{"args", json::array()}, {"kwargs", json::object()}}}};
}

json declared_inputs(const ClassDeclaration& d) {
  json args = json::array();
  for (const auto& shape : d.shapes)
    args.push_back({{"kind", "tensor"}, {"shape", shape}, {"dtype", "float32"}, {"requires_grad", false},
                    {"generator", {{"kind", "normal"}, {"mean", 0.0}, {"std", 1.0}, {"seed", 0}}}});
  return {{"args", args}, {"kwargs", json::object()}};
}

const ModelClass* find_class(const Catalog& c, const std::string& ref) {
  for (const auto& m : c.classes)
    if (m.ref == ref) return &m;
  return nullptr;
}

}  // namespace

CaptureJob worker_job(const Catalog& c, const Resolution& r, const std::string& class_ref, std::string* error) {
  CaptureJob out;
  const std::string& root = c.workspace.root;
  switch (r.status) {
    case Resolved::profile: {
      const Profile* p = c.config.find(r.profile);
      if (!p) break;
      out.job = profile_job(*p, root);
      out.profile = p->name, out.model = p->model, out.source = "profile", out.timeout_ms = p->timeout_ms;
      return out;
    }
    case Resolved::declaration:
    case Resolved::automatic: {
      const ModelClass* m = find_class(c, class_ref);
      const auto colon = class_ref.find(':');
      if (colon == std::string::npos) break;
      out.job = default_job(m ? m->module : class_ref.substr(0, colon), m ? m->name : class_ref.substr(colon + 1), root);
      out.model = class_ref, out.timeout_ms = kAutomaticTimeoutMs;
      if (m && m->framework != "torch") out.job["framework"] = m->framework;  // a Flax class: the JAX worker
      if (r.status == Resolved::declaration && m) {
        out.job["inputs"] = declared_inputs(m->declaration);
        out.source = "declaration";
      } else {
        out.job["automatic"] = true;
        out.source = "automatic";
      }
      return out;
    }
    case Resolved::choose: {
      std::string list;
      for (const auto& n : r.candidates) list += (list.empty() ? "" : ", ") + n;
      if (error) *error = "several profiles match " + class_ref + " (" + list + "): pass --profile NAME";
      return out;
    }
    case Resolved::refused:
      if (error) *error = r.reason;
      return out;
  }
  if (error) *error = "nothing to run for this request";
  return out;
}

}  // namespace tvis::profiles
