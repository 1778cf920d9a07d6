// run.h: the one poll pump. Its limit and cancel hold whatever the child does
// with its pipes (issue 29 item 3), over the child's whole process group.
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

#include "tvis/process/run.h"
#include "tvis/process/wait.h"

using namespace tvis::process;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

SpawnOptions piped(std::vector<std::string> argv, bool group = true) {
  SpawnOptions o;
  o.argv = std::move(argv);
  o.in = o.out = o.err = Stdio::Pipe;
  o.own_group = group;
  return o;
}

Pump limit(int64_t ms) {
  Pump p;
  p.limit_ms = ms;
  return p;
}

/// Running: a process that exists and is no zombie (a killed orphan waits for init to reap it).
bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] != 'Z';
}

}  // namespace

TEST_CASE("run: stdin written, stdout and stderr collected, the exit code", "[process]") {
  Pump p = limit(10'000);
  p.input = std::string(1 << 20, 'x');  // more than a pipe holds: written as the child reads
  const Result r = run(piped({"/bin/sh", "-c", "wc -c; echo done >&2; exit 3"}), p);
  CHECK(r.started);
  CHECK(r.exit_code == 3);
  CHECK(std::atol(r.out.c_str()) == 1 << 20);
  CHECK(r.err == "done\n");
  CHECK_FALSE(r.timed_out);
}

TEST_CASE("run: closing every pipe and sleeping does not escape the limit", "[process][hostile]") {
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = run(piped({"/bin/sh", "-c", "exec 0<&- 1>&- 2>&-; sleep 30"}), limit(500));
  CHECK(r.timed_out);
  CHECK(r.exit_code == -1);
  CHECK(seconds_since(t0) < 5);
}

TEST_CASE("run: a child that never reads its stdin does not escape the limit", "[process][hostile]") {
  Pump p = limit(500);
  p.input = std::string(4 << 20, 'x');
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = run(piped({"/bin/sleep", "30"}), p);
  CHECK(r.timed_out);
  CHECK(seconds_since(t0) < 5);
}

TEST_CASE("run: at the limit the whole group is killed, what the child started included", "[process][hostile]") {
  const auto t0 = std::chrono::steady_clock::now();
  Pump p = limit(1000);
  pid_t grandchild = 0;
  p.on_data = [&](Channel ch, std::string_view chunk, Deadline&) {
    if (ch == Channel::Out) grandchild = std::atoi(std::string(chunk).c_str());
  };
  const Result r = run(piped({"/bin/sh", "-c", "sleep 30 >/dev/null 2>&1 & echo $!; sleep 30"}), p);
  CHECK(r.timed_out);
  REQUIRE(grandchild > 0);
  for (int i = 0; i < 100 && alive(grandchild); ++i) usleep(10'000);
  CHECK_FALSE(alive(grandchild));
  CHECK(seconds_since(t0) < 5);
}

TEST_CASE("run: an ended child is reaped at once though a descendant holds its pipes", "[process][hostile]") {
  // The descendant in the child's group is killed with it; one in a session of its own (setsid) is
  // given 500 ms, then the pump stops reading.
  for (const char* script : {"sleep 30 & exit 2", "setsid sleep 30 & exit 2"}) {
    const auto t0 = std::chrono::steady_clock::now();
    const Result r = run(piped({"/bin/sh", "-c", script}), limit(20'000));
    CHECK(r.exit_code == 2);
    CHECK_FALSE(r.timed_out);
    CHECK(seconds_since(t0) < 5);
  }
}

TEST_CASE("run: the protocol pipe is the child's fd 3, apart from stdout", "[process]") {
  SpawnOptions o = piped({"/bin/sh", "-c", "echo forged; echo line >&3"});
  o.protocol_fd = true;
  std::string out, err, protocol;
  Pump p = limit(10'000);
  p.on_data = [&](Channel ch, std::string_view chunk, Deadline&) {
    (ch == Channel::Protocol ? protocol : ch == Channel::Out ? out : err).append(chunk);
  };
  const Result r = run(o, p);
  CHECK(r.exit_code == 0);
  CHECK(out == "forged\n");
  CHECK(protocol == "line\n");
  CHECK(err.empty());
  CHECK(r.out.empty());  // handed to on_data, not collected
}

TEST_CASE("run: a data callback may move the deadline", "[process]") {
  // The first line restarts the limit at 300 ms: the 30 s sleep after it is killed then.
  Pump p = limit(20'000);
  p.on_data = [](Channel, std::string_view, Deadline& d) { d.restart(300); };
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = run(piped({"/bin/sh", "-c", "echo ready; sleep 30"}), p);
  CHECK(r.timed_out);
  CHECK(seconds_since(t0) < 5);
}

TEST_CASE("run: cancel kills the child at once, whatever its pipes", "[process]") {
  const auto t0 = std::chrono::steady_clock::now();
  Pump p = limit(20'000);
  p.cancelled = [&] { return seconds_since(t0) > 0.3; };
  const Result r = run(piped({"/bin/sh", "-c", "exec 1>&- 2>&-; sleep 30"}), p);
  CHECK(r.cancelled);
  CHECK_FALSE(r.timed_out);
  CHECK(seconds_since(t0) < 3);
}

TEST_CASE("run: with nothing to pump and no limit, it waits for the end", "[process]") {
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "exit 7"};
  o.out = o.err = Stdio::Null;
  const Result r = run(o);
  CHECK(r.exit_code == 7);
  CHECK(exit_code(r.status) == 7);
  o.argv = {"/bin/sh", "-c", "kill -9 $$"};
  CHECK(run(o).exit_code == -1);
}

TEST_CASE("wait_within: a running child is left running; an ended one reaped once", "[process]") {
  SpawnOptions o;
  o.argv = {"/bin/sleep", "30"};
  o.own_group = true;
  const Child c = spawn(o);
  REQUIRE(c.started());
  int status = 0;
  CHECK(wait_within(c.pid, 50, &status) == Waited::Running);
  signal_child(c.pid, true, SIGTERM);
  REQUIRE(wait_within(c.pid, 5000, &status) == Waited::Ended);
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(wait_within(c.pid, 0, &status) == Waited::NotOurs);
}
