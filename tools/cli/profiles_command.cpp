// tvis profiles [--workspace DIR] [--python PATH] [--json]   (docs/profiles.md)
// Lists every profile of tensorviz.toml and every model class of the
// workspace, validates the whole file, prints what each request resolves
// to. Exit 0 when the configuration is valid (or absent), 2 when not.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "python_discovery.h"
#include "tvis/profiles/catalog.h"

namespace tvis::cli {

namespace {

struct ProfilesArgs {
  std::string workspace, python;
  bool json = false;
};

int run_profiles(const ProfilesArgs& a) {
  const profiles::Workspace w = profiles::find_workspace(a.workspace, std::filesystem::current_path().string());
  if (!w.error.empty()) {
    std::fprintf(stderr, "tvis profiles: %s\n", w.error.c_str());
    return 2;
  }
  // Reading sources needs no torch: the interpreter tvis run would most likely use, found without running it.
  const std::string python = !a.python.empty() ? a.python : likely_python("", PythonSearch::from_environment());
  const profiles::Catalog c = profiles::build_catalog(w, python);
  if (a.json) {
    std::printf("%s\n", profiles::catalog_json(c).dump(2).c_str());
  } else {
    std::fputs(profiles::catalog_text(c).c_str(), stdout);
  }
  if (c.exit_code() != 0)
    std::fprintf(stderr, "tvis profiles: %s is invalid (%zu problems)\n", w.config_path.c_str(), c.config.all_problems().size());
  return c.exit_code();
}

}  // namespace

void add_profiles_command(CLI::App& app) {
  auto a = std::make_shared<ProfilesArgs>();
  auto* cmd = app.add_subcommand("profiles", "List and validate model profiles (tensorviz.toml) and model classes");
  cmd->add_option("--workspace", a->workspace, "the workspace root (default: found upward from the current folder)");
  cmd->add_option("--python", a->python, "the interpreter whose ast reads the sources");
  cmd->add_flag("--json", a->json, "one JSON object (docs/profiles.md)");
  cmd->callback([a] { set_exit_code(run_profiles(*a)); });
}

}  // namespace tvis::cli
