// runner_launch.h with a stand-in interpreter: a shell script that writes the
// arguments and PYTHONPATH it was started with (and, waiting, the run file
// it was handed) to a file.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "process.h"
#include "runner_launch.h"
#include "tvis/process/wait.h"

using namespace tvis::cli;

namespace {

/// A folder with the stand-in `python` and where it reports; removed at the end.
struct FakePython {
  std::string dir, python, report;
  FakePython() {
    char tmpl[] = "/tmp/tvis_test_runner_XXXXXX";
    dir = mkdtemp(tmpl);
    python = dir + "/python";
    report = dir + "/report";
    // $4 is --go-fd's value for a waiting runner; it then reads its run file from that fd.
    std::ofstream(python) << "#!/bin/sh\n"
                             "echo \"$*\" > " << report << "\n"
                             "echo \"$PYTHONPATH\" >> " << report << "\n"
                             "echo \"$TVIS_NATIVE_DIRS\" >> " << report << "\n"
                             "if [ \"$3\" = --go-fd ]; then eval \"read f <&$4\" && echo \"got $f\" >> " << report
                          << "; fi\n";
    chmod(python.c_str(), 0755);
  }
  ~FakePython() {
    std::remove(report.c_str());
    std::remove(python.c_str());
    rmdir(dir.c_str());
  }
  std::string read_report() const {
    std::ifstream in(report);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
};

RunnerLaunch launch_spec() {
  RunnerLaunch l;
  l.native_dirs = "/native:/native-old";
  l.package_dir = "/package";
  l.runner_args = {"--steps", "2", "--", "train.py", "--lr", "1"};
  return l;
}

}  // namespace

TEST_CASE("start_runner passes the run file, the arguments and the added paths first") {
  FakePython fake;
  const char* saved = std::getenv("PYTHONPATH");
  const std::string old = saved ? saved : "";
  setenv("PYTHONPATH", "/user", 1);
  const pid_t pid = start_runner(launch_spec(), fake.python, "/runs/r/run.tvis");
  REQUIRE(pid > 0);
  CHECK(tvis::process::exit_like(tvis::process::wait_status(pid)) == 0);
  CHECK(fake.read_report() ==
        "-m tvis._runner --run-file /runs/r/run.tvis --steps 2 -- train.py --lr 1\n/package:/user\n/native:/native-old\n");
  if (saved)
    setenv("PYTHONPATH", old.c_str(), 1);
  else
    unsetenv("PYTHONPATH");
}

TEST_CASE("a waiting runner gets its run file through the pipe") {
  FakePython fake;
  WaitingRunner w = start_waiting_runner(launch_spec(), fake.python);
  REQUIRE(w.pid > 0);
  CHECK(send_run_file(&w, "/runs/r/run.tvis"));
  CHECK(w.go == -1);
  CHECK(tvis::process::exit_like(tvis::process::wait_status(w.pid)) == 0);
  const std::string report = fake.read_report();
  CHECK(report.rfind("-m tvis._runner --go-fd ", 0) == 0);
  CHECK(report.find("got /runs/r/run.tvis\n") != std::string::npos);
}

TEST_CASE("an abandoned waiting runner is killed and reaped") {
  FakePython fake;
  WaitingRunner w = start_waiting_runner(launch_spec(), fake.python);
  REQUIRE(w.pid > 0);
  const pid_t pid = w.pid;
  abandon(&w);
  CHECK(w.pid == -1);
  CHECK(w.go == -1);
  CHECK(waitpid(pid, nullptr, WNOHANG) == -1);  // already reaped
  WaitingRunner never;
  abandon(&never);  // a no-op
}
