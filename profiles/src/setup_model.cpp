// The setup form's model (setup_form.h): the class's signatures, pickers and
// its profiles, from a catalog already built.
#include <cctype>

#include "tvis/profiles/profile_writer.h"
#include "tvis/profiles/setup_form.h"

namespace tvis::profiles {

using nlohmann::json;

namespace {

json params_json(const std::optional<Signature>& sig) {
  json out = json::array();
  if (!sig || sig->assigned) return out;
  for (size_t i = 0; i < sig->params.size(); ++i) {
    const Param& p = sig->params[i];
    if (i == 0 && p.name == "self") continue;
    out.push_back({{"name", p.name},
                   {"kind", p.kind},
                   {"has_default", p.has_default},
                   {"default", p.default_text.empty() ? json(nullptr) : json(p.default_text)},
                   {"annotation", p.annotation.empty() ? json(nullptr) : json(p.annotation)}});
  }
  return out;
}

// "TwoBlocks" → "two_blocks": the name a new setup is offered under.
std::string snake(const std::string& name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    const unsigned char c = name[i];
    if (std::isupper(c) && i > 0 && (std::islower(static_cast<unsigned char>(name[i - 1])) ||
                                     (i + 1 < name.size() && std::islower(static_cast<unsigned char>(name[i + 1])))))
      out += '_';
    out += std::isalnum(c) ? char(std::tolower(c)) : '_';
  }
  return out.empty() ? "model" : out.substr(0, 56);
}

}  // namespace

json setup_form_model(const Catalog& catalog, const std::string& class_ref, const std::string& config_text) {
  const ModelClass* cls = nullptr;
  for (const auto& m : catalog.classes)
    if (m.ref == class_ref) cls = &m;
  if (!cls) {
    std::string known;
    for (const auto& m : catalog.classes) known += (known.empty() ? "" : ", ") + m.ref;
    return {{"error", "no model class " + class_ref + " in " + catalog.workspace.root +
                          (known.empty() ? " (it has none)" : " (model classes: " + known.substr(0, 400) + ")")}};
  }
  json j = {{"class", cls->ref},
            {"module", cls->module},
            {"name", cls->name},
            {"file", cls->file->rel},
            {"line", cls->cls->line},
            {"workspace", catalog.workspace.root},
            {"config", catalog.config.present ? json(catalog.config.path) : json(nullptr)},
            {"config_valid", catalog.config.valid()},
            {"init_known", cls->init.has_value()},
            {"init_params", params_json(cls->init)},
            {"forward_known", cls->forward.has_value() && !cls->forward->assigned},
            {"forward", cls->forward ? json(cls->forward->text()) : json(nullptr)},
            {"forward_params", params_json(cls->forward)},
            {"new_name", snake(cls->name)},
            {"dtypes", {"float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool",
                        "complex64"}},
            {"generators", {"normal", "uniform", "zeros", "ones", "full", "arange", "randint"}},
            {"devices", {"cpu", "cuda", "mps"}},
            {"modes", {"eval", "train"}},
            {"timeout_ms", kTimeoutDefaultMs}};
  json functions = json::array();
  for (const auto& f : catalog.sources.files) {
    if (f.external || f.rel.empty()) continue;
    for (const auto& fn : f.functions)
      if (functions.size() < 500) functions.push_back({{"file", f.rel}, {"name", fn.name}, {"line", fn.line}});
  }
  j["functions"] = functions;
  json profiles = json::array();
  const auto blocks = find_generated_blocks(config_text);
  for (const auto& p : catalog.config.profiles) {
    if (p.model != class_ref || p.kind != "model") continue;
    bool generated = false;
    for (const auto& b : blocks) generated = generated || b.name == p.name;
    json e = {{"name", p.name}, {"line", p.line}, {"generated", generated}, {"valid", p.valid()},
              {"form", form_from_profile(p, cls)}};
    if (!p.valid()) e["problem"] = p.problems.front().text().substr(0, 300);
    profiles.push_back(std::move(e));
  }
  j["profiles"] = profiles;
  return j;
}

}  // namespace tvis::profiles
