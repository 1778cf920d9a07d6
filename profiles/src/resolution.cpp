#include "tvis/profiles/resolution.h"

namespace tvis::profiles {

namespace {

Resolution refused(const std::string& why, std::vector<std::string> candidates = {}) {
  Resolution r;
  r.reason = why;
  r.candidates = std::move(candidates);
  return r;
}

Resolution use(const std::string& profile, bool remembered = false) {
  Resolution r;
  r.status = Resolved::profile;
  r.profile = profile;
  r.remembered = remembered;
  return r;
}

std::string listed(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Why `p` cannot run as a model capture, or "".
std::string unusable(const Profile& p) {
  if (!p.valid()) return "profile " + p.name + " is invalid: " + p.problems.front().text();
  if (p.kind == "script") return "profile " + p.name + " is a script profile; tvis check and tvis graph run model profiles only";
  return "";
}

const ModelClass* find_class(const std::vector<ModelClass>& classes, const std::string& ref) {
  for (const auto& c : classes)
    if (c.ref == ref) return &c;
  return nullptr;
}

}  // namespace

const char* resolved_name(Resolved r) {
  switch (r) {
    case Resolved::profile: return "profile";
    case Resolved::choose: return "choose";
    case Resolved::declaration: return "declaration";
    case Resolved::automatic: return "automatic";
    default: return "refused";
  }
}

Resolution resolve(const Request& r, const Config& config, const std::vector<ModelClass>& classes,
                   const Choices& choices) {
  if (!config.valid())
    return refused(config.path + " is invalid (" + std::to_string(config.all_problems().size()) +
                   " problems); fix it first (tvis profiles lists them)");
  if (!r.profile.empty()) {
    const Profile* p = config.find(r.profile);
    if (!p) {
      std::vector<std::string> names;
      for (const auto& q : config.profiles) names.push_back(q.name);
      return refused("no profile " + r.profile + " in " + (config.present ? config.path : "the workspace (no tensorviz.toml)") +
                         (names.empty() ? "" : " (profiles: " + listed(names) + ")"),
                     names);
    }
    if (auto why = unusable(*p); !why.empty()) return refused(why);
    if (!r.class_ref.empty() && p->model != r.class_ref)
      return refused("profile " + p->name + " is for " + p->model + ", not " + r.class_ref);
    return use(p->name);
  }
  std::vector<std::string> matching;
  for (const auto& p : config.profiles)
    if (p.kind == "model" && p.model == r.class_ref) matching.push_back(p.name);
  if (matching.size() == 1) {
    if (auto why = unusable(*config.find(matching[0])); !why.empty()) return refused(why);
    return use(matching[0]);
  }
  if (matching.size() > 1) {
    if (!choices.error.empty()) return refused(choices.error, matching);
    auto it = choices.by_class.find(r.class_ref);
    if (it == choices.by_class.end()) {
      Resolution c;
      c.status = Resolved::choose;
      c.candidates = matching;
      c.reason = std::to_string(matching.size()) + " profiles match " + r.class_ref + ": " + listed(matching) +
                 "; choose one with --profile NAME";
      return c;
    }
    for (const auto& m : matching)
      if (m == it->second) {
        if (auto why = unusable(*config.find(m)); !why.empty()) return refused(why, matching);
        return use(m, true);
      }
    return refused("the remembered choice " + it->second + " for " + r.class_ref +
                       " is no longer one of its profiles (" + listed(matching) + "); choose with --profile NAME",
                   matching);
  }
  const ModelClass* cls = find_class(classes, r.class_ref);
  if (!cls) return refused("no model class " + r.class_ref + " found in the workspace's sources");
  if (!cls->declaration.error.empty())
    return refused(cls->declaration.error + " (add a profile to tensorviz.toml)");
  Resolution out;
  if (cls->declaration.ok) {
    out.status = Resolved::declaration;
    out.reason = cls->declaration.spec() + " (line " + std::to_string(cls->declaration.lines.front()) + ")";
  } else {
    out.status = Resolved::automatic;
    out.reason = "no profile or declaration: one example from the constructed model (tvis check)";
  }
  return out;
}

Resolution resolve_pick(const Request& r, const std::string& picked, const Config& config,
                        const std::vector<ModelClass>& classes, const std::string& root) {
  if (picked.empty()) return refused("cancelled: no profile was chosen for " + r.class_ref);
  const Resolution again = resolve(r, config, classes, Choices{});
  if (again.status == Resolved::refused) return again;
  bool still = false;
  for (const auto& c : again.candidates) still = still || c == picked;
  if (again.status == Resolved::profile) still = again.profile == picked;
  if (!still) return refused("profile " + picked + " no longer matches " + r.class_ref, again.candidates);
  if (auto why = unusable(*config.find(picked)); !why.empty()) return refused(why);
  if (auto err = remember_choice(root, r.class_ref, picked); !err.empty()) return refused(err);
  return use(picked, true);
}

}  // namespace tvis::profiles
