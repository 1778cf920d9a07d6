// tvis run [options] SCRIPT [ARGS...]: record the first N training steps of
// an unmodified training script (flags and exit codes: docs/cli.md).
//
// This file maps flags to the work, which lives in libraries: the interpreter
// (python_discovery.h), the run folder (tvis/runs/run_folders.h), starting
// the runner (runner_launch.h), waiting for it (process.h).
//
// Sequence: the likely interpreter is started first, waiting for its run file,
// so it imports while the probes run (a pyenv shim costs ~0.1 s); once the
// probes choose, it is handed the run file, or killed before it has done
// anything visible and the chosen one is started. stdin/stdout/stderr are
// inherited, so the script behaves as under `python SCRIPT ARGS`. The exit
// status is the child's (a child killed by a signal kills this process with
// it). After the child: the run path and the command that shows it
// (`tvis open <runs dir>`) are printed last; a run folder without run.tvis (the script never started) is
// removed.
//
// Errors before the script starts are one line on stderr and exit 2.
#include <CLI/CLI.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "distributed_env.h"
#include "paths.h"
#include "process.h"
#include "interpreter_resolver.h"
#include "python_discovery.h"
#include "run_config.h"
#include "runner_launch.h"
#include "tvis/process/wait.h"
#include "tvis/profiles/workspace.h"
#include "tvis/runs/rank_files.h"
#include "tvis/runs/run_folders.h"
#include "tvis/runs/run_name.h"
#include "tvis/runs/run_resolve.h"

#ifndef TVIS_PYTHON_PACKAGE_DIR
#define TVIS_PYTHON_PACKAGE_DIR ""
#endif
#ifndef TVIS_NATIVE_DIRS
#define TVIS_NATIVE_DIRS ""
#endif

namespace tvis::cli {
namespace {

struct RunOptions {
  /// The flags that reach the recorder, filled once (their defaults are the
  /// schema's: schema/recording.fbs, RunConfig); project_dir set by run().
  schema::RunConfigT config;
  std::string out;
  std::string project;
  std::string max_run_bytes;  // --max-run-bytes's text ("500M"); "" keeps config's default
  std::string python;
  int nproc_per_node = 0;  // > 0: start that many ranks through torch.distributed.run
};

int fail(const std::string& msg) {
  std::fprintf(stderr, "tvis run: %s\n", msg.c_str());
  return 2;
}

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

/// `text` as a byte count: digits, optionally followed by K, M, G or T
/// (powers of 1024; "500M", "2G"); false when it is not one.
bool parse_byte_count(const std::string& text, uint64_t* out) {
  size_t i = 0;
  uint64_t v = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    if (v > (UINT64_MAX - 9) / 10) return false;
    v = v * 10 + static_cast<uint64_t>(text[i++] - '0');
  }
  if (i == 0) return false;
  int shift = 0;
  if (i < text.size()) {
    const char* units = "KMGT";
    const char* u = std::strchr(units, std::toupper(static_cast<unsigned char>(text[i])));
    if (!u || *u == 0 || i + 1 != text.size()) return false;
    shift = 10 * static_cast<int>(u - units + 1);
  }
  if (shift && v > (UINT64_MAX >> shift)) return false;
  *out = v << shift;
  return true;
}

/// The first problem with the options and script, or "" when there is none.
std::string check_options(RunOptions& o, const std::vector<std::string>& rest) {
  schema::RunConfigT& c = o.config;
  if (c.steps < 1) return "--steps must be at least 1 (got " + std::to_string(c.steps) + ")";
  if (!o.max_run_bytes.empty() && (!parse_byte_count(o.max_run_bytes, &c.max_run_bytes) || c.max_run_bytes == 0))
    return "--max-run-bytes takes a positive byte count such as 500M or 2G (got '" + o.max_run_bytes + "')";
  if (c.max_elems < 1) return "--max-elems must be at least 1";
  if (c.samples < 0) return "--samples must not be negative";
  if (rest.empty()) return "no script given (usage: tvis run [options] SCRIPT [ARGS...])";
  if (!is_file(rest[0])) return "script not found: " + rest[0];
  if (access(rest[0].c_str(), R_OK) != 0) return "script not readable: " + rest[0];
  return "";
}

/// The runner's arguments: the run's configuration whole (`--config JSON`:
/// run_config_json, or the one a rank `tvis run` of launch_ranks found in
/// kRunConfigEnv), this rank's place, then `--`, SCRIPT and ARGS.
std::vector<std::string> runner_args(const std::string& config_json, const DistributedEnv& d,
                                     const std::vector<std::string>& rest) {
  std::vector<std::string> a = {"--config", config_json};
  if (d.distributed())
    a.insert(a.end(), {"--option", "rank=" + std::to_string(d.rank), "--option",
                       "world_size=" + std::to_string(d.world_size), "--option",
                       "local_rank=" + std::to_string(d.local_rank), "--option", "launcher=" + d.launcher});
  a.push_back("--");
  a.insert(a.end(), rest.begin(), rest.end());
  return a;
}

/// Creates the runs folder and a fresh run folder in it (a distributed
/// launch's ranks share one: rank_files.h); "" with `error` set.
std::string new_run_folder(const std::string& runs, const std::string& script, const DistributedEnv& d,
                           std::string* error) {
  if (!runs::ensure_runs_folder(runs, error)) return "";
  if (d.distributed())
    return runs::join_launch_folder(real_or_absolute(runs), runs::script_stem(script), d.launch_key, d.rank, error);
  return runs::create_run_folder(real_or_absolute(runs), runs::script_stem(script), error);
}

/// The runner's pid for `run_file`: the waiting one when it is the chosen
/// interpreter and takes the file, else a fresh one (-1 with `error` set).
pid_t launch(WaitingRunner* early, const std::string& guess, const RunnerLaunch& l, const std::string& python,
             const std::string& run_file, std::string* error) {
  if (early->pid > 0 && python == guess && send_run_file(early, run_file)) return early->pid;
  abandon(early);
  return start_runner(l, python, run_file, error);
}

/// The last lines: where the run is and how to open it; or, when the script
/// never started, the empty run folder removed. `every_rank`: this tvis run
/// is not one rank of a launch, so the ranks in the folder are the ones its
/// script started itself (Lightning, accelerate launch, mp.spawn: the
/// recorder's child_ranks.py): each is named, as each rank's own tvis run
/// names its file under --nproc-per-node.
void report(const std::string& folder, const std::string& run_file, const std::string& runs_abs, bool every_rank) {
  if (!is_file(run_file)) {
    rmdir(folder.c_str());  // only when empty: another rank's file keeps it
    return;
  }
  std::fflush(stderr);
  if (every_rank)
    for (const auto& [rank, file] : runs::rank_files_in(folder))
      std::printf("tvis run: recorded %s\n", file.c_str());
  else
    std::printf("tvis run: recorded %s\n", run_file.c_str());
  // The command that shows the runs folder (from a laptop: HOST:<runs folder>).
  std::printf("tvis open %s\n", runs_abs.c_str());
  std::fflush(stdout);
}

/// A TCP port on 127.0.0.1 that nothing listens on now (0 when none).
int free_local_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  close(fd);
  return port;
}

/// `tvis run --nproc-per-node K`: this command again in K ranks, started by
/// `PYTHON -m torch.distributed.run` on one node with the static rendezvous
/// on 127.0.0.1 and a free port. Not `--standalone`: torch 1.13 gives that
/// the fixed port 29400 (two launches on one machine collide) and its c10d
/// rendezvous was seen failing a finished launch ("The connection to the
/// C10d store has failed") while the agent polled it. The launch key is the
/// master address and port with the agent's pid (distributed_env.h); each
/// rank is a `tvis run` of its own. `--redirects 1 --tee 1`: every rank's
/// stderr straight to the console and its stdout there too, prefixed with
/// its rank (torch 1.13 on Python 3.11 fails with the default,
/// --redirects 0). Only returns when the exec failed.
int launch_ranks(const RunOptions& o, const std::string& runs, const std::string& project, const std::string& python,
                 const std::vector<std::string>& rest) {
  char self[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return fail(std::string("cannot find this tvis executable: ") + std::strerror(errno));
  const int port = free_local_port();
  if (port == 0) return fail(std::string("cannot find a free port on 127.0.0.1 for the ranks: ") + std::strerror(errno));
  std::vector<std::string> argv = {python, "-m", "torch.distributed.run", "--nnodes", "1",
                                   "--master_addr", "127.0.0.1", "--master_port", std::to_string(port),
                                   "--nproc_per_node", std::to_string(o.nproc_per_node), "--redirects", "1", "--tee", "1",
                                   "--no_python", std::string(self, static_cast<size_t>(n)), "run",
                                   "--out", runs, "--project", project, "--python", python};
  argv.insert(argv.end(), rest.begin(), rest.end());
  // Each rank's `tvis run` takes the configuration whole from here (run(), run_config.h).
  schema::RunConfigT config = o.config;
  config.project_dir = project;
  if (setenv(kRunConfigEnv, run_config_json(config).c_str(), 1) != 0)
    return fail(std::string("cannot set ") + kRunConfigEnv + ": " + std::strerror(errno));
  std::fflush(stdout);
  exec_argv(argv);
  return fail("cannot start " + python + " -m torch.distributed.run: " + std::strerror(errno));
}

int run(RunOptions o, const std::vector<std::string>& rest) {
  if (const std::string problem = check_options(o, rest); !problem.empty()) return fail(problem);
  const DistributedEnv dist = distributed_env_from_environment();
  if (!dist.problem.empty()) return fail(dist.problem);
  const std::string& script = rest[0];
  RunnerLaunch l;
  l.package_dir = env_or("TVIS_PYTHON_PACKAGE_DIR", TVIS_PYTHON_PACKAGE_DIR);
  // $TVIS_NATIVE_DIRS (a list), else $TVIS_NATIVE_DIR (pip's console script: one), else this build's.
  l.native_dirs = env_or("TVIS_NATIVE_DIRS", env_or("TVIS_NATIVE_DIR", TVIS_NATIVE_DIRS).c_str());
  if (l.native_dirs.empty())
    return fail("this tvis was built without the recorder module (no Python with torch at build time)");
  const std::string project = o.project.empty() ? parent_dir(real_or_absolute(script)) : real_or_absolute(o.project);
  // A rank launch_ranks started takes the configuration its launching `tvis run` filled, whole; it is not
  // passed further in the environment (the runner gets it as an argument, the script does not see it).
  std::string config_json;
  if (const char* given = std::getenv(kRunConfigEnv); given && dist.distributed()) {
    config_json = given;
  } else {
    o.config.project_dir = project;
    config_json = run_config_json(o.config);
  }
  unsetenv(kRunConfigEnv);
  l.runner_args = runner_args(config_json, dist, rest);

  const PythonSearch search = PythonSearch::from_environment();
  // The interpreter as for check and graph (interpreter_resolver.h), the workspace found from the project.
  const InterpreterRequest want{o.python, profiles::find_workspace("", project).root, true};
  const std::string guess = likely_interpreter(want, search);
  WaitingRunner early;
  if (!guess.empty()) early = start_waiting_runner(l, guess);

  const ResolvedInterpreter resolved = resolve_interpreter(want, search);
  for (const auto& line : resolved.ignored) std::fprintf(stderr, "tvis: %s\n", line.c_str());
  std::string error = resolved.error;
  const std::string python = resolved.ok() ? resolved.pin.path : "";
  if (resolved.ok()) {
    if (const std::string why = profiles::pin_change(resolved.pin, "(before the script started)"); !why.empty()) {
      abandon(&early);
      return fail(why);
    }
  }
  const std::string runs = o.out.empty() ? project + "/tvis_runs" : absolute_path(o.out);
  if (!python.empty() && o.nproc_per_node > 0) {
    abandon(&early);
    if (dist.distributed()) return fail("--nproc-per-node starts ranks itself; this tvis run already is rank " +
                                        std::to_string(dist.rank) + " of a " + dist.launcher + " launch");
    if (!runs::ensure_runs_folder(runs, &error)) return fail(error);
    return launch_ranks(o, real_or_absolute(runs), project, python, rest);
  }
  const std::string folder = python.empty() ? "" : new_run_folder(runs, script, dist, &error);
  if (folder.empty()) {
    abandon(&early);
    return fail(error);
  }
  const std::string runs_abs = real_or_absolute(runs);
  const std::string run_file = folder + "/" + runs::rank_file_name(dist.rank);
  const pid_t pid = launch(&early, guess, l, python, run_file, &error);
  if (pid < 0) {
    report(folder, run_file, runs_abs, false);  // nothing ran: the empty run folder removed
    return fail(error);
  }
  const int status = tvis::process::wait_forwarding_signals(pid);
  // Recorded already: a change while it ran is said, the script's exit status kept.
  if (const std::string why = profiles::pin_change(resolved.pin, "(while the script ran)"); !why.empty())
    std::fprintf(stderr, "tvis run: %s; the run was recorded in the changed interpreter\n", why.c_str());
  report(folder, run_file, runs_abs, !dist.distributed());
  return tvis::process::exit_like(status);
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto opts = std::make_shared<RunOptions>();
  auto rest = std::make_shared<std::vector<std::string>>();
  CLI::App* sub = app.add_subcommand("run", "Record the first N training steps of a script");
  schema::RunConfigT& c = opts->config;  // the defaults shown are the schema's
  sub->add_option("--steps", c.steps, "Training steps to record (docs/cli.md says how steps are counted)")
      ->capture_default_str();
  sub->add_option("--out", opts->out, "Runs folder (default <project>/tvis_runs)");
  sub->add_option("--project", opts->project, "Project directory whose code is traced (default: the script's folder)");
  sub->add_option("--max-elems", c.max_elems, "Keep full values of tensors up to this many elements")
      ->capture_default_str();
  sub->add_option("--samples", c.samples, "Followed samples per batch")->capture_default_str();
  CLI::Option* no_gradcam =
      sub->add_flag("--no-gradcam", c.no_gradcam, "Skip Grad-CAM (one extra gradient pass per followed sample)");
  sub->add_flag("--gradcam-true", c.gradcam_true,
                "Grad-CAM also for the true class of followed samples the model gets wrong (one more pass each)")
      ->excludes(no_gradcam);
  sub->add_option("--max-run-bytes", opts->max_run_bytes,
                  "Bytes of tensor values the run may keep, e.g. 500M or 2G (default " +
                      std::to_string(c.max_run_bytes >> 30) + "G); the rest keep statistics");
  sub->add_flag("--eval-values", c.eval_values,
                "Keep tensor values of evaluation passes too (forwards under no_grad; default: statistics only)");
  sub->add_option("--python", opts->python, "Python interpreter of the training environment");
  sub->add_option("--nproc-per-node", opts->nproc_per_node,
                  "Start K ranks through torch.distributed.run (one node); each records its own rank")
      ->check(CLI::Range(1, 4096));
  sub->prefix_command();  // SCRIPT and everything after it go to the script verbatim
  sub->footer("Then SCRIPT [ARGS...]: the training script and its arguments, passed to it verbatim.\n"
              "The run goes to <runs folder>/<YYYYmmdd-HHMMSS>_<script>_<id>/run.tvis.");
  sub->callback([sub, opts, rest]() {
    *rest = sub->remaining();
    set_exit_code(run(*opts, *rest));
  });
}

}  // namespace tvis::cli
