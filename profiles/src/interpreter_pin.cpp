// interpreter_pin.cpp: pin_interpreter() and pin_change() (interpreter_pin.h).
#include "tvis/profiles/interpreter_pin.h"

#include <unistd.h>

#include "child_process.h"

namespace tvis::profiles {

namespace {

// One run: the version and whether torch can be found (importlib's spec only: nothing is imported).
constexpr const char* kProbe =
    "import sys, importlib.util\n"
    "print(sys.version.split()[0])\n"
    "print('torch' if importlib.util.find_spec('torch') else 'no-torch')\n";

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\n' || s[a] == '\r' || s[a] == '\t')) ++a;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\n' || s[b - 1] == '\r' || s[b - 1] == '\t')) --b;
  return s.substr(a, b - a);
}

}  // namespace

InterpreterPin pin_interpreter(const std::string& path, const std::string& origin) {
  InterpreterPin p;
  p.path = path, p.origin = origin;
  p.file = identify_file(path, "interpreter", path);
  if (!p.file.present || ::access(path.c_str(), X_OK) != 0) {
    p.error = origin + " " + path + ": no such executable";
    return p;
  }
  // -I and cwd "/": nothing of the current folder or the workspace is on sys.path (interpreter_pin.h).
  const tvis::process::Result r = detail::run_child({path, "-I", "-c", kProbe}, "", "/", kProbeLimitMs);
  if (r.timed_out) {
    p.timed_out = true;
    p.error = origin + " " + path + " did not answer the interpreter probe (its version, whether torch is found) within " +
              std::to_string(kProbeLimitMs / 1000) + " s: killed";
    return p;
  }
  const std::string out = trim(r.out);
  const size_t nl = out.find('\n');
  if (!r.started || r.exit_code != 0 || nl == std::string::npos) {
    p.error = origin + " " + path + " did not run as a Python interpreter" +
              (r.started ? " (exit " + std::to_string(r.exit_code) + ")" : ": " + r.error);
    return p;
  }
  p.version = trim(out.substr(0, nl));
  p.has_torch = trim(out.substr(nl + 1)) == "torch";
  return p;
}

std::string pin_change(const InterpreterPin& pin, const std::string& when) {
  const FileIdentity now = identify_file(pin.path, "interpreter", pin.path);
  const FileIdentity& then = pin.file;
  std::string what;
  if (!now.present) what = "it is gone";
  else if (now.resolved != then.resolved) what = "it now resolves to " + now.resolved + " (was " + then.resolved + ")";
  else if (now.inode != then.inode) what = "inode " + std::to_string(then.inode) + " -> " + std::to_string(now.inode);
  else if (now.size != then.size) what = "size " + std::to_string(then.size) + " -> " + std::to_string(now.size) + " bytes";
  else if (now.mtime_ns != then.mtime_ns) what = "modified (mtime changed)";
  else if (now.xxh64 != then.xxh64) what = "its bytes changed";
  if (what.empty()) return "";
  return "interpreter changed between plan and run: " + pin.path + ": " + what + (when.empty() ? "" : " " + when);
}

}  // namespace tvis::profiles
