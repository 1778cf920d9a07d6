// interpreter_pin.h: the interpreter a capture plan runs in, pinned. A pin
// is the path as chosen, where the choice came from, the file's identity
// (realpath, inode, mtime, size, xxh64: file_identity.h) and what the
// interpreter reports when run once (`python -I -c ...`: its version and
// whether torch can be found; nothing is imported). The probe never runs
// code of the folder tvis was started in or of the workspace: `-I` (no
// current folder, no PYTHON* variables, no user site on sys.path), cwd `/`,
// and killed (its whole process group) at kProbeLimitMs. The plan rechecks the
// pin right before the worker starts and after it exits (capture.h
// run_pinned_capture): any difference refuses the capture with stage
// "interpreter" ("interpreter changed between plan and run: ...").
#pragma once

#include <cstdint>
#include <string>

#include "tvis/profiles/file_identity.h"

namespace tvis::profiles {

/// How long the probe may take: an interpreter starting and finding torch's
/// spec takes well under a second; one that has not answered by then is
/// killed and refused (InterpreterPin::timed_out), never waited for.
constexpr int64_t kProbeLimitMs = 10'000;

struct InterpreterPin {
  std::string path;     // as chosen (what the worker is started as)
  std::string origin;   // where the choice came from, in words ("--python", "tensorviz.toml [tool] python_path", ...)
  FileIdentity file;    // taken before the probe ran
  std::string version;  // "3.11.2", as the probe printed it
  bool has_torch = false;
  std::string error;    // "" when pinned; else why not (one line)
  bool timed_out = false;  // the probe was killed at kProbeLimitMs (error says so)
};

/// Stats and hashes `path`, then runs it once for its version and torch.
InterpreterPin pin_interpreter(const std::string& path, const std::string& origin);

/// "" while the interpreter is still the pinned one (same resolved path,
/// inode, mtime, size and bytes); else "interpreter changed between plan and
/// run: PATH: WHAT" (`when` adds "(before the worker started)" or "(while
/// the worker ran)").
std::string pin_change(const InterpreterPin& pin, const std::string& when);

}  // namespace tvis::profiles
