#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tvis/remote/ssh_session.h"
#include "tvis/remote/store_opener.h"
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

namespace {

/// What `shell -c 'printf "%s\n" WORD'` prints (ssh hands the remote command to the login shell as -c).
std::string echoed_by(const std::string& shell, const std::string& word) {
  const fs::path dir = fs::temp_directory_path();
  const std::string cmd = (dir / ("tvis-quote-cmd-" + std::to_string(::getpid()))).string();
  const std::string out = (dir / ("tvis-quote-out-" + std::to_string(::getpid()))).string();
  std::ofstream(cmd, std::ios::binary) << "printf '%s\\n' " << remote_shell_word(word);
  const std::string line = shell + " -c \"$(cat '" + cmd + "')\" > '" + out + "' 2>&1";
  const int rc = std::system(line.c_str());
  std::ifstream in(out, std::ios::binary);
  std::string got((std::istreambuf_iterator<char>(in)), {});
  fs::remove(cmd);
  fs::remove(out);
  if (rc != 0) return "exit " + std::to_string(rc) + ": " + got;
  if (!got.empty() && got.back() == '\n') got.pop_back();
  return got;
}

}  // namespace

TEST_CASE("the remote path reads back the same in sh, csh and fish login shells", "[remote]") {
  const std::vector<std::string> words = {"/scratch/it's",  "a\\b",       "a\\\\b",     "x'\\'y",      "\\",        "'",
                                          "$HOME/runs",     "`id`",       "$(id)",      "a b;c|d&e",   "!x !! ^y",  "*?[a]",
                                          "{a,b}",          "%self",      "(x) <y> #z", "\"dq\"",      "t\tab",     "\xc3\xa9t\xc3\xa9",
                                          "--help",         "=x",         "a'b\\c'd",   "~user/x",     ""};
  // The quoting itself: plain characters in single quotes, ' and \ outside them.
  CHECK(remote_shell_word("a\\b") == "'a'\\\\'b'");
  CHECK(remote_shell_word("it's") == "'it'\\''s'");
  CHECK(remote_shell_word("") == "''");
  CHECK(remote_shell_word("a!b") == "'a'\\!'b'");
  CHECK(remote_shell_word("~/a\\b") == "~/'a'\\\\'b'");
  // sh, bash, fish and tcsh are always there (tools/packages.txt installs fish
  // and tcsh for this test); csh and zsh are tried where installed.
  for (const std::string shell : {"/bin/sh", "/bin/bash", "/usr/bin/fish", "/usr/bin/tcsh"}) {
    INFO(shell << " is missing: tools/bootstrap installs it (tools/packages.txt)");
    REQUIRE(::access(shell.c_str(), X_OK) == 0);
  }
  for (const std::string shell : {"/bin/sh", "/bin/bash", "/usr/bin/fish", "/usr/bin/tcsh", "/bin/csh", "/usr/bin/zsh"}) {
    if (::access(shell.c_str(), X_OK) != 0) continue;
    for (const auto& w : words) {
      INFO(shell << " given " << remote_shell_word(w));
      CHECK(echoed_by(shell, w) == w);
    }
  }
  CHECK(remote_word_problem("a\nb").find("line break") != std::string::npos);
  CHECK(remote_word_problem("a\rb") != "");
  CHECK(remote_word_problem("/ok path").empty());
}

TEST_CASE("a host starting with '-' never reaches ssh as an option", "[remote]") {
  CHECK(ssh_host_problem("-oProxyCommand=touch /tmp/x").find("starts with '-'") != std::string::npos);
  CHECK(ssh_host_problem("").find("empty") != std::string::npos);
  CHECK_FALSE(ssh_host_problem("a b").empty());
  CHECK(ssh_host_problem("user@c42.example").empty());
  CHECK(ssh_host_problem("[::1]").empty());
  // HOST:PATH with such a host: refused before any ssh runs, saying why.
  const StoreTarget t = classify_store_argument("-oProxyCommand=sh:runs");
  CHECK(t.problem.find("starts with '-'") != std::string::npos);
  CHECK(classify_store_argument("host:/runs").problem.empty());
  CHECK(classify_store_argument("host:/a\nb").problem.find("line break") != std::string::npos);
  // A session over one is refused too (a hop as well), without running ssh.
  SshTarget st;
  st.host = "-oProxyCommand=touch /tmp/tvis-should-not-exist";
  st.path = "/runs";
  st.ssh = "/bin/false";
  SshSession bad(st);
  auto c = bad.connect();
  REQUIRE_FALSE(c.ok);
  CHECK(c.error.find("starts with '-'") != std::string::npos);
  st.host = "ok-host";
  st.via = {"-J-evil"};
  SshSession bad_hop(st);
  CHECK(bad_hop.connect().error.find("starts with '-'") != std::string::npos);
  // The host always follows "--" on ssh's command line.
  st.via.clear();
  SshSession good(st);
  const auto argv = good.agent_argv();
  const auto host_at = std::find(argv.begin(), argv.end(), "ok-host");
  REQUIRE(host_at != argv.end());
  CHECK(*(host_at - 1) == "--");
  // Saved targets: refused in the file and by target_problem.
  std::string tmpl = (fs::temp_directory_path() / "tvis-targets-XXXXXX").string();
  const fs::path dir = ::mkdtemp(tmpl.data());
  const std::string file = (dir / "targets.toml").string();
  std::ofstream(file) << "[targets.x]\nhost = \"-oProxyCommand=id\"\npath = \"p\"\n";
  CHECK(load_targets(file).error.find("targets.x.host: '-oProxyCommand=id' starts with '-'") != std::string::npos);
  std::ofstream(file) << "[targets.x]\nhost = \"h\"\nvia = [\"-x\"]\npath = \"p\"\n";
  CHECK(load_targets(file).error.find("targets.x.via:") != std::string::npos);
  fs::remove_all(dir);
  CHECK(target_problem(Target{"h", {}, "p", ""}).empty());
  CHECK_FALSE(target_problem(Target{"-h", {}, "p", ""}).empty());
}
