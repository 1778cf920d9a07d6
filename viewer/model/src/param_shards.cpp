#include "tvis/viewer_model/param_shards.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tvis::viewer {

namespace {

int64_t numel_of(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// "shard 2 of 2" from the mesh: position among every rank of the mesh, row-major.
std::string shard_of(const ParamShardInfo& s) {
  int64_t index = 0, count = 1;
  for (size_t i = 0; i < s.mesh_shape.size(); ++i) {
    const int64_t c = i < s.mesh_coord.size() ? s.mesh_coord[i] : 0;
    index = index * s.mesh_shape[i] + c;
    count *= s.mesh_shape[i];
  }
  return "shard " + std::to_string(index + 1) + " of " + std::to_string(count);
}

std::string dim_word(size_t d, size_t dims) {
  if (dims < 2) return "elements";
  if (d == 0) return "rows";
  if (d == 1) return "columns";
  return "dim " + std::to_string(d);
}

std::string range(int64_t first, int64_t n) {
  return std::to_string(first) + "\xE2\x80\x93" + std::to_string(first + n - 1);  // en dash
}

}  // namespace

const ParamShardInfo* find_shard(const std::vector<ParamShardInfo>& shards, const std::string& name) {
  for (const ParamShardInfo& s : shards)
    if (s.name == name) return &s;
  return nullptr;
}

std::string shard_words(const ParamShardInfo& s) {
  std::string out = shard_of(s) + " (" + s.placements + (s.source.empty() ? "" : ", " + s.source) + ")";
  if (numel_of(s.local_shape) == 0) return out + ": empty on this rank";
  if (s.flat_offset >= 0)
    return out + ": elements " + range(s.flat_offset, numel_of(s.local_shape)) + " of " +
           std::to_string(numel_of(s.global_shape)) + " (row-major)";
  std::string parts;
  for (size_t d = 0; d < s.global_shape.size() && d < s.local_shape.size(); ++d) {
    const int64_t off = d < s.offsets.size() ? s.offsets[d] : 0;
    if (s.local_shape[d] == s.global_shape[d] && off == 0) continue;  // whole along d
    if (!parts.empty()) parts += ", ";
    parts += dim_word(d, s.global_shape.size()) + " " + range(off, s.local_shape[d]) + " of " + std::to_string(s.global_shape[d]);
  }
  return out + ": " + (parts.empty() ? "the whole tensor (replicated)" : parts);
}

AssembledTensor assemble_shards(const std::vector<ShardPart>& parts) {
  AssembledTensor a;
  const ParamShardInfo* first = nullptr;
  for (const ShardPart& p : parts)
    if (p.shard) {
      first = p.shard;
      break;
    }
  if (!first) {
    a.why = "no rank recorded a placement";
    return a;
  }
  a.shape = first->global_shape;
  // A run file is untrusted: the whole is allocated only for a sane shape of
  // at most kMaxAssembledElements, so a crafted global_shape cannot ask for
  // unbounded memory (or overflow the element count).
  constexpr int64_t kMaxAssembledElements = int64_t(1) << 26;  // 512 MiB of doubles
  int64_t total = 1;
  for (int64_t d : a.shape) {
    if (d < 0 || (d > 0 && total > kMaxAssembledElements / d)) {
      a.why = "the recorded whole shape is negative or larger than the viewer assembles (" +
              std::to_string(kMaxAssembledElements) + " elements)";
      return a;
    }
    total *= d;
  }
  a.values.assign(static_cast<size_t>(total), 0.0);
  std::vector<bool> covered(static_cast<size_t>(total), false);
  for (const ShardPart& p : parts) {
    const std::string who = "rank " + std::to_string(p.rank) + ": ";
    if (!p.shard) {
      a.why = who + "no placement of the parameter";
      return a;
    }
    if (p.shard->global_shape != a.shape) {
      a.why = who + "another whole shape";
      return a;
    }
    if (numel_of(p.shard->local_shape) == 0) {  // nothing of it on this rank (FSDP1's flat ranges)
      ++a.parts;
      continue;
    }
    if (!p.values || p.values->partial) {
      a.why = who + "values not kept in full";
      return a;
    }
    const std::vector<double>& v = p.values->values;
    const int64_t n = numel_of(p.shard->local_shape);
    if (static_cast<int64_t>(v.size()) != n) {
      a.why = who + "the kept values are not the part's " + std::to_string(n) + " elements";
      return a;
    }
    if (p.shard->flat_offset >= 0) {
      if (p.shard->flat_offset + n > total) {
        a.why = who + "the part lies outside the whole";
        return a;
      }
      for (int64_t i = 0; i < n; ++i) {
        a.values[static_cast<size_t>(p.shard->flat_offset + i)] = v[static_cast<size_t>(i)];
        covered[static_cast<size_t>(p.shard->flat_offset + i)] = true;
      }
    } else {
      const size_t dims = a.shape.size();
      if (p.shard->local_shape.size() != dims || p.shard->offsets.size() != dims) {
        a.why = who + "the part's dims are not the whole's";
        return a;
      }
      for (size_t d = 0; d < dims; ++d)
        if (p.shard->offsets[d] < 0 || p.shard->offsets[d] + p.shard->local_shape[d] > a.shape[d]) {
          a.why = who + "the part lies outside the whole";
          return a;
        }
      std::vector<int64_t> idx(dims, 0);
      for (int64_t i = 0; i < n; ++i) {  // local row-major index -> whole row-major index
        int64_t flat = 0;
        for (size_t d = 0; d < dims; ++d) flat = flat * a.shape[d] + p.shard->offsets[d] + idx[d];
        a.values[static_cast<size_t>(flat)] = v[static_cast<size_t>(i)];
        covered[static_cast<size_t>(flat)] = true;
        for (size_t d = dims; d-- > 0;) {
          if (++idx[d] < p.shard->local_shape[d]) break;
          idx[d] = 0;
        }
      }
    }
    ++a.parts;
  }
  const auto missing = std::count(covered.begin(), covered.end(), false);
  if (missing) {
    a.why = std::to_string(missing) + " of " + std::to_string(total) + " elements are on no rank file read";
    return a;
  }
  double sum = 0, sq = 0;
  a.min = std::numeric_limits<double>::infinity();
  a.max = -std::numeric_limits<double>::infinity();
  for (double x : a.values) {
    sum += x;
    sq += x * x;
    a.min = std::min(a.min, x);
    a.max = std::max(a.max, x);
  }
  a.l2 = std::sqrt(sq);
  a.mean = total ? sum / static_cast<double>(total) : 0.0;
  if (!total) a.min = a.max = 0;
  a.ok = true;
  return a;
}

}  // namespace tvis::viewer
