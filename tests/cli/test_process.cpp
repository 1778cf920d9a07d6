#include <catch2/catch.hpp>

#include <sys/wait.h>

#include "paths.h"
#include "process.h"
#include "tvis/process/spawn.h"
#include "tvis/process/wait.h"

using namespace tvis::cli;

TEST_CASE("file checks tell binaries, scripts and folders apart") {
  CHECK(is_file("/bin/sh"));
  CHECK(is_executable("/bin/sh"));
  CHECK(is_elf(std::string("/proc/self/exe")));
  CHECK_FALSE(is_file("/tmp"));
  CHECK_FALSE(is_executable("/nonexistent"));
  CHECK_FALSE(is_elf("/etc/hostname"));
}

TEST_CASE("wait_status and exit_like report a child's exit code") {
  tvis::process::SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "exit 5"};
  const tvis::process::Child child = tvis::process::spawn(o);
  REQUIRE(child.started());
  const int status = tvis::process::wait_status(child.pid);
  CHECK(WIFEXITED(status));
  CHECK(tvis::process::exit_like(status) == 5);
}

TEST_CASE("path helpers") {
  CHECK(parent_dir("a/b/c.py") == "a/b");
  CHECK(parent_dir("c.py") == ".");
  CHECK(parent_dir("/c.py") == "/");
  CHECK(absolute_path("/x/y") == "/x/y");
  CHECK(absolute_path("y").back() == 'y');
  CHECK(absolute_path("y")[0] == '/');
  CHECK(real_or_absolute("/nonexistent/z") == "/nonexistent/z");
  CHECK(!self_exe_dir().empty());
}
