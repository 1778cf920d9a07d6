// problem.h: one actionable finding about a workspace, its tensorviz.toml or
// a source file. Every problem names where it is: a field path
// (`profiles.audit_small.inputs.args[0].shape`) when it is about the
// configuration, and the file position when one is known.
#pragma once

#include <string>
#include <vector>

namespace tvis::profiles {

struct Problem {
  std::string file;     // the file it is about ("" when none)
  int line = 0;         // 1-based; 0 when unknown
  int column = 0;       // 1-based; 0 when unknown
  std::string field;    // the key path in tensorviz.toml ("" for file-level problems)
  std::string message;  // what is wrong and what to do, one line

  /// `FILE:LINE:COLUMN: FIELD: MESSAGE`, leaving out the parts that are empty.
  std::string text() const;
};

/// Front ends print at most this many problems of one file, then the count left out.
constexpr size_t kMaxProblemsShown = 64;

}  // namespace tvis::profiles
