// tvis run [options] SCRIPT [ARGS...]: record the first N optimizer steps of
// an unmodified training script (INTERFACES.md, SPEC.md "Recording").
//
// This process only prepares and waits: it resolves the interpreter (--python,
// else $TVIS_PYTHON (set by pip's `tvis` console script), else the python3
// beside this executable, else the first python3 on PATH that has torch, else
// /usr/bin/python3), creates the run folder
// <runs>/<YYYYmmdd-HHMMSS>_<stem>_<id>/ and runs
//   PYTHON -m tvis._runner --run-file <folder>/run.tvis ... -- SCRIPT ARGS...
// with the tvis package and the native module on PYTHONPATH (the runner takes
// them off again). To hide the probes' time (a pyenv shim costs ~0.1 s), the
// likely interpreter (likely_python) is started first with --go-fd instead of
// --run-file: it imports while the probes run and gets its run file once they
// choose it; otherwise it is killed before it has done anything visible and
// the chosen one is started. stdin/stdout/stderr are inherited, so the script behaves as
// under `python SCRIPT ARGS`. SIGTERM is forwarded; SIGINT reaches the child
// from the terminal's process group and is ignored here. The exit status is
// the child's (a child killed by a signal kills this process with it).
// After the child: the run path and `tvis open <host>:<runs dir>` are printed
// last; a run folder without run.tvis (the script never started) is removed.
//
// Errors before the script starts are one line on stderr and exit 2.
#include <CLI/CLI.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "commands.h"

#ifndef TVIS_PYTHON_PACKAGE_DIR
#define TVIS_PYTHON_PACKAGE_DIR ""
#endif
#ifndef TVIS_NATIVE_DIR
#define TVIS_NATIVE_DIR ""
#endif

extern char** environ;

namespace tvis::cli {
namespace {

struct RunOptions {
  int steps = 3;
  std::string out;
  std::string project;
  int64_t max_elems = 2000000;
  int samples = 4;
  bool no_gradcam = false;
  bool gradcam_true = false;
  std::string python;
};

int fail(const std::string& msg) {
  std::fprintf(stderr, "tvis run: %s\n", msg.c_str());
  return 2;
}

std::string absolute(const std::string& p) {
  if (!p.empty() && p[0] == '/') return p;
  char buf[PATH_MAX];
  if (!getcwd(buf, sizeof buf)) return p;
  return std::string(buf) + "/" + p;
}

std::string normalize(const std::string& p) {
  char buf[PATH_MAX];
  return realpath(p.c_str(), buf) ? std::string(buf) : absolute(p);
}

std::string dirname_of(const std::string& p) {
  const auto slash = p.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : p.substr(0, slash));
}

std::string stem_of(const std::string& p) {
  std::string base = p.substr(p.rfind('/') == std::string::npos ? 0 : p.rfind('/') + 1);
  const auto dot = base.rfind('.');
  if (dot != std::string::npos && dot > 0) base = base.substr(0, dot);
  for (char& c : base)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) c = '_';
  return base.empty() ? "script" : base;
}

bool is_file(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool is_executable(const std::string& p) { return is_file(p) && access(p.c_str(), X_OK) == 0; }

/// Runs argv with stdout/stderr silenced; returns its exit status (-1 if it could not run).
int run_quiet(const std::vector<std::string>& argv) {
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
      dup2(devnull, 1);
      dup2(devnull, 2);
    }
    std::vector<char*> a;
    for (auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    execv(a[0], a.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool has_torch(const std::string& python) {
  return is_executable(python) &&
         run_quiet({python, "-c", "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec('torch') else 1)"}) == 0;
}

std::string self_dir() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  buf[n] = 0;
  return dirname_of(buf);
}

/// The interpreters to try in discovery order (INTERFACES.md) when no --python is given.
std::vector<std::string> python_candidates() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("TVIS_PYTHON"); env && *env) candidates.push_back(env);  // pip's console script
  const std::string here = self_dir();
  if (!here.empty()) candidates.push_back(here + "/python3");  // a venv's bin/ holding tvis
  if (const char* path = std::getenv("PATH")) {
    std::string p = path;
    size_t start = 0;
    while (start <= p.size()) {
      const size_t end = p.find(':', start);
      const std::string dir = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (!dir.empty()) candidates.push_back(dir + "/python3");
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  candidates.push_back("/usr/bin/python3");
  return candidates;
}

/// The interpreter to run the script with, or "" with `error` set.
std::string resolve_python(const RunOptions& o, std::string* error) {
  if (!o.python.empty()) {
    if (!is_executable(o.python)) {
      *error = "--python " + o.python + ": no such executable";
      return "";
    }
    if (!has_torch(o.python)) {
      *error = "--python " + o.python + " cannot import torch";
      return "";
    }
    return o.python;
  }
  for (const auto& c : python_candidates())
    if (has_torch(c)) return c;
  *error = "no python3 with torch found on PATH; pass --python PATH";
  return "";
}

bool is_elf(const std::string& p) {
  const int fd = open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char magic[4] = {};
  const bool elf = read(fd, magic, 4) == 4 && std::memcmp(magic, "\x7f" "ELF", 4) == 0;
  close(fd);
  return elf;
}

/// The interpreter resolve_python() will most likely choose, found without
/// running anything: --python, else the first candidate that is an
/// executable binary (a script such as a pyenv shim is slow to probe and is
/// passed over). Only a guess, to start the runner early; "" for none.
std::string likely_python(const RunOptions& o) {
  if (!o.python.empty()) return is_executable(o.python) ? o.python : "";
  for (const auto& c : python_candidates())
    if (is_executable(c) && is_elf(c)) return c;
  return "";
}

bool make_dirs(const std::string& dir, std::string* error) {
  std::string cur;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = dir.find('/', pos + 1);
    cur = dir.substr(0, pos);
    if (cur.empty()) continue;
    if (mkdir(cur.c_str(), 0777) != 0 && errno != EEXIST) {
      *error = "cannot create runs folder " + dir + ": " + std::strerror(errno);
      return false;
    }
  }
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    *error = "runs folder " + dir + " is not a folder";
    return false;
  }
  if (access(dir.c_str(), W_OK) != 0) {
    *error = "runs folder " + dir + " is not writable";
    return false;
  }
  return true;
}

/// Creates <runs>/<YYYYmmdd-HHMMSS>_<stem>_<id>/ (the id makes it unique
/// across processes started in the same second).
std::string make_run_folder(const std::string& runs, const std::string& stem, std::string* error) {
  char ts[32];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  std::strftime(ts, sizeof ts, "%Y%m%d-%H%M%S", &tm);
  std::random_device rd;
  for (int attempt = 0; attempt < 16; ++attempt) {
    char id[16];
    std::snprintf(id, sizeof id, "%06x", static_cast<unsigned>((rd() ^ (getpid() << 8)) & 0xFFFFFF));
    const std::string dir = runs + "/" + ts + "_" + stem + "_" + id;
    if (mkdir(dir.c_str(), 0777) == 0) return dir;
    if (errno != EEXIST) {
      *error = "cannot create run folder " + dir + ": " + std::strerror(errno);
      return "";
    }
  }
  *error = "cannot create a unique run folder in " + runs;
  return "";
}

volatile sig_atomic_t g_child = 0;
void forward_signal(int sig) {
  if (g_child > 0) kill(g_child, sig);
}

/// What the runner's command line and environment are made of, but the
/// interpreter and the run file.
struct RunnerLaunch {
  std::string native_dir, package_dir;
  std::vector<std::string> runner_args;  // after --run-file F: options, --, SCRIPT, ARGS
};

/// In the child: the environment the runner expects, then exec. Never returns.
[[noreturn]] void exec_runner(const RunnerLaunch& l, const std::string& python, const std::string& run_file,
                              int go_fd) {
  const char* orig_pp = std::getenv("PYTHONPATH");
  // The native module first: a pip -e build may have left another copy beside the package.
  const std::string added = l.native_dir + ":" + l.package_dir;
  const std::string pp = added + (orig_pp && *orig_pp ? std::string(":") + orig_pp : "");
  setenv("PYTHONPATH", pp.c_str(), 1);
  setenv("TVIS_ADDED_PATHS", added.c_str(), 1);
  setenv("TVIS_ORIG_PYTHONPATH", orig_pp ? orig_pp : "", 1);
  std::vector<std::string> argv = {python, "-m", "tvis._runner"};
  if (go_fd >= 0) {
    argv.insert(argv.end(), {"--go-fd", std::to_string(go_fd)});
  } else {
    argv.insert(argv.end(), {"--run-file", run_file});
  }
  argv.insert(argv.end(), l.runner_args.begin(), l.runner_args.end());
  std::vector<char*> a;
  for (auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  execv(a[0], a.data());
  if (go_fd < 0) std::fprintf(stderr, "tvis run: cannot start %s: %s\n", python.c_str(), std::strerror(errno));
  _exit(2);
}

/// Starts the runner for `run_file`; its pid, or -1 with errno set.
pid_t start_runner(const RunnerLaunch& l, const std::string& python, const std::string& run_file) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) exec_runner(l, python, run_file, -1);
  return pid;
}

/// A runner started before its interpreter was confirmed: it imports, then
/// reads its run file from `go` (tvis._runner --go-fd) and exits silently on
/// end of file.
struct Speculative {
  pid_t pid = -1;
  int go = -1;  // write end of the pipe
};

Speculative start_waiting_runner(const RunnerLaunch& l, const std::string& python) {
  Speculative s;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return s;
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) {
    fcntl(fds[0], F_SETFD, 0);  // the read end survives exec; the runner closes it
    exec_runner(l, python, "", fds[0]);
  }
  close(fds[0]);
  if (pid < 0) {
    close(fds[1]);
    return s;
  }
  s.pid = pid;
  s.go = fds[1];
  return s;
}

/// Hands the waiting runner its run file; false if it could not be told.
bool send_run_file(Speculative* s, const std::string& run_file) {
  const std::string msg = run_file + "\n";
  struct sigaction ignore {}, old {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &old);  // a runner that died gives EPIPE, not our death
  const bool ok = write(s->go, msg.data(), msg.size()) == ssize_t(msg.size());
  sigaction(SIGPIPE, &old, nullptr);
  close(s->go);
  s->go = -1;
  return ok;
}

/// Ends a waiting runner that will not be used (it has done nothing visible).
void abandon(Speculative* s) {
  if (s->go >= 0) close(s->go);
  s->go = -1;
  if (s->pid > 0) {
    kill(s->pid, SIGKILL);
    while (waitpid(s->pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  s->pid = -1;
}

int run(const RunOptions& o, const std::vector<std::string>& rest) {
  if (o.steps < 1) return fail("--steps must be at least 1 (got " + std::to_string(o.steps) + ")");
  if (o.max_elems < 1) return fail("--max-elems must be at least 1");
  if (o.samples < 0) return fail("--samples must not be negative");
  if (rest.empty()) return fail("no script given (usage: tvis run [options] SCRIPT [ARGS...])");
  const std::string script = rest[0];
  if (!is_file(script)) return fail("script not found: " + script);
  if (access(script.c_str(), R_OK) != 0) return fail("script not readable: " + script);

  const std::string package_dir = std::getenv("TVIS_PYTHON_PACKAGE_DIR") ? std::getenv("TVIS_PYTHON_PACKAGE_DIR")
                                                                         : TVIS_PYTHON_PACKAGE_DIR;
  const std::string native_dir = std::getenv("TVIS_NATIVE_DIR") ? std::getenv("TVIS_NATIVE_DIR") : TVIS_NATIVE_DIR;
  if (native_dir.empty())
    return fail("this tvis was built without the recorder module (no Python with torch at build time)");

  const std::string script_abs = normalize(script);
  const std::string project = o.project.empty() ? dirname_of(script_abs) : normalize(o.project);
  RunnerLaunch launch;
  launch.native_dir = native_dir;
  launch.package_dir = package_dir;
  launch.runner_args = {"--steps", std::to_string(o.steps), "--max-elems", std::to_string(o.max_elems),
                        "--samples", std::to_string(o.samples), "--project", project};
  if (o.no_gradcam) launch.runner_args.insert(launch.runner_args.end(), {"--option", "no_gradcam=1"});
  if (o.gradcam_true) launch.runner_args.insert(launch.runner_args.end(), {"--option", "gradcam_true=1"});
  launch.runner_args.push_back("--");
  launch.runner_args.insert(launch.runner_args.end(), rest.begin(), rest.end());

  // The likely interpreter starts importing (torch, the native module) while
  // the probes run; it waits for its run file before it does anything else,
  // and is killed unseen when the probes choose another.
  const std::string guess = likely_python(o);
  Speculative early;
  if (!guess.empty()) early = start_waiting_runner(launch, guess);

  std::string error;
  const std::string python = resolve_python(o, &error);
  if (python.empty()) {
    abandon(&early);
    return fail(error);
  }
  const std::string runs = o.out.empty() ? project + "/tvis_runs" : absolute(o.out);
  std::string folder;
  if (make_dirs(runs, &error)) folder = make_run_folder(normalize(runs), stem_of(script), &error);
  if (folder.empty()) {
    abandon(&early);
    return fail(error);
  }
  const std::string runs_abs = normalize(runs);
  const std::string run_file = folder + "/run.tvis";

  pid_t pid = -1;
  if (early.pid > 0 && python == guess && send_run_file(&early, run_file)) {
    pid = early.pid;
  } else {
    abandon(&early);
    pid = start_runner(launch, python, run_file);
  }
  if (pid < 0) return fail(std::string("cannot start ") + python + ": " + std::strerror(errno));
  g_child = pid;
  signal(SIGINT, SIG_IGN);
  struct sigaction sa {};
  sa.sa_handler = forward_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_child = 0;

  struct stat st;
  if (stat(run_file.c_str(), &st) != 0) {
    rmdir(folder.c_str());  // the script never started: leave nothing behind
  } else {
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    std::fflush(stderr);
    std::printf("tvis run: recorded %s\n", run_file.c_str());
    std::printf("tvis open %s:%s\n", host, runs_abs.c_str());
    std::fflush(stdout);
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    signal(sig, SIG_DFL);
    kill(getpid(), sig);
    return 128 + sig;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto opts = std::make_shared<RunOptions>();
  auto rest = std::make_shared<std::vector<std::string>>();
  CLI::App* sub = app.add_subcommand("run", "Record the first N optimizer steps of a training script");
  sub->add_option("--steps", opts->steps, "Optimizer steps to record (default 3)");
  sub->add_option("--out", opts->out, "Runs folder (default <project>/tvis_runs)");
  sub->add_option("--project", opts->project, "Project directory whose code is traced (default: the script's folder)");
  sub->add_option("--max-elems", opts->max_elems, "Keep full values of tensors up to this many elements (default 2000000)");
  sub->add_option("--samples", opts->samples, "Followed samples per batch (default 4)");
  CLI::Option* no_gradcam =
      sub->add_flag("--no-gradcam", opts->no_gradcam, "Skip Grad-CAM (one extra gradient pass per followed sample)");
  sub->add_flag("--gradcam-true", opts->gradcam_true,
                "Grad-CAM also for the true class of followed samples the model gets wrong (one more pass each)")
      ->excludes(no_gradcam);
  sub->add_option("--python", opts->python, "Python interpreter of the training environment");
  sub->prefix_command();  // SCRIPT and everything after it go to the script verbatim
  sub->footer("Then SCRIPT [ARGS...]: the training script and its arguments, passed to it verbatim.\n"
              "The run goes to <runs folder>/<YYYYmmdd-HHMMSS>_<script>_<id>/run.tvis.");
  sub->callback([sub, opts, rest]() {
    *rest = sub->remaining();
    set_exit_code(run(*opts, *rest));
  });
}

}  // namespace tvis::cli
