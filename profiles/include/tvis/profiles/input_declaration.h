// input_declaration.h: `# tensorviz: input=5,8` comments (SPEC.md, "Numeric
// input declarations"). Positional float32 tensors, normal values, seed 0.
// Nothing is evaluated: the text after `input=` must be positive integer
// dims separated by ',' and tensors separated by ';' (spaces allowed),
// within 32 dims per tensor, 64 tensors and 4,194,304 elements in all.
//
// Which class a declaration belongs to: the class whose lines (decorators
// to the end of its body) hold it, or the class it sits directly above
// (only comment lines between it and the first decorator or `class` line);
// any other declaration applies only when its file has exactly one model
// class. Text in strings is never a declaration (the tokenizer says what
// is a comment).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tvis/profiles/source_facts.h"

namespace tvis::profiles {

constexpr size_t kMaxDeclaredDims = 32, kMaxDeclaredTensors = 64;
constexpr int64_t kMaxDeclaredElements = 4'194'304;

struct ParsedDeclaration {
  bool ok = false;
  std::vector<std::vector<int64_t>> shapes;
  std::string error;  // when !ok: what is unsupported, one line
};

/// Parses one comment (from '#'), e.g. "# tensorviz: input=2,8;2,8".
ParsedDeclaration parse_declaration(const std::string& comment);

/// The declaration in force for one model class.
struct ClassDeclaration {
  bool ok = false;
  std::vector<int> lines;  // the comments it comes from
  std::vector<std::vector<int64_t>> shapes;
  std::string error;  // when !ok: why explicit setup is needed
  /// "input=5,8;2,8"
  std::string spec() const;
};

/// The declarations of `file` that belong to class `cls` (which is one of
/// the file's `model_classes`), checked against its forward signature when
/// known. Empty lines/shapes and ok=false with no error: none.
ClassDeclaration declaration_for(const FileFacts& file, const ClassFacts& cls,
                                 const std::vector<const ClassFacts*>& model_classes,
                                 const std::optional<Signature>& forward);

/// Declarations of `file` that belong to no model class, each with why
/// (e.g. "applies to no class: the file has 2 model classes; ...").
std::vector<std::string> unowned_declarations(const FileFacts& file,
                                              const std::vector<const ClassFacts*>& model_classes);

}  // namespace tvis::profiles
