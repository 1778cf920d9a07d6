#include "tvis/profiles/model_classes.h"

#include <cctype>
#include <set>

namespace tvis::profiles {

namespace {

struct Found {
  const FileFacts* file = nullptr;
  const ClassFacts* cls = nullptr;
};

class Resolver {
 public:
  explicit Resolver(const SourceFacts& facts) : facts_(facts) {}

  // The dotted target of `name` as written in `file` (imports first, else a name of the file itself).
  std::string absolute(const FileFacts& file, const std::string& name) const {
    const size_t dot = name.find('.');
    const std::string head = name.substr(0, dot);
    const std::string rest = dot == std::string::npos ? "" : name.substr(dot);
    auto it = file.imports.find(head);
    if (it != file.imports.end()) return it->second + rest;
    return file.module + "." + name;
  }

  // A workspace class named by dotted `target` (module.Class), following re-exports.
  Found lookup(const std::string& target, int depth = 0) const {
    if (depth > 8) return {};
    const size_t dot = target.rfind('.');
    if (dot == std::string::npos) return {};
    const FileFacts* f = facts_.find_module(target.substr(0, dot));
    if (!f || f->external) return {};
    const std::string name = target.substr(dot + 1);
    if (const ClassFacts* c = f->find_class(name)) return {f, c};
    auto it = f->imports.find(name);
    if (it != f->imports.end() && it->second != target) return lookup(it->second, depth + 1);
    return {};
  }

  static bool torch_module_base(const std::string& t) {
    if (t == "pytorch_lightning.LightningModule" || t == "lightning.LightningModule" ||
        t == "lightning.pytorch.LightningModule")
      return true;
    if (t.rfind("torch.nn.", 0) != 0) return false;
    const std::string last = t.substr(t.rfind('.') + 1);
    if (last.empty() || !std::isupper(static_cast<unsigned char>(last[0]))) return false;
    return last != "Parameter" && last != "UninitializedParameter" && last != "UninitializedBuffer";
  }

  static bool flax_module_base(const std::string& t) {
    return t == "flax.linen.Module" || t == "flax.linen.module.Module" || t == "flax.nnx.Module" ||
           t == "flax.nnx.module.Module";
  }

  // The base that makes (file, cls) a model, or "".
  std::string model_base(const FileFacts& file, const ClassFacts& cls, std::set<const ClassFacts*>* seen) const {
    if (!seen->insert(&cls).second) return "";
    for (const auto& b : cls.bases) {
      if (!b) continue;
      const std::string t = absolute(file, *b);
      if (torch_module_base(t) || flax_module_base(t)) return t;
      Found f = lookup(t);
      if (f.cls && !model_base(*f.file, *f.cls, seen).empty()) return t;
    }
    return "";
  }

  // Whether the base chain that makes (file, cls) a model ends at a Flax module.
  bool is_flax(const FileFacts& file, const ClassFacts& cls, int depth = 0) const {
    if (depth > 16) return false;
    for (const auto& b : cls.bases) {
      if (!b) continue;
      const std::string t = absolute(file, *b);
      if (flax_module_base(t)) return true;
      if (torch_module_base(t)) return false;
      Found f = lookup(t);
      if (f.cls && f.cls != &cls && is_flax(*f.file, *f.cls, depth + 1)) return true;
    }
    return false;
  }

  // The forward along the bases: (signature, where it came from).
  bool forward_of(const FileFacts& file, const ClassFacts& cls, std::optional<Signature>* sig, std::string* from,
                  std::set<const ClassFacts*>* seen, bool own) const {
    if (!seen->insert(&cls).second) return false;
    if (cls.forward) {
      *sig = cls.forward;
      *from = own ? "" : file.module + "." + cls.name;
      return true;
    }
    for (const auto& b : cls.bases) {
      if (!b) continue;
      const std::string t = absolute(file, *b);
      Found f = lookup(t);
      if (f.cls && forward_of(*f.file, *f.cls, sig, from, seen, false)) return true;
      if (!f.cls && torch_module_base(t) && t != "torch.nn.Module") {
        *from = t;  // a torch class's forward: not read from source
        return true;
      }
    }
    return false;
  }

  // `__init__` along the workspace bases, depth first (torch's own is not read).
  std::optional<Signature> init_of(const FileFacts& file, const ClassFacts& cls, std::set<const ClassFacts*>* seen) const {
    if (!seen->insert(&cls).second) return std::nullopt;
    if (cls.init) return cls.init;
    for (const auto& b : cls.bases) {
      if (!b) continue;
      Found f = lookup(absolute(file, *b));
      if (f.cls)
        if (auto s = init_of(*f.file, *f.cls, seen)) return s;
    }
    return std::nullopt;
  }

 private:
  const SourceFacts& facts_;
};

}  // namespace

std::vector<ModelClass> find_model_classes(const SourceFacts& facts) {
  Resolver r(facts);
  std::vector<ModelClass> out;
  for (const auto& file : facts.files) {
    if (file.external || !file.error.empty()) continue;
    std::vector<const ClassFacts*> models;
    std::vector<ModelClass> here;
    for (const auto& cls : file.classes) {
      std::set<const ClassFacts*> seen;
      const std::string base = r.model_base(file, cls, &seen);
      if (base.empty()) continue;
      ModelClass m;
      m.module = file.module;
      m.name = cls.name;
      m.ref = file.module + ":" + cls.name;
      m.file = &file;
      m.cls = &cls;
      m.base = base;
      if (r.is_flax(file, cls)) {
        m.framework = "jax";
        m.forward = cls.call;  // its own __call__; one inherited is not followed
      } else {
        std::set<const ClassFacts*> seen_fwd;
        r.forward_of(file, cls, &m.forward, &m.forward_from, &seen_fwd, true);
      }
      std::set<const ClassFacts*> seen_init;
      m.init = r.init_of(file, cls, &seen_init);
      models.push_back(&cls);
      here.push_back(std::move(m));
    }
    for (auto& m : here) {
      m.declaration = declaration_for(file, *m.cls, models, m.forward);
      out.push_back(std::move(m));
    }
  }
  return out;
}

std::vector<JaxFunction> find_jax_functions(const SourceFacts& facts) {
  std::vector<JaxFunction> out;
  for (const auto& file : facts.files) {
    if (file.external || !file.error.empty()) continue;
    bool imports_jax = false;
    for (const auto& [name, target] : file.imports) {
      const std::string top = target.substr(0, target.find('.'));
      imports_jax = imports_jax || top == "jax" || top == "flax";
    }
    if (!imports_jax) continue;
    for (const auto& fn : file.functions)
      if (!fn.name.empty() && fn.name[0] != '_') out.push_back({file.module + ":" + fn.name, &file, &fn});
  }
  return out;
}

}  // namespace tvis::profiles
