// Shape diagnostics from recorded operands only: each operator's constraint,
// unknown dims as `?` (never a finding), dtype conflicts, and no finding at
// all when the operands are consistent (the failure stays generic).
#include <catch2/catch.hpp>

#include "tvis/profiles/shape_diagnostics.h"

using namespace tvis::profiles;
using nlohmann::json;

namespace {

RecordedOperand op(const std::string& name, std::vector<int64_t> shape, const std::string& dtype = "float32") {
  return RecordedOperand{Operand{name, std::move(shape), dtype}};
}

std::vector<std::string> messages(const std::vector<Diagnostic>& ds) {
  std::vector<std::string> m;
  for (const auto& d : ds) m.push_back(d.kind + ": " + d.message);
  return m;
}

}  // namespace

TEST_CASE("matrix operators: inner, batch and rank constraints from the operands") {
  CHECK(messages(operator_diagnostics("mm", {op("input", {2, 4}), op("mat2", {8, 2})}, {})) ==
        std::vector<std::string>{"shape: input [2, 4] @ mat2 [8, 2]: inner dims 4 ≠ 8"});
  CHECK(messages(operator_diagnostics("matmul", {op("input", {3, 2, 4}), op("other", {5, 4, 2})}, {})) ==
        std::vector<std::string>{"shape: input [3, 2, 4] @ other [5, 4, 2]: batch dims 3 (input dim 0) and 5 (other dim 0) do not broadcast"});
  CHECK(messages(operator_diagnostics("matmul", {op("input", {2, 4}), op("other", {4})}, {})).empty());
  CHECK(messages(operator_diagnostics("bmm", {op("input", {2, 3, 4}), op("mat2", {3, 4, 5})}, {})) ==
        std::vector<std::string>{"shape: input [2, 3, 4] @ mat2 [3, 4, 5]: batch dims 2 ≠ 3 (dim 0)"});
  CHECK(messages(operator_diagnostics("bmm", {op("input", {3, 4}), op("mat2", {2, 4, 5})}, {})) ==
        std::vector<std::string>{"shape: bmm needs a 3-D input, input is [3, 4] (2-D)"});
  const auto linear = operator_diagnostics("linear", {op("input", {2, 4}), op("weight", {2, 8}), op("bias", {3})}, {});
  REQUIRE(linear.size() == 2);
  CHECK(linear[0].message == "input [2, 4] @ weight.T (weight [2, 8], in_features at dim 1): inner dims 4 ≠ 8");
  CHECK(linear[0].operands.size() == 2);
  CHECK(linear[1].message == "bias [3] ≠ weight's out_features 2 (weight dim 0)");
}

TEST_CASE("unknown dims print as ? and establish nothing") {
  CHECK(shape_text({-1, 4}) == "[?, 4]");
  CHECK(operator_diagnostics("mm", {op("input", {2, -1}), op("mat2", {8, 2})}, {}).empty());
  CHECK(messages(operator_diagnostics("mm", {op("input", {-1, 4}), op("mat2", {8, 2})}, {})) ==
        std::vector<std::string>{"shape: input [?, 4] @ mat2 [8, 2]: inner dims 4 ≠ 8"});
}

TEST_CASE("dtype conflicts of matrix and embedding operators") {
  CHECK(messages(operator_diagnostics("linear", {op("input", {2, 4}, "float64"), op("weight", {2, 4})}, {})) ==
        std::vector<std::string>{"dtype: input is float64, weight is float32: linear needs one dtype"});
  CHECK(messages(operator_diagnostics("embedding", {op("input", {2, 3}), op("weight", {10, 4})}, {})) ==
        std::vector<std::string>{"dtype: indices input [2, 3] are float32: embedding needs int64 (or int32) indices"});
}

TEST_CASE("embedding indices against num_embeddings, from their recorded range") {
  RecordedOperand ids = op("input", {3, 4}, "int64");
  ids.has_range = true, ids.min = -1, ids.max = 11;
  CHECK(messages(operator_diagnostics("embedding", {ids, op("weight", {10, 4})}, {})) ==
        std::vector<std::string>{"index: index 11 out of range of num_embeddings 10 (weight [10, 4] dim 0; indices [3, 4])",
                                 "index: index -1 is negative (indices [3, 4])"});
  ids.min = 0, ids.max = 9;
  CHECK(operator_diagnostics("embedding", {ids, op("weight", {10, 4})}, {}).empty());
}

TEST_CASE("convolutions: channels (with groups), rank and kernel size") {
  CHECK(messages(operator_diagnostics("conv2d", {op("input", {1, 1, 8, 8}), op("weight", {8, 3, 3, 3})}, {})) ==
        std::vector<std::string>{"shape: weight [8, 3, 3, 3] expects 3 input channels, input [1, 1, 8, 8] has 1 at dim 1"});
  CHECK(messages(operator_diagnostics("conv1d", {op("input", {4, 10}), op("weight", {6, 2, 3})}, json{{"groups", 1}})) ==
        std::vector<std::string>{"shape: weight [6, 2, 3] expects 2 input channels, input [4, 10] has 4 at dim 0"});
  CHECK(messages(operator_diagnostics("conv2d", {op("input", {1, 6, 8, 8}), op("weight", {8, 2, 3, 3})}, json{{"groups", 2}})) ==
        std::vector<std::string>{"shape: weight [8, 2, 3, 3] with groups=2 expects 4 input channels, input [1, 6, 8, 8] has 6 at dim 1"});
  CHECK(messages(operator_diagnostics("conv2d", {op("input", {1, 3, 2, 8}), op("weight", {8, 3, 3, 3})}, json{{"padding", 0}})) ==
        std::vector<std::string>{"shape: input [1, 3, 2, 8] dim 2 is 2, smaller than the kernel's 3 (weight dim 2)"});
  CHECK(operator_diagnostics("conv2d", {op("input", {1, 3, 2, 8}), op("weight", {8, 3, 3, 3})}, json{{"padding", 1}}).empty());
  CHECK(messages(operator_diagnostics("conv3d", {op("input", {3, 8, 8}), op("weight", {8, 3, 3, 3, 3})}, {})) ==
        std::vector<std::string>{"shape: conv3d needs a 5-D (batched) or 4-D input, input is [3, 8, 8] (3-D)"});
}

TEST_CASE("an unknown operator or consistent operands give no finding") {
  CHECK(operator_diagnostics("softmax", {op("input", {2, 4})}, {}).empty());
  CHECK(operator_diagnostics("linear", {op("input", {2, 4}), op("weight", {3, 4})}, {}).empty());
}

TEST_CASE("jax dot_general: contracted and batch dims paired by the primitive's own dimension numbers") {
  const json matmul = {{"lhs_contracting", {1}}, {"rhs_contracting", {0}}, {"lhs_batch", json::array()}, {"rhs_batch", json::array()}};
  CHECK(messages(operator_diagnostics("dot_general", {op("lhs", {2, 4}), op("rhs", {8, 2})}, matmul)) ==
        std::vector<std::string>{"shape: lhs [2, 4] dim 1 and rhs [8, 2] dim 0 are contracted: 4 ≠ 8"});
  CHECK(operator_diagnostics("dot_general", {op("lhs", {2, 4}), op("rhs", {4, 2})}, matmul).empty());
  CHECK(operator_diagnostics("dot_general", {op("lhs", {2, -1}), op("rhs", {8, 2})}, matmul).empty());  // unknown: nothing
  // An einsum "bij,bjk->bik" with batch sizes 3 and 5.
  const json batched = {{"lhs_contracting", {2}}, {"rhs_contracting", {1}}, {"lhs_batch", {0}}, {"rhs_batch", {0}}};
  CHECK(messages(operator_diagnostics("dot_general", {op("lhs", {3, 2, 4}), op("rhs", {5, 4, 6})}, batched)) ==
        std::vector<std::string>{"shape: lhs [3, 2, 4] dim 0 and rhs [5, 4, 6] dim 0 are batch dims: 3 ≠ 5"});
  const json beyond = {{"lhs_contracting", {3}}, {"rhs_contracting", {0}}, {"lhs_batch", json::array()}, {"rhs_batch", json::array()}};
  CHECK(messages(operator_diagnostics("dot_general", {op("lhs", {2, 4}), op("rhs", {4, 2})}, beyond)) ==
        std::vector<std::string>{"shape: lhs contracting dim 3 is beyond lhs [2, 4] (2-D)"});
  CHECK(messages(operator_diagnostics("dot_general", {op("lhs", {2, 4}, "int32"), op("rhs", {4, 2})}, matmul)) ==
        std::vector<std::string>{"dtype: lhs is int32, rhs is float32: dot_general needs one dtype"});
  // Hostile options (from a worker running the model's code): ignored, never a crash.
  CHECK(operator_diagnostics("dot_general", {op("lhs", {2, 4}), op("rhs", {8, 2})}, {{"lhs_contracting", "x"}}).empty());
  CHECK(operator_diagnostics("dot_general", {op("lhs", {2, 4}), op("rhs", {8, 2})},
                             {{"lhs_contracting", {-1}}, {"rhs_contracting", {uint64_t(1) << 62}}}).empty());
}

TEST_CASE("jax conv_general_dilated: features by the specs, groups, kernel against the padded input") {
  // NHWC / HWIO, as flax.linen.Conv passes them: lhs_spec (0, 3, 1, 2), rhs_spec (3, 2, 0, 1).
  json nhwc = {{"lhs_spec", {0, 3, 1, 2}}, {"rhs_spec", {3, 2, 0, 1}}, {"feature_group_count", 1},
               {"padding", {{1, 1}, {1, 1}}}, {"rhs_dilation", {1, 1}}, {"lhs_dilation", {1, 1}}};
  CHECK(messages(operator_diagnostics("conv_general_dilated", {op("lhs", {1, 8, 8, 3}), op("rhs", {3, 3, 1, 8})}, nhwc)) ==
        std::vector<std::string>{"shape: rhs [3, 3, 1, 8] takes 1 input feature(s) (dim 2) × feature_group_count 1; "
                                 "lhs [1, 8, 8, 3] has 3 (dim 3)"});
  CHECK(operator_diagnostics("conv_general_dilated", {op("lhs", {1, 8, 8, 3}), op("rhs", {3, 3, 3, 8})}, nhwc).empty());
  nhwc["feature_group_count"] = 3;
  CHECK(messages(operator_diagnostics("conv_general_dilated", {op("lhs", {1, 8, 8, 3}), op("rhs", {3, 3, 1, 8})}, nhwc)) ==
        std::vector<std::string>{"shape: rhs [3, 3, 1, 8]: out features 8 (dim 3) not divisible by feature_group_count 3"});
  nhwc["feature_group_count"] = 1;
  nhwc["padding"] = {{0, 0}, {0, 0}};
  CHECK(messages(operator_diagnostics("conv_general_dilated", {op("lhs", {1, 2, 8, 3}), op("rhs", {5, 3, 3, 8})}, nhwc)) ==
        std::vector<std::string>{"shape: lhs [1, 2, 8, 3] dim 1 is 2, smaller than the kernel's 5 (rhs [5, 3, 3, 8] dim 0)"});
  CHECK(messages(operator_diagnostics("conv_general_dilated", {op("lhs", {1, 8, 3}), op("rhs", {3, 3, 3, 8})}, nhwc)) ==
        std::vector<std::string>{"shape: conv_general_dilated needs lhs and rhs of one rank (3-D or more): lhs [1, 8, 3], rhs [3, 3, 3, 8]"});
  CHECK(operator_diagnostics("conv_general_dilated", {op("lhs", {1, 8, 8, 3}), op("rhs", {3, 3, 1, 8})}, {{"lhs_spec", {9, 9, 9, 9}}}).empty());
}
