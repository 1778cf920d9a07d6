#include "tvis/profiles/shape_diagnostics.h"

#include <algorithm>

#include "shape_findings.h"

namespace tvis::profiles {

namespace {

using nlohmann::json;
using namespace shape;
using Shape = std::vector<int64_t>;

bool is_integer_dtype(const std::string& d) {
  return d == "int64" || d == "int32" || d == "int16" || d == "int8" || d == "uint8";
}

void inner_dims(Findings& f, const Operand& a, int64_t ka, const Operand& b, int64_t kb, const std::string& b_text) {
  if (!known(ka, kb) || ka == kb) return;
  f.add("shape", named(a) + " @ " + b_text + ": inner dims " + num(ka) + " ≠ " + num(kb), {&a, &b});
}

void ranks(Findings& f, const std::string& op, const Operand& o, size_t want) {
  if (o.shape.size() == want) return;
  f.add("shape", op + " needs a " + std::to_string(want) + "-D " + o.name + ", " + o.name + " is " + shape_text(o.shape) + " (" +
                     std::to_string(o.shape.size()) + "-D)", {&o});
}

void linear(Findings& f, const std::vector<RecordedOperand>& ops) {
  const auto* in = find(ops, "input");
  const auto* w = find(ops, "weight");
  if (!in || !w) return;
  const Operand &x = in->operand, &wt = w->operand;
  if (x.shape.empty()) return f.add("shape", "linear needs an input of at least 1 dim, input is 0-D", {&x});
  if (wt.shape.size() == 2) {
    inner_dims(f, x, x.shape.back(), wt, wt.shape[1],
               "weight.T (weight " + shape_text(wt.shape) + ", in_features at dim 1)");
    if (const auto* b = find(ops, "bias"); b && b->operand.shape.size() == 1 && known(b->operand.shape[0], wt.shape[0]) &&
                                           b->operand.shape[0] != wt.shape[0])
      f.add("shape", named(b->operand) + " ≠ weight's out_features " + num(wt.shape[0]) + " (weight dim 0)", {&b->operand, &wt});
  }
  same_dtype(f, "linear", x, wt);
}

// Right-aligned batch dims of two matmul operands: equal or 1.
void batch_broadcast(Findings& f, const Operand& a, const Operand& b) {
  if (a.shape.size() < 3 && b.shape.size() < 3) return;
  const size_t na = a.shape.size() >= 2 ? a.shape.size() - 2 : 0, nb = b.shape.size() >= 2 ? b.shape.size() - 2 : 0;
  for (size_t i = 1; i <= std::min(na, nb); ++i) {
    const int64_t da = a.shape[na - i], db = b.shape[nb - i];
    if (known(da, db) && da != db && da != 1 && db != 1) {
      f.add("shape", named(a) + " @ " + named(b) + ": batch dims " + num(da) + " (" + a.name + " dim " + std::to_string(na - i) +
                         ") and " + num(db) + " (" + b.name + " dim " + std::to_string(nb - i) + ") do not broadcast",
            {&a, &b});
      return;
    }
  }
}

void matmul(Findings& f, const std::vector<RecordedOperand>& ops, const std::string& second) {
  const auto* ai = find(ops, "input");
  const auto* bi = find(ops, second);
  if (!ai || !bi) return;
  const Operand &a = ai->operand, &b = bi->operand;
  if (a.shape.empty() || b.shape.empty())
    return f.add("shape", "matmul needs operands of at least 1 dim: " + named(a) + ", " + named(b), {&a, &b});
  const int64_t kb = b.shape.size() == 1 ? b.shape[0] : b.shape[b.shape.size() - 2];
  inner_dims(f, a, a.shape.back(), b, kb, named(b));
  batch_broadcast(f, a, b);
  same_dtype(f, "matmul", a, b);
}

void mm(Findings& f, const std::vector<RecordedOperand>& ops, const std::string& op, size_t rank) {
  const auto* ai = find(ops, "input");
  const auto* bi = find(ops, "mat2");
  if (!ai || !bi) return;
  const Operand &a = ai->operand, &b = bi->operand;
  const size_t before = f.out.size();
  ranks(f, op, a, rank);
  ranks(f, op, b, rank);
  if (f.out.size() != before) return;
  if (rank == 3 && known(a.shape[0], b.shape[0]) && a.shape[0] != b.shape[0])
    f.add("shape", named(a) + " @ " + named(b) + ": batch dims " + num(a.shape[0]) + " ≠ " + num(b.shape[0]) + " (dim 0)", {&a, &b});
  inner_dims(f, a, a.shape[rank - 1], b, b.shape[rank - 2], named(b));
  same_dtype(f, op, a, b);
}

// One conv option as `n` values (an int applies to every spatial dim).
std::vector<int64_t> option(const json& options, const char* key, size_t n, int64_t fallback, bool* is_string = nullptr) {
  std::vector<int64_t> v(n, fallback);
  if (!options.contains(key)) return v;
  const json& o = options[key];
  // Recorded by the worker, which runs the model's code: bounded so no arithmetic below can overflow
  // (dims are below 2^40, worker_lines.cpp); an option out of range is unknown (the fallback).
  const auto bounded = [fallback](const json& x) { return shape::bounded(x, fallback); };
  if (o.is_number_integer()) std::fill(v.begin(), v.end(), bounded(o));
  if (o.is_array() && o.size() == n)
    for (size_t i = 0; i < n; ++i) v[i] = bounded(o[i]);
  if (is_string) *is_string = o.is_string();
  return v;
}

void conv(Findings& f, const std::vector<RecordedOperand>& ops, size_t n, const json& options) {
  const auto* in = find(ops, "input");
  const auto* w = find(ops, "weight");
  if (!in || !w) return;
  const Operand &x = in->operand, &wt = w->operand;
  const std::string op = "conv" + std::to_string(n) + "d";
  if (wt.shape.size() != n + 2) return ranks(f, op, wt, n + 2);
  if (x.shape.size() != n + 1 && x.shape.size() != n + 2)
    return f.add("shape", op + " needs a " + std::to_string(n + 2) + "-D (batched) or " + std::to_string(n + 1) +
                              "-D input, input is " + shape_text(x.shape) + " (" + std::to_string(x.shape.size()) + "-D)",
                 {&x});
  const size_t cd = x.shape.size() == n + 2 ? 1 : 0;
  const int64_t groups = option(options, "groups", 1, 1)[0] >= 1 ? option(options, "groups", 1, 1)[0] : 1;
  const int64_t expected = wt.shape[1] < 0 ? -1 : wt.shape[1] * groups;
  if (known(expected, x.shape[cd]) && expected != x.shape[cd]) {
    const std::string g = groups == 1 ? "" : " with groups=" + std::to_string(groups);
    f.add("shape", "weight " + shape_text(wt.shape) + g + " expects " + num(expected) + " input channels, input " +
                       shape_text(x.shape) + " has " + num(x.shape[cd]) + " at dim " + std::to_string(cd),
          {&x, &wt});
    return;
  }
  if (groups > 1 && wt.shape[0] >= 0 && wt.shape[0] % groups != 0)
    f.add("shape", "weight " + shape_text(wt.shape) + ": out channels " + num(wt.shape[0]) + " not divisible by groups=" +
                       std::to_string(groups), {&wt});
  bool pad_string = false;
  const auto pad = option(options, "padding", n, 0, &pad_string);
  const auto dil = option(options, "dilation", n, 1);
  if (pad_string && options["padding"] != "valid") return;  // "same": no size constraint
  for (size_t i = 0; i < n; ++i) {
    const int64_t size = x.shape[cd + 1 + i], k = wt.shape[2 + i];
    if (!known(size, k)) continue;
    const int64_t padded = size + 2 * pad[i], span = dil[i] * (k - 1) + 1;
    if (padded < span)
      f.add("shape", "input " + shape_text(x.shape) + " dim " + std::to_string(cd + 1 + i) + " is " + num(size) +
                         (pad[i] ? " (" + num(padded) + " padded)" : "") + ", smaller than the kernel's " + num(span) +
                         " (weight dim " + std::to_string(2 + i) + (dil[i] != 1 ? ", dilation " + num(dil[i]) : "") + ")",
            {&x, &wt});
  }
  same_dtype(f, op, x, wt);
}

void embedding(Findings& f, const std::vector<RecordedOperand>& ops) {
  const auto* in = find(ops, "input");
  const auto* w = find(ops, "weight");
  if (!in || !w) return;
  const Operand &x = in->operand, &wt = w->operand;
  if (!is_integer_dtype(x.dtype)) {
    f.add("dtype", "indices " + named(x) + " are " + x.dtype + ": embedding needs int64 (or int32) indices", {&x});
    return;
  }
  if (wt.shape.size() != 2) return ranks(f, "embedding", wt, 2);
  if (in->has_range && wt.shape[0] >= 0 && in->max >= wt.shape[0])
    f.add("index", "index " + std::to_string(in->max) + " out of range of num_embeddings " + num(wt.shape[0]) + " (weight " +
                       shape_text(wt.shape) + " dim 0; indices " + shape_text(x.shape) + ")", {&x, &wt});
  if (in->has_range && in->min < 0)
    f.add("index", "index " + std::to_string(in->min) + " is negative (indices " + shape_text(x.shape) + ")", {&x});
}

}  // namespace

std::string shape_text(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + shape::num(dims[i]);
  return s + "]";
}

std::vector<Diagnostic> operator_diagnostics(const std::string& op, const std::vector<RecordedOperand>& operands,
                                             const json& options) {
  Findings f;
  if (op == "linear") linear(f, operands);
  else if (op == "matmul" || op == "__matmul__" || op == "__rmatmul__") matmul(f, operands, "other");
  else if (op == "mm") mm(f, operands, "mm", 2);
  else if (op == "bmm") mm(f, operands, "bmm", 3);
  else if (op == "conv1d") conv(f, operands, 1, options);
  else if (op == "conv2d") conv(f, operands, 2, options);
  else if (op == "conv3d") conv(f, operands, 3, options);
  else if (op == "embedding") embedding(f, operands);
  else if (op == "dot_general") dot_general(f, operands, options);
  else if (op == "conv_general_dilated") conv_general_dilated(f, operands, options);
  return f.out;
}

}  // namespace tvis::profiles
