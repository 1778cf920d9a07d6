// runner_launch.h: starting `PYTHON -m tvis._runner` for `tvis run`.
//
// The runner gets the tvis package folder first on PYTHONPATH
// (TVIS_ADDED_PATHS / TVIS_ORIG_PYTHONPATH tell it what to take off again, so
// the script sees its own PYTHONPATH) and the folders of the native modules
// built against each torch in TVIS_NATIVE_DIRS (':'-separated; tvis/native.py
// imports the one matching the interpreter's torch, then removes the variable).
// Its stdin, stdout and stderr are this process's.
//
// To hide interpreter probing, a runner can be started before its run file is
// known (start_waiting_runner): it imports torch and the native module, then
// reads its run file, one line, from a pipe (`--go-fd N`); on end of file it
// exits without a trace.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace tvis::cli {

/// What the runner's command line and environment are made of, but the
/// interpreter and the run file.
struct RunnerLaunch {
  std::string native_dirs;  // ':'-separated module folders, this build's first
  std::string package_dir;
  std::vector<std::string> runner_args;  // after --run-file F: options, --, SCRIPT, ARGS
};

/// Starts the runner for `run_file` (tvis_process's spawn.h); its pid, or -1
/// with `error` ("cannot start PYTHON: ...").
pid_t start_runner(const RunnerLaunch& l, const std::string& python, const std::string& run_file,
                   std::string* error = nullptr);

/// A runner started before its interpreter was confirmed.
struct WaitingRunner {
  pid_t pid = -1;
  int go = -1;  // write end of the pipe it reads its run file from
};

/// Starts a runner that waits for its run file; pid -1 if it could not start.
WaitingRunner start_waiting_runner(const RunnerLaunch& l, const std::string& python);

/// Hands the waiting runner its run file; false if it could not be told
/// (it died). Either way the pipe is closed.
bool send_run_file(WaitingRunner* w, const std::string& run_file);

/// Kills a waiting runner that will not be used (it has done nothing
/// visible) and reaps it. A no-op for one never started.
void abandon(WaitingRunner* w);

}  // namespace tvis::cli
