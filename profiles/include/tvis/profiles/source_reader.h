// source_reader.h: reading the workspace's Python sources without importing
// them. Which files: every *.py under the root except hidden folders
// (.git, .venv, ...), __pycache__, node_modules, site-packages and virtual
// environments (a folder with pyvenv.cfg); folder symlinks are not followed,
// and a file's module name is its path from the root (a/b.py → a.b,
// a/b/__init__.py → a.b); files whose path is not a dotted identifier are
// left out (they cannot be named as module:Class).
//
// Why the interpreter's own ast/tokenize (python/source_reader.py) and not a
// C++ reader: it parses exactly the grammar of the Python that will run the
// model (match, PEP 695 classes, 3.12 f-strings, lambda defaults), separates
// comments from strings with Python's own tokenizer, and reports a syntax
// error as Python would; issue 17's worker needs that interpreter anyway.
// It runs once per command as `python -I -c SCRIPT` (isolated: the
// workspace is never on its sys.path), reads the files as text and imports
// nothing of the project.
#pragma once

#include <string>
#include <vector>

#include "tvis/profiles/source_facts.h"

namespace tvis::profiles {

constexpr size_t kMaxSourceFiles = 50'000;

struct SourceFile {
  std::string path;    // absolute
  std::string rel;     // relative to the root
  std::string module;  // dotted
  bool is_package = false;
};

/// The workspace's Python files, in path order (at most kMaxSourceFiles;
/// *skipped counts the rest). Links to folders are not entered; a .py link
/// whose target lies outside the root is not a source (a cloned workspace
/// cannot make tvis read files elsewhere): each is named in *links_out
/// ("rel -> target") when given.
std::vector<SourceFile> list_sources(const std::string& root, size_t* skipped,
                                     std::vector<std::string>* links_out = nullptr);

/// The embedded python/source_reader.py.
const char* source_reader_script();

/// Runs `python` once over `files`, also locating `extra_modules` (modules
/// outside the workspace, such as a profile's installed package) on its
/// path. SourceFacts::error says why nothing could be read (no interpreter,
/// it failed, its output did not parse); per-file errors are in the files.
SourceFacts read_sources(const std::string& python, const std::string& root, const std::vector<SourceFile>& files,
                         const std::vector<std::string>& extra_modules);

/// Parses the reader's JSON output (exposed for tests).
SourceFacts parse_reader_output(const std::string& json_text, const std::string& root);

}  // namespace tvis::profiles
