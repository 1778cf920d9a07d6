// Freshness and the interpreter: file identities and their recheck (bytes
// decide, a touch does not), the interpreter pin with the real
// /usr/bin/python3 and a wrapper script that is edited after pinning, the
// interpreter settings ([tool] python_path of tensorviz.toml and of the user
// config, the remembered `python` of .tensorviz-choices.toml).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tvis/profiles/choices.h"
#include "tvis/profiles/config.h"
#include "tvis/profiles/file_identity.h"
#include "tvis/profiles/interpreter_pin.h"
#include "tvis/profiles/user_config.h"

using namespace tvis::profiles;
namespace fs = std::filesystem;

namespace {

std::string temp_dir() {
  char tmpl[] = "/tmp/tvis-freshness-XXXXXX";
  return mkdtemp(tmpl);
}

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

}  // namespace

TEST_CASE("a file identity changes with its bytes, its removal or its appearance; not with a touch") {
  const std::string dir = temp_dir(), file = dir + "/model.py";
  write(file, "x = 1\n");
  const FileIdentity then = identify_file(file, "source", "model.py");
  REQUIRE(then.present);
  CHECK(then.size == 6);
  CHECK(file_change(then).empty());
  // Same bytes, new mtime: still fresh.
  struct timespec times[2] = {{1, 0}, {1, 0}};
  REQUIRE(utimensat(AT_FDCWD, file.c_str(), times, 0) == 0);
  CHECK(file_change(then).empty());
  write(file, "x = 2\n");  // same size, other bytes
  CHECK(file_change(then) == "model.py changed");
  const Freshness f = recheck_files({then, identify_file(dir + "/other.py", "source", "other.py")});
  CHECK(f.checked);
  CHECK(f.stale);
  CHECK(f.reasons == std::vector<std::string>{"model.py changed"});
  fs::remove(file);
  CHECK(file_change(then) == "model.py was removed");
  const FileIdentity absent = identify_file(dir + "/tensorviz.toml", "config", "tensorviz.toml");
  CHECK_FALSE(absent.present);
  CHECK(file_change(absent).empty());
  write(dir + "/tensorviz.toml", "version = 1\n");
  CHECK(file_change(absent) == "tensorviz.toml appeared");
  CHECK(identity_from_json(identity_json(then)).xxh64 == then.xxh64);
  CHECK_FALSE(recheck_files({}).checked);
  fs::remove_all(dir);
}

TEST_CASE("the interpreter pin: the real python's version and torch; an edited wrapper is a change") {
  const InterpreterPin real = pin_interpreter("/usr/bin/python3", "--python");
  REQUIRE(real.error.empty());
  CHECK(real.version.rfind("3.", 0) == 0);
  CHECK(real.has_torch);
  CHECK(real.file.resolved.rfind("/usr/bin/python3", 0) == 0);
  CHECK(pin_change(real, "").empty());

  const std::string dir = temp_dir(), wrapper = dir + "/python";
  write(wrapper, "#!/bin/sh\nexec /usr/bin/python3 \"$@\"\n");
  chmod(wrapper.c_str(), 0755);
  const InterpreterPin pin = pin_interpreter(wrapper, "tensorviz.toml:2 [tool] python_path");
  REQUIRE(pin.error.empty());
  CHECK(pin.version == real.version);
  CHECK(pin_change(pin, "").empty());
  write(wrapper, "#!/bin/sh\n# edited\nexec /usr/bin/python3 \"$@\"\n");
  const std::string why = pin_change(pin, "(before the worker started)");
  CHECK(why.rfind("interpreter changed between plan and run: " + wrapper + ": ", 0) == 0);
  CHECK(why.find("(before the worker started)") != std::string::npos);

  const InterpreterPin missing = pin_interpreter(dir + "/nope", "--python");
  CHECK(missing.error == "--python " + dir + "/nope: no such executable");
  write(dir + "/not_python", "#!/bin/sh\nexit 3\n");
  chmod((dir + "/not_python").c_str(), 0755);
  CHECK(pin_interpreter(dir + "/not_python", "--python").error.find("did not run as a Python interpreter (exit 3)") !=
        std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("[tool] python_path in tensorviz.toml: made absolute, validated by field") {
  Config c = parse_config("version = 1\n[tool]\npython_path = \".venv/bin/python\"\n", "tensorviz.toml", "/ws");
  CHECK(c.valid());
  CHECK(c.python_path == "/ws/.venv/bin/python");
  CHECK(c.python_path_line == 3);
  c = parse_config("version = 1\n[tool]\npython_path = \"/opt/py/bin/python3\"\n", "tensorviz.toml", "/ws");
  CHECK(c.python_path == "/opt/py/bin/python3");
  c = parse_config("version = 1\n[tool]\npython_path = 3\n", "tensorviz.toml", "/ws");
  REQUIRE(c.problems.size() == 1);
  CHECK(c.problems[0].field == "tool.python_path");
  CHECK(c.python_path.empty());
  c = parse_config("version = 1\n[tool]\npythonpath = \"x\"\n", "tensorviz.toml", "/ws");
  REQUIRE(c.problems.size() == 1);
  CHECK(c.problems[0].field == "tool.pythonpath");
  CHECK(c.problems[0].message == "unknown key 'pythonpath' (known: python_path)");
}

TEST_CASE("the remembered python sits beside the remembered profiles; the user config's python_path") {
  const std::string dir = temp_dir();
  REQUIRE(remember_choice(dir, "m:A", "small").empty());
  REQUIRE(remember_python(dir, "/opt/py/bin/python3").empty());
  REQUIRE(remember_choice(dir, "m:B", "large").empty());  // keeps the python
  Choices c = load_choices(dir);
  CHECK(c.error.empty());
  CHECK(c.python == "/opt/py/bin/python3");
  CHECK(c.by_class.size() == 2);
  write(dir + "/" + kChoicesName, "python = 3\n");
  CHECK(load_choices(dir).error.find("python must be the path of an interpreter") != std::string::npos);

  write(dir + "/config.toml", "[tool]\npython_path = \"bin/python\"\n");
  UserConfig u = load_user_config(dir + "/config.toml");
  CHECK(u.error.empty());
  CHECK(u.python_path == dir + "/bin/python");
  write(dir + "/config.toml", "[tool]\npython = \"x\"\n");
  CHECK(load_user_config(dir + "/config.toml").error == dir + "/config.toml: unknown key 'tool.python' (known: python_path, trusted_workspaces)");
  CHECK(load_user_config(dir + "/absent.toml").python_path.empty());
  fs::remove_all(dir);
}

// Issue 29 item 10: a run file's evidence names the paths a recheck reads, so
// a recheck for an opened run reads only inside the workspace of what was
// opened (found from the location, not from the file) and the user config.
TEST_CASE("a recheck for an opened run reads only inside the workspace that holds it") {
  const std::string outside = temp_dir(), ws = temp_dir();
  write(ws + "/tensorviz.toml", "");
  fs::create_directories(ws + "/tvis_runs/20260101-000000_graph-Net");
  const std::string run = ws + "/tvis_runs/20260101-000000_graph-Net/run.tvis";
  write(run, "not read here");
  write(ws + "/model.py", "x = 1\n");
  write(outside + "/secret", "s3cret\n");
  std::vector<FileIdentity> evidence = {identify_file(ws + "/model.py", "source", "model.py"),
                                        identify_file(outside + "/secret", "interpreter", "interpreter " + outside + "/secret"),
                                        identify_file(outside + "/nope", "config", "nope")};
  // A link inside the workspace to a file outside it is outside.
  fs::create_symlink(outside + "/secret", ws + "/link.py");
  evidence.push_back(identify_file(ws + "/link.py", "source", "link.py"));
  // A FIFO where a source was: never opened for reading (a blocking open would hang here).
  write(ws + "/fifo.py", "y = 2\n");
  evidence.push_back(identify_file(ws + "/fifo.py", "source", "fifo.py"));
  fs::remove(ws + "/fifo.py");
  REQUIRE(mkfifo((ws + "/fifo.py").c_str(), 0600) == 0);
  // A file over the bound is not hashed.
  const std::string big = ws + "/big.bin";
  { std::ofstream(big, std::ios::binary) << "b"; }
  evidence.push_back(identify_file(big, "source", "big.bin"));
  fs::resize_file(big, kMaxRecheckBytes + 1);

  // Opened from "/" (no workspace there): the run's own workspace is the only root.
  const fs::path cwd = fs::current_path();
  fs::current_path("/");
  const RecheckScope scope = recheck_scope_for(run);
  REQUIRE(scope.roots == std::vector<std::string>{fs::canonical(ws).string()});
  write(outside + "/secret", "changed\n");  // outside: its change must not be observable
  write(outside + "/nope", "appeared\n");
  const Freshness f = recheck_files_within(evidence, scope);
  CHECK(f.checked);
  CHECK(f.stale);
  CHECK(f.reasons == std::vector<std::string>{"fifo.py was removed"});  // no longer a regular file
  const std::string out_of = ": outside the workspace " + scope.roots[0];
  REQUIRE(f.unchecked.size() == 4);
  CHECK(f.unchecked[0] == "interpreter " + outside + "/secret" + out_of);
  CHECK(f.unchecked[1] == "nope" + out_of);
  CHECK(f.unchecked[2] == "link.py" + out_of);
  CHECK(f.unchecked[3] == "big.bin: larger than 64 MiB");

  // The same evidence opened from a folder no workspace holds, from "/": nothing is read.
  const RecheckScope none = recheck_scope_for(outside + "/secret");
  CHECK(none.roots.empty());
  const Freshness g = recheck_files_within(evidence, none);
  CHECK_FALSE(g.checked);
  CHECK(g.reasons.empty());
  CHECK(g.why.find("no workspace") == 0);

  // Run from inside the workspace, a run kept elsewhere (tvis graph --out) is rechecked in it.
  fs::current_path(ws);
  const RecheckScope from_ws = recheck_scope_for(outside + "/secret");
  CHECK(from_ws.roots == std::vector<std::string>{fs::canonical(ws).string()});
  CHECK(recheck_files_within(evidence, from_ws).reasons == std::vector<std::string>{"fifo.py was removed"});
  fs::current_path(cwd);
  fs::remove_all(ws);
  fs::remove_all(outside);
}
