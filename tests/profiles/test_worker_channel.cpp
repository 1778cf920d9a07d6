// Issue 29 items 3, 12 and 13 (the log): the capture worker's process and protocol.
//   - item 3: a worker that closes stdout, stderr and its protocol pipe and sleeps used to end the
//     read loop, and waitpid then waited forever (SIGTERM no longer cancelled). The deadline holds
//     now whatever the child does; the probe children (run_child) have a limit too.
//   - item 12: the protocol has its own pipe (the worker's fd 3): lines the model's code prints on
//     stdout go to the log, never into the result; and every field of a line is type-checked.
//   - item 13: the log is opened 0600 and never through a symlink.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "child_process.h"
#include "worker_lines.h"
#include "worker_process.h"

using namespace tvis::profiles;
using namespace tvis::profiles::detail;
namespace fs = std::filesystem;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string temp_dir() {
  std::string t = "/tmp/tvis-worker-channel-XXXXXX";
  REQUIRE(mkdtemp(t.data()));
  return t;
}

}  // namespace

TEST_CASE("worker: closing every pipe and sleeping does not escape the deadline", "[worker][hostile]") {
  WorkerDeadlines d;
  d.startup_ms = 600;
  const auto t0 = std::chrono::steady_clock::now();
  const WorkerProcessResult r =
      run_worker_process({"/bin/sh", "-c", "exec 0<&- 1>&- 2>&- 3>&-; sleep 30"}, "", "/", "", d,
                         [](const std::string&) { return false; });
  CHECK(r.started);
  CHECK(r.timed_out);
  CHECK(r.startup_timed_out);
  CHECK(seconds_since(t0) < 5);
}

TEST_CASE("worker: an ordinary end is reaped at once, the lines read from fd 3 only", "[worker][hostile]") {
  const std::string dir = temp_dir();
  const std::string log = dir + "/worker.log";
  std::vector<std::string> lines;
  const auto t0 = std::chrono::steady_clock::now();
  // The forged result goes to stdout (what a model's print does); the protocol to fd 3.
  const WorkerProcessResult r = run_worker_process(
      {"/bin/sh", "-c",
       "echo '{\"t\":\"result\",\"ok\":true}'; echo '{\"t\":\"ready\"}' >&3; "
       "echo '{\"t\":\"result\",\"ok\":false,\"stage\":\"forward\"}' >&3; echo trace >&2; exit 3"},
      "", "/", log, WorkerDeadlines{}, [&](const std::string& l) {
        lines.push_back(l);
        return l.find("ready") != std::string::npos;
      });
  CHECK(seconds_since(t0) < 5);
  CHECK_FALSE(r.timed_out);
  CHECK(r.exit_code == 3);
  REQUIRE(lines.size() == 2);
  CHECK(lines[1] == R"({"t":"result","ok":false,"stage":"forward"})");
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str().find(R"({"t":"result","ok":true})") != std::string::npos);  // the forgery is only in the log
  CHECK(text.str().find("trace") != std::string::npos);
  struct stat st {};
  REQUIRE(stat(log.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  fs::remove_all(dir);
}

TEST_CASE("probe children: a limit, whatever the child does with its pipes", "[worker][hostile]") {
  const auto t0 = std::chrono::steady_clock::now();
  const tvis::process::Result r = run_child({"/bin/sh", "-c", "exec 1>&- 2>&-; sleep 30"}, "", "/", 500);
  CHECK(r.timed_out);
  CHECK(seconds_since(t0) < 5);
  const tvis::process::Result ok = run_child({"/bin/sh", "-c", "cat; echo done >&2"}, "in", "/", 5000);
  CHECK_FALSE(ok.timed_out);
  CHECK(ok.out == "in");
  CHECK(ok.err == "done\n");
  CHECK(ok.exit_code == 0);
}

TEST_CASE("the worker log is never opened through a link", "[worker][hostile]") {
  const std::string dir = temp_dir();
  fs::create_symlink(dir + "/target", dir + "/check.log");
  errno = 0;
  CHECK(open_private_log(dir + "/check.log") == nullptr);
  CHECK_FALSE(fs::exists(dir + "/target"));
  FILE* f = open_private_log(dir + "/fresh.log");
  REQUIRE(f);
  std::fclose(f);
  fs::remove_all(dir);
}

TEST_CASE("worker lines: every field type-checked, nothing throws", "[worker][hostile]") {
  Capture c;
  WorkerLineReader reader{c};
  const std::string deep(100000, '[');
  for (const std::string& line : {
           std::string(R"({"t":"ready","python":5,"torch":["x"]})"),
           std::string(R"({"t":"stage","stage":{"a":1}})"),
           std::string(R"({"t":"node","id":"x","op":3,"failed":"yes","inputs":[1,{"from":-5,"shape":"s"}],"outputs":{"a":1}})"),
           std::string(R"({"t":"node","id":99999999999,"inputs":[{"from":1.5,"shape":[1e300,-1,18446744073709551615,"a"]}]})"),
           std::string(R"({"t":"modules","files":"nope"})"),
           std::string(R"({"t":"inputs","inputs":7,"automatic":false})"),
           std::string(R"({"t":5})"), std::string("[1,2]"), std::string("not json"), deep,
           std::string("{\"t\":\"stage\",\"stage\":\"\xff\"}"),
       })
    CHECK_NOTHROW(reader(line));
  CHECK(c.python_version.empty());
  CHECK(c.nodes.size() == 2);
  CHECK(c.nodes[0].id == 0);
  CHECK(c.nodes[1].inputs[0].shape == std::vector<int64_t>{-1, -1, -1, -1});
  CHECK(reader.bad_lines >= 4);
  for (const std::string& result : {
           std::string(R"({"t":"result","ok":"yes","stage":5,"kind":"operator","exception_type":[],
               "failure":{"op":"conv2d","operands":[{"name":"input","shape":[1,3,8,8],"min":"a","max":[]},
                 {"name":"weight","shape":[9223372036854775807,3,3,3]}],"options":"x","node":-1}})"),
           std::string(R"({"t":"result","ok":false,"kind":"operator","failure":{"op":"conv2d","operands":[
               {"name":"input","shape":[1,3,8,8]},{"name":"weight","shape":[8,3,281474976710655,3]}],
               "options":{"groups":"2","padding":[9223372036854775807,1],"dilation":-9223372036854775807}}})"),
           std::string(R"({"t":"result","ok":false,"kind":"binding","message":7,"parameters":{"missing":[1,"x"],"twice":"a"}})"),
           std::string(R"({"t":"result","ok":false,"kind":"<script>","message":"m","parameters":[]})"),
       }) {
    Capture r;
    WorkerLineReader rr{r};
    CHECK_NOTHROW(rr(result));
    REQUIRE(rr.result.is_object());
    CHECK_NOTHROW(read_worker_result(r, rr.result));
    CHECK_FALSE(r.ok);
    for (const auto& d : r.diagnostics) CHECK(d.kind != "<script>");
  }
}
