// interpreter_resolver.cpp: resolve_interpreter() (interpreter_resolver.h).
#include "interpreter_resolver.h"

#include <utility>
#include <vector>

#include "tvis/profiles/choices.h"
#include "tvis/profiles/config.h"
#include "tvis/profiles/user_config.h"
#include "tvis/profiles/workspace.h"
#include "paths.h"
#include "process.h"

namespace tvis::cli {

namespace {

struct Setting {
  std::string path, origin;
};

// The explicit settings in resolution order, or "" + `error` when one of their files is unusable.
// --python first, always; a workspace's own settings (they name a program to run) only when the
// user config trusts that workspace, else each is named in `ignored`; then the user config.
std::vector<Setting> explicit_settings(const InterpreterRequest& r, std::string* error,
                                       std::vector<std::string>* ignored) {
  std::vector<Setting> out;
  // A relative --python path names a file from the directory tvis was started in (the probe and
  // the runner start elsewhere); made absolute without resolving links (a venv's python is a link
  // whose target is another environment). A bare name stays a PATH lookup.
  if (!r.explicit_python.empty()) {
    const bool relative_path = r.explicit_python[0] != '/' && r.explicit_python.find('/') != std::string::npos;
    out.push_back({relative_path ? absolute_path(r.explicit_python) : r.explicit_python, "--python"});
  }
  const profiles::UserConfig u = profiles::load_user_config();
  if (!u.error.empty()) {
    *error = u.error;
    return {};
  }
  std::vector<Setting> workspace;
  if (!r.workspace_root.empty()) {
    const profiles::Choices c = profiles::load_choices(r.workspace_root);
    if (!c.error.empty()) {
      *error = c.error;
      return {};
    }
    if (!c.python.empty())
      workspace.push_back({c.python[0] == '/' ? c.python : r.workspace_root + "/" + c.python,
                           "the remembered choice (" + r.workspace_root + "/" + profiles::kChoicesName + " python)"});
    const std::string path = r.workspace_root + "/" + profiles::kConfigName;
    std::string why;
    if (profiles::config_state(path, &why) == profiles::ConfigState::file) {
      const profiles::Config config = profiles::load_config(path, r.workspace_root);
      for (const auto& p : config.problems)
        if (p.field.rfind("tool", 0) == 0) {
          *error = p.text();
          return {};
        }
      if (!config.python_path.empty())
        workspace.push_back(
            {config.python_path, path + ":" + std::to_string(config.python_path_line) + " [tool] python_path"});
    }
  }
  if (!workspace.empty()) {
    if (profiles::workspace_trusted(u, r.workspace_root)) {
      out.insert(out.end(), workspace.begin(), workspace.end());
    } else if (ignored) {
      for (const auto& s : workspace)
        ignored->push_back(s.origin + " " + s.path + ": not run, the workspace is not trusted (add it to " +
                           u.path + " [tool] trusted_workspaces, or pass --python)");
    }
  }
  if (!u.python_path.empty()) out.push_back({u.python_path, u.path + " [tool] python_path"});
  return out;
}

}  // namespace

ResolvedInterpreter resolve_interpreter(const InterpreterRequest& r, const PythonSearch& search) {
  ResolvedInterpreter out;
  const std::vector<Setting> settings = explicit_settings(r, &out.error, &out.ignored);
  if (!out.error.empty()) return out;
  if (!settings.empty()) {
    const Setting& s = settings.front();
    out.pin = profiles::pin_interpreter(s.path, s.origin);
    if (!out.pin.error.empty()) {
      out.error = out.pin.error + "; tvis does not switch to another interpreter" +
                  (s.origin == "--python" ? "" : " (fix or remove that setting)");
    } else if (r.need_torch && !out.pin.has_torch) {
      out.error = s.origin + " " + s.path + " (Python " + out.pin.version +
                  ") cannot import torch; tvis does not switch to another interpreter";
    }
    return out;
  }
  // Each candidate is probed once, by its pin (-I, cwd /, under kProbeLimitMs: interpreter_pin.h). One that
  // does not answer in time refuses the request: the next candidate would be a silent switch of environments.
  for (const auto& c : python_candidates(search)) {
    if (!is_executable(c)) continue;
    profiles::InterpreterPin pin = profiles::pin_interpreter(c, "discovery");
    if (pin.timed_out) {
      out.error = pin.error + "; pass --python PATH or set [tool] python_path";
      return out;
    }
    if (pin.error.empty() && (!r.need_torch || pin.has_torch)) {
      out.pin = std::move(pin);
      return out;
    }
  }
  out.error = r.need_torch ? "no python3 with torch found on PATH; pass --python PATH or set [tool] python_path"
                           : "no python3 found on PATH; pass --python PATH";
  return out;
}

std::string likely_interpreter(const InterpreterRequest& r, const PythonSearch& search) {
  std::string error;
  const std::vector<Setting> settings = explicit_settings(r, &error, nullptr);
  if (!error.empty()) return "";
  if (!settings.empty()) return settings.front().path;
  return likely_python("", search);
}

}  // namespace tvis::cli
