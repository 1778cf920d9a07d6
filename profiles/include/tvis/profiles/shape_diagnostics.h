// shape_diagnostics.h: why a matmul / linear / bmm / conv / embedding call
// failed, from the operands recorded at that call only (name, shape, dtype;
// integer indices also carry their min and max). Each constraint the
// operands break becomes one Diagnostic naming the dims involved, e.g.
//   input [2, 4] @ mat2 [8, 2]: inner dims 4 ≠ 8
//   weight expects 3 input channels, input has 1 at dim 1
// Unknown dims print as `?` and prove nothing. When the operands break no
// constraint this file knows, the result is empty and the failure stays a
// generic one: nothing is ever taken from exception text.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tvis/profiles/capture.h"

namespace tvis::profiles {

/// A recorded operand: Operand plus the index range of an integer tensor.
struct RecordedOperand {
  Operand operand;
  bool has_range = false;
  int64_t min = 0, max = 0;
};

/// The constraints `operands` break for `op` ("linear", "matmul", "__matmul__", "mm",
/// "bmm", "conv1d"/"conv2d"/"conv3d", "embedding"); `options` holds stride,
/// padding, dilation, groups as recorded (absent: defaults).
std::vector<Diagnostic> operator_diagnostics(const std::string& op, const std::vector<RecordedOperand>& operands,
                                             const nlohmann::json& options);

/// "[2, 4]", unknown dims as "?".
std::string shape_text(const std::vector<int64_t>& shape);

}  // namespace tvis::profiles
