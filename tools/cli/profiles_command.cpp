// tvis profiles [--workspace DIR] [--python PATH] [--json]   (docs/profiles.md)
// Lists every profile of tensorviz.toml and every model class of the
// workspace, validates the whole file, prints what each request resolves
// to. Exit 0 when the configuration is valid (or absent), 2 when not.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "commands.h"
#include "profile_commands.h"
#include "tvis/json/safe.h"

namespace tvis::cli {

namespace {

struct ProfilesArgs {
  std::string workspace, python;
  bool json = false;
};

int run_profiles(const ProfilesArgs& a) {
  const CommandOutcome o = profiles_outcome(a.workspace, a.python);
  if (a.json) std::printf("%s\n", tvis::safe_json::text(o.json, 2).c_str());
  else std::fputs(o.text.c_str(), stdout);
  for (const auto& line : o.problems) std::fprintf(stderr, "tvis profiles: %s\n", line.c_str());
  return o.exit_code;
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
