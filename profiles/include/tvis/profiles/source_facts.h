// source_facts.h: what source discovery knows about the workspace's Python
// files, read by python/source_reader.py in the selected interpreter (its
// own ast and tokenize; nothing is imported or run), then interpreted here:
// which classes are models, their forward signatures, their declarations.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tvis::profiles {

struct Param {
  std::string name;
  std::string kind;  // posonly, pos, vararg, kwonly, varkw
  bool has_default = false;
  std::string default_text;  // the default's source (ast.unparse, at most 200 chars); "" without
  std::string annotation;    // the annotation's source; "" without
};

struct Signature {
  int line = 0;
  bool assigned = false;  // `forward = ...` in the class body: the signature is unknown
  std::vector<Param> params;
  /// `forward(self, x, y=..., *, mask)`.
  std::string text(const std::string& name = "forward") const;
};

struct ClassFacts {
  std::string name;
  int line = 0;          // the `class` line
  int first_line = 0;    // its first decorator's line (= line without decorators)
  int end_line = 0;      // the last line of its body
  int above_start = 0;   // the first of the comment-only lines directly above first_line (= first_line if none)
  std::vector<std::optional<std::string>> bases;  // dotted names as written; nullopt when not a name
  std::optional<Signature> forward;  // defined in this class's own body
  std::optional<Signature> init;     // `__init__` defined in this class's own body
  std::optional<Signature> call;     // `__call__` defined in this class's own body (a Flax module's forward)
};

struct FunctionFacts {
  std::string name;
  int line = 0;
  bool is_async = false;
  std::vector<Param> params;
};

struct DeclarationComment {
  int line = 0, column = 0;
  std::string text;  // the whole comment, from '#'
  bool comment_only = false;  // nothing but the comment on its line
};

struct FileFacts {
  std::string path;    // absolute
  std::string rel;     // workspace-relative ("" for a file outside the workspace)
  std::string module;  // dotted module name
  bool is_package = false;  // an __init__.py
  bool external = false;    // found on the interpreter's path, outside the workspace
  std::string error;        // "" when read and parsed
  std::map<std::string, std::string> imports;  // local name → dotted target
  std::vector<ClassFacts> classes;
  std::vector<FunctionFacts> functions;  // top-level defs
  std::vector<std::string> assigned;     // top-level names bound by assignment
  std::vector<DeclarationComment> declarations;  // comments starting `# tensorviz:`
  const ClassFacts* find_class(const std::string& name) const;
  const FunctionFacts* find_function(const std::string& name) const;
};

struct SourceFacts {
  std::string python;          // the interpreter used
  std::string python_version;  // as it reports it
  std::string error;           // "" when the reader ran; else why not (no sources were read)
  std::vector<FileFacts> files;
  size_t skipped_files = 0;    // past the file bound
  const FileFacts* find_module(const std::string& module) const;
};

}  // namespace tvis::profiles
