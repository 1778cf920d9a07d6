// jax_shape_diagnostics.cpp: why a lax.dot_general or lax.conv_general_dilated
// failed (framework = "jax"), from the operands worker_jax.py recorded where
// the primitive was bound: lhs and rhs (shape, dtype) and the primitive's own
// dimension numbers, never the exception text. Every matmul, einsum and Dense
// of JAX and Flax reaches dot_general; every Conv reaches conv_general_dilated.
//   lhs [2, 4] dim 1 and rhs [8, 2] dim 0 are contracted: 4 ≠ 8
//   rhs [3, 3, 1, 8] takes 1 input feature (dim 2) × feature_group_count 1; lhs [1, 8, 8, 3] has 3 (dim 3)
#include <algorithm>

#include "shape_findings.h"

namespace tvis::profiles::shape {

namespace {

using nlohmann::json;

constexpr size_t kMaxDims = 64;

// A recorded list of dim indices; nullopt-like `ok = false` when absent or not a bounded int list.
struct DimList {
  std::vector<int64_t> dims;
  bool ok = false;
};

DimList dim_list(const json& options, const char* key) {
  DimList out;
  if (!options.contains(key) || !options[key].is_array() || options[key].size() > kMaxDims) return out;
  for (const json& x : options[key]) {
    const int64_t d = bounded(x, -1);
    if (d < 0) return out;
    out.dims.push_back(d);
  }
  out.ok = true;
  return out;
}

int64_t dim_of(const Operand& o, int64_t d) { return d < int64_t(o.shape.size()) ? o.shape[size_t(d)] : -1; }

// Every index in `dims` names a dim of `o`; one diagnostic for the first that does not.
bool in_rank(Findings& f, const Operand& o, const DimList& dims, const std::string& what) {
  for (int64_t d : dims.dims)
    if (d >= int64_t(o.shape.size())) {
      f.add("shape", what + " dim " + std::to_string(d) + " is beyond " + named(o) + " (" + std::to_string(o.shape.size()) + "-D)",
            {&o});
      return false;
    }
  return true;
}

// lhs and rhs dims paired by `kind` (contracted / batch) must have one size.
void paired(Findings& f, const Operand& l, const DimList& ld, const Operand& r, const DimList& rd, const std::string& kind) {
  if (ld.dims.size() != rd.dims.size()) {
    f.add("shape", "lhs names " + std::to_string(ld.dims.size()) + " " + kind + " dim(s), rhs " + std::to_string(rd.dims.size()),
          {&l, &r});
    return;
  }
  for (size_t i = 0; i < ld.dims.size(); ++i) {
    const int64_t a = dim_of(l, ld.dims[i]), b = dim_of(r, rd.dims[i]);
    if (known(a, b) && a != b)
      f.add("shape", named(l) + " dim " + std::to_string(ld.dims[i]) + " and " + named(r) + " dim " + std::to_string(rd.dims[i]) +
                         " are " + kind + ": " + num(a) + " ≠ " + num(b),
            {&l, &r});
  }
}

}  // namespace

void dot_general(Findings& f, const std::vector<RecordedOperand>& ops, const json& options) {
  const auto* li = find(ops, "lhs");
  const auto* ri = find(ops, "rhs");
  if (!li || !ri || !options.is_object()) return;
  const Operand &l = li->operand, &r = ri->operand;
  const DimList lc = dim_list(options, "lhs_contracting"), rc = dim_list(options, "rhs_contracting");
  const DimList lb = dim_list(options, "lhs_batch"), rb = dim_list(options, "rhs_batch");
  const size_t before = f.out.size();
  if (lc.ok && rc.ok && in_rank(f, l, lc, "lhs contracting") && in_rank(f, r, rc, "rhs contracting"))
    paired(f, l, lc, r, rc, "contracted");
  if (lb.ok && rb.ok && in_rank(f, l, lb, "lhs batch") && in_rank(f, r, rb, "rhs batch")) paired(f, l, lb, r, rb, "batch dims");
  if (f.out.size() == before) same_dtype(f, "dot_general", l, r);
}

void conv_general_dilated(Findings& f, const std::vector<RecordedOperand>& ops, const json& options) {
  const auto* li = find(ops, "lhs");
  const auto* ri = find(ops, "rhs");
  if (!li || !ri || !options.is_object()) return;
  const Operand &l = li->operand, &r = ri->operand;
  if (l.shape.size() != r.shape.size() || l.shape.size() < 3)
    return f.add("shape", "conv_general_dilated needs lhs and rhs of one rank (3-D or more): " + named(l) + ", " + named(r),
                 {&l, &r});
  const DimList ls = dim_list(options, "lhs_spec"), rs = dim_list(options, "rhs_spec");
  if (!ls.ok || !rs.ok || ls.dims.size() != l.shape.size() || rs.dims.size() != r.shape.size()) return;
  if (!in_rank(f, l, ls, "lhs_spec") || !in_rank(f, r, rs, "rhs_spec")) return;
  const int64_t groups = std::max<int64_t>(1, bounded(options.value("feature_group_count", json(1)), 1));
  // lhs_spec = (batch, feature, spatial...); rhs_spec = (out feature, in feature, spatial...).
  const int64_t lf = dim_of(l, ls.dims[1]), rin = dim_of(r, rs.dims[1]), rout = dim_of(r, rs.dims[0]);
  if (known(lf, rin) && lf != rin * groups) {
    f.add("shape", named(r) + " takes " + num(rin) + " input feature(s) (dim " + std::to_string(rs.dims[1]) + ") × feature_group_count " +
                       std::to_string(groups) + "; " + named(l) + " has " + num(lf) + " (dim " + std::to_string(ls.dims[1]) + ")",
          {&l, &r});
    return;
  }
  if (groups > 1 && rout >= 0 && rout % groups != 0)
    f.add("shape", named(r) + ": out features " + num(rout) + " (dim " + std::to_string(rs.dims[0]) +
                       ") not divisible by feature_group_count " + std::to_string(groups), {&r});
  const size_t n = l.shape.size() - 2;
  const json& pad = options.value("padding", json());
  const json& rdil = options.value("rhs_dilation", json());
  const json& ldil = options.value("lhs_dilation", json());
  for (size_t i = 0; i < n; ++i) {
    const int64_t size = dim_of(l, ls.dims[2 + i]), k = dim_of(r, rs.dims[2 + i]);
    if (!known(size, k)) continue;
    const int64_t lo = pad.is_array() && pad.size() == n && pad[i].is_array() && pad[i].size() == 2 ? bounded(pad[i][0], 0) : 0;
    const int64_t hi = pad.is_array() && pad.size() == n && pad[i].is_array() && pad[i].size() == 2 ? bounded(pad[i][1], 0) : 0;
    const int64_t d = rdil.is_array() && rdil.size() == n ? std::max<int64_t>(1, bounded(rdil[i], 1)) : 1;
    const int64_t ld = ldil.is_array() && ldil.size() == n ? std::max<int64_t>(1, bounded(ldil[i], 1)) : 1;
    const int64_t padded = (size - 1) * ld + 1 + lo + hi, span = d * (k - 1) + 1;
    if (size > 0 && padded < span)
      f.add("shape", named(l) + " dim " + std::to_string(ls.dims[2 + i]) + " is " + num(size) +
                         (lo || hi ? " (" + num(padded) + " padded)" : "") + ", smaller than the kernel's " + num(span) + " (" +
                         named(r) + " dim " + std::to_string(rs.dims[2 + i]) + (d != 1 ? ", rhs_dilation " + num(d) : "") + ")",
            {&l, &r});
  }
  if (f.out.empty()) same_dtype(f, "conv_general_dilated", l, r);
}

}  // namespace tvis::profiles::shape
