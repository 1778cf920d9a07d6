// choices.h: what a front end remembered for this workspace, kept beside the
// config in .tensorviz-choices.toml, never in tensorviz.toml itself: the
// profile per class when several match it (the picker's answer) and the
// interpreter chosen for the workspace (the first thing the interpreter
// resolver asks, interpreter_resolver.h):
//   python = "/home/me/venvs/torch/bin/python"
//   [choices]
//   "audit_models:GoodNet" = "audit_small"
// A malformed file is an error naming it, never "no choice".
#pragma once

#include <map>
#include <string>

namespace tvis::profiles {

constexpr const char* kChoicesName = ".tensorviz-choices.toml";

struct Choices {
  std::map<std::string, std::string> by_class;  // "module:Class" → profile name
  std::string python;                           // the remembered interpreter ("" = none)
  std::string error;                            // "" when read (or absent)
};

Choices load_choices(const std::string& workspace_root);
/// Records `profile` for `class_ref`; "" on success, else why not (one line).
std::string remember_choice(const std::string& workspace_root, const std::string& class_ref, const std::string& profile);
/// Records `python` as the workspace's interpreter ("" forgets it); "" on success, else why not.
std::string remember_python(const std::string& workspace_root, const std::string& python);

}  // namespace tvis::profiles
