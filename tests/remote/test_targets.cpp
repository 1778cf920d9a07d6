#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tvis/remote/ssh_session.h"
#include "tvis/remote/targets.h"

namespace fs = std::filesystem;
using namespace tvis::remote;

TEST_CASE("targets round-trip through TOML; bad files name the key", "[remote]") {
  std::string t = (fs::temp_directory_path() / "tvis-targets-XXXXXX").string();
  const fs::path dir = ::mkdtemp(t.data());
  const std::string file = (dir / "tvis" / "targets.toml").string();
  CHECK(load_targets(file).ok);  // absent: no targets
  Targets all;
  all["gpu"] = Target{"c42", {"bastion", "login"}, "~/proj/tvis_runs", "~/venv/bin/tvis"};
  all["lab"] = Target{"lab-host", {}, "/scratch/runs", ""};
  REQUIRE(save_targets(file, all).ok);
  auto back = load_targets(file);
  REQUIRE(back.ok);
  REQUIRE(back.value.size() == 2);
  CHECK(back.value["gpu"].via == std::vector<std::string>{"bastion", "login"});
  CHECK(back.value["gpu"].remote_tvis == "~/venv/bin/tvis");
  CHECK(back.value["lab"].path == "/scratch/runs");

  std::ofstream(file) << "[targets.x]\nhost = \"h\"\npath = \"p\"\nport = 22\n";
  auto unknown = load_targets(file);
  REQUIRE_FALSE(unknown.ok);
  CHECK(unknown.error.find("targets.x: unknown key 'port'") != std::string::npos);
  std::ofstream(file) << "[targets.x]\nhost = \"h\"\n";
  CHECK(load_targets(file).error.find("targets.x.path is missing") != std::string::npos);
  std::ofstream(file) << "[targets.x\n";
  CHECK(load_targets(file).error.find(file + ":1:") == 0);
  fs::remove_all(dir);
  CHECK(valid_target_name("gpu-1.a_b"));
  CHECK_FALSE(valid_target_name("host:path"));
  CHECK_FALSE(valid_target_name("a/b"));
}

TEST_CASE("the remote command quotes everything but a leading ~/", "[remote]") {
  SshTarget t;
  t.path = "~/proj/tvis runs";
  t.remote_tvis = "~/venv/bin/tvis";
  CHECK(remote_agent_command(t) == "~/'venv/bin/tvis' agent --stdio ~/'proj/tvis runs'");
  t.path = "/scratch/it's";
  t.remote_tvis = "tvis";
  CHECK(remote_agent_command(t) == "'tvis' agent --stdio '/scratch/it'\\''s'");
}
