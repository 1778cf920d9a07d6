// spawn.h: what every child gets (the guarantees each of tvis's seven
// process sites relied on before they shared one helper).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "tvis/process/run.h"
#include "tvis/process/wait.h"

using namespace tvis::process;
namespace fs = std::filesystem;

namespace {

SpawnOptions piped(std::vector<std::string> argv) {
  SpawnOptions o;
  o.argv = std::move(argv);
  o.in = o.out = o.err = Stdio::Pipe;
  return o;
}

std::string temp_dir() {
  std::string t = "/tmp/tvis-process-XXXXXX";
  REQUIRE(mkdtemp(t.data()));
  return t;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("spawn: a program that cannot be started is an error with its errno, not an exit status", "[process]") {
  const Child c = spawn(piped({"/nonexistent/program", "x"}));
  CHECK_FALSE(c.started());
  CHECK(c.exec_errno == ENOENT);
  CHECK(c.error == "cannot start /nonexistent/program: " + std::string(std::strerror(ENOENT)));
  CHECK(c.in == -1);
  CHECK(c.out == -1);
  CHECK_FALSE(spawn(SpawnOptions{}).started());  // no argv
  SpawnOptions bad = piped({"/bin/true"});
  bad.keep_fd = 1;
  CHECK(spawn(bad).error.find("fd 1 cannot be passed on") != std::string::npos);
}

TEST_CASE("spawn: search_path false does not look argv[0] up in PATH", "[process]") {
  SpawnOptions o;
  o.argv = {"sh", "-c", "exit 4"};
  CHECK(run(o).exit_code == 4);
  o.search_path = false;  // "sh" is then a path relative to the working folder
  o.cwd = "/";
  const Result r = run(o);
  CHECK_FALSE(r.started);
  CHECK(r.exec_errno == ENOENT);
}

TEST_CASE("spawn: a working folder it cannot enter is exit status 126", "[process]") {
  SpawnOptions o;
  o.argv = {"/bin/true"};
  o.cwd = "/nonexistent/folder";
  const Result r = run(o);
  CHECK(r.started);
  CHECK(r.exit_code == 126);
}

TEST_CASE("spawn: the environment is changed in the child only", "[process]") {
  ::setenv("TVIS_PROCESS_TEST_KEPT", "kept", 1);
  ::setenv("TVIS_PROCESS_TEST_SET", "old", 1);
  SpawnOptions o = piped({"/bin/sh", "-c", "echo \"$TVIS_PROCESS_TEST_KEPT $TVIS_PROCESS_TEST_SET $TVIS_PROCESS_TEST_NEW\""});
  o.env = {{"TVIS_PROCESS_TEST_SET", "new"}, {"TVIS_PROCESS_TEST_NEW", "added"}};
  const Result r = run(o, Pump{"", 10'000, nullptr, nullptr});
  CHECK(r.out == "kept new added\n");
  CHECK(std::string(std::getenv("TVIS_PROCESS_TEST_SET")) == "old");
  CHECK(std::getenv("TVIS_PROCESS_TEST_NEW") == nullptr);
}

TEST_CASE("spawn: the child sees none of this process's pipe ends, only keep_fd", "[process]") {
  int go[2];
  REQUIRE(::pipe2(go, O_CLOEXEC) == 0);
  // ls lists the shell's descriptors ($$), not its own.
  SpawnOptions o = piped({"/bin/sh", "-c", "ls /proc/$$/fd; read line <&" + std::to_string(go[0]) + "; echo \"got $line\""});
  o.keep_fd = go[0];
  Child c = spawn(o);
  REQUIRE(c.started());
  ::close(go[0]);
  REQUIRE(::write(go[1], "file\n", 5) == 5);
  ::close(go[1]);
  const int mine[3] = {c.in, c.out, c.err};
  const Result r = pump(c, Pump{"", 10'000, nullptr, nullptr});
  CHECK(r.exit_code == 0);
  std::istringstream fds(r.out);
  std::set<int> seen;
  for (std::string l; std::getline(fds, l) && l.rfind("got", 0) != 0;) seen.insert(std::atoi(l.c_str()));
  for (int fd : mine) CHECK(seen.count(fd) == 0);
  CHECK(seen.count(go[0]) == 1);
  CHECK(r.out.find("got file\n") != std::string::npos);
}

TEST_CASE("spawn: the child starts with no signal blocked and SIGPIPE at its default", "[process]") {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGINT);
  ::pthread_sigmask(SIG_BLOCK, &block, &old);  // as tvis open waits for its stop signals
  struct sigaction ignore {}, old_pipe {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &old_pipe);
  const Result r = run(piped({"/bin/sh", "-c", "grep -E '^Sig(Blk|Ign)' /proc/self/status"}), Pump{"", 10'000, nullptr, nullptr});
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ::sigaction(SIGPIPE, &old_pipe, nullptr);
  CHECK(r.out.find("SigBlk:\t0000000000000000") != std::string::npos);
  // SigIgn's bit for SIGPIPE (13) is 0x1000.
  const size_t at = r.out.find("SigIgn:\t");
  REQUIRE(at != std::string::npos);
  CHECK((std::stoull(r.out.substr(at + 8, 16), nullptr, 16) & 0x1000) == 0);
}

TEST_CASE("spawn: output_file takes stdout and stderr, appended, mode 0600", "[process]") {
  const std::string dir = temp_dir();
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "echo out; echo err >&2"};
  o.in = Stdio::Null;
  o.output_file = dir + "/log";
  CHECK(run(o).exit_code == 0);
  CHECK(run(o).exit_code == 0);
  CHECK(read_file(o.output_file) == "out\nerr\nout\nerr\n");
  struct stat st {};
  REQUIRE(::stat(o.output_file.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  o.output_file = dir + "/missing/log";
  CHECK(run(o).error.find("cannot open " + dir + "/missing/log") == 0);
  fs::remove_all(dir);
}

TEST_CASE("spawn: a detached child is nobody's to reap; its exec failure is still reported", "[process]") {
  const std::string dir = temp_dir();
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "echo ran > " + dir + "/mark"};
  o.detached = true;
  const Child c = spawn(o);
  REQUIRE(c.started());
  CHECK(c.pid == 0);
  for (int i = 0; i < 200 && read_file(dir + "/mark").empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(read_file(dir + "/mark") == "ran\n");
  o.argv = {"/nonexistent/browser"};
  CHECK(spawn(o).exec_errno == ENOENT);
  fs::remove_all(dir);
}

#ifdef __linux__
TEST_CASE("spawn: die_with_parent kills the child when the thread that spawned it ends", "[process]") {
  pid_t pid = -1;
  std::thread([&] {
    SpawnOptions o;
    o.argv = {"/bin/sleep", "30"};
    o.die_with_parent = true;
    pid = spawn(o).pid;
  }).join();
  REQUIRE(pid > 0);
  int status = 0;
  REQUIRE(wait_within(pid, 5000, &status) == Waited::Ended);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
}
#endif

TEST_CASE("spawn: own_group puts the child in a process group of its own", "[process]") {
  SpawnOptions o = piped({"/bin/sh", "-c", "ps -o pgid= -p $$"});
  o.own_group = true;
  Child c = spawn(o);
  REQUIRE(c.started());
  const pid_t pid = c.pid;
  const Result r = pump(c, Pump{"", 10'000, nullptr, nullptr});
  CHECK(std::atoi(r.out.c_str()) == pid);
}
