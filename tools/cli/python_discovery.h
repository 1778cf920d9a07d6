// python_discovery.h: where an interpreter is looked for when nothing names
// one (the last step of interpreter_resolver.h, shared by run, check, graph
// and mcp; docs/cli.md): the first of these that can find torch (each probed
// once by its pin, interpreter_pin.h: `-I`, cwd `/`, under a limit):
// $TVIS_PYTHON (set by pip's `tvis` console script), the interpreter this
// tvis's recorder module was built for (a build tree's build/venv/bin/python),
// python3 beside the tvis executable (a venv's bin/), each PATH entry's python3
// in order, /usr/bin/python3.
#pragma once

#include <string>
#include <vector>

namespace tvis::cli {

/// Where discovery looks, given the environment's pieces ("" when unset).
struct PythonSearch {
  std::string tvis_python;  // $TVIS_PYTHON
  std::string exe_dir;      // the folder of the tvis executable
  std::string path;         // $PATH
  std::string build_python; // the recorder module's interpreter, fixed at build time ("" if none)
  /// The pieces of this process (environment, /proc/self/exe).
  static PythonSearch from_environment();
};

/// The interpreters to try, in order (duplicates kept: a probe is short and bounded).
std::vector<std::string> python_candidates(const PythonSearch& s);

/// The interpreter discovery will most likely choose, found without running
/// anything: `explicit_python`, else the first candidate that is an
/// executable ELF binary (a script such as a pyenv shim is slow to probe and
/// is passed over). Only a guess, used to start the runner early; "" if none.
std::string likely_python(const std::string& explicit_python, const PythonSearch& s);

}  // namespace tvis::cli
