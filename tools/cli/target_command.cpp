// tvis target add NAME --host H [--via a,b] --path P [--remote-tvis T]
// tvis target list | tvis target remove NAME      (remote/targets.h; docs/cli.md)
#include <CLI/CLI.hpp>

#include <cstdio>

#include "commands.h"
#include "tvis/remote/targets.h"

namespace tvis::cli {

namespace {

int fail(const std::string& why) {
  std::fprintf(stderr, "tvis target: %s\n", why.c_str());
  return 2;
}

struct AddArgs {
  std::string name, host, path, remote_tvis;
  std::vector<std::string> via;
};

int add_target(const AddArgs& a) {
  if (!remote::valid_target_name(a.name)) return fail("a target name is letters, digits, '.', '_' or '-': " + a.name);
  const std::string file = remote::targets_file();
  auto targets = remote::load_targets(file);
  if (!targets.ok) return fail(targets.error);
  remote::Target t{a.host, {}, a.path, a.remote_tvis};
  for (const auto& item : a.via) {
    size_t at = 0;
    while (at <= item.size()) {
      size_t end = item.find(',', at);
      if (end == std::string::npos) end = item.size();
      if (end > at) t.via.push_back(item.substr(at, end - at));
      at = end + 1;
    }
  }
  const std::string problem = remote::target_problem(t);
  if (!problem.empty()) return fail("target " + a.name + ": " + problem);
  const bool replaced = targets.value.count(a.name) != 0;
  targets.value[a.name] = t;
  auto saved = remote::save_targets(file, targets.value);
  if (!saved.ok) return fail(saved.error);
  std::printf("tvis target: %s %s in %s\n", replaced ? "replaced" : "added", a.name.c_str(), file.c_str());
  return 0;
}

int list_targets() {
  auto targets = remote::load_targets(remote::targets_file());
  if (!targets.ok) return fail(targets.error);
  for (const auto& [name, t] : targets.value) {
    std::string via;
    for (const auto& v : t.via) via += (via.empty() ? "" : ",") + v;
    std::printf("%s\t%s:%s", name.c_str(), t.host.c_str(), t.path.c_str());
    if (!via.empty()) std::printf("\tvia %s", via.c_str());
    if (!t.remote_tvis.empty()) std::printf("\tremote-tvis %s", t.remote_tvis.c_str());
    std::printf("\n");
  }
  return 0;
}

int remove_target(const std::string& name) {
  const std::string file = remote::targets_file();
  auto targets = remote::load_targets(file);
  if (!targets.ok) return fail(targets.error);
  if (!targets.value.erase(name)) return fail("no target named " + name + " in " + file);
  auto saved = remote::save_targets(file, targets.value);
  if (!saved.ok) return fail(saved.error);
  std::printf("tvis target: removed %s\n", name.c_str());
  return 0;
}

}  // namespace

void add_target_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("target", "Saved remote targets for tvis open NAME");
  cmd->require_subcommand(1);
  auto a = std::make_shared<AddArgs>();
  auto* add = cmd->add_subcommand("add", "Save (or replace) a target");
  add->add_option("NAME", a->name, "the target's name")->required();
  add->add_option("--host", a->host, "ssh destination or ~/.ssh/config alias")->required();
  add->add_option("--via", a->via, "jump hosts (repeatable or comma-separated)")->allow_extra_args(false);
  add->add_option("--path", a->path, "the runs folder on the host")->required();
  add->add_option("--remote-tvis", a->remote_tvis, "the tvis program on the host");
  add->callback([a] { set_exit_code(add_target(*a)); });
  cmd->add_subcommand("list", "List saved targets")->callback([] { set_exit_code(list_targets()); });
  auto name = std::make_shared<std::string>();
  auto* rm = cmd->add_subcommand("remove", "Forget a target");
  rm->add_option("NAME", *name, "the target's name")->required();
  rm->callback([name] { set_exit_code(remove_target(*name)); });
}

}  // namespace tvis::cli
