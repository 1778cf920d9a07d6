// tvis/json/safe.h: the two ways JSON from or to the outside world goes
// wrong, closed in one place for every layer that links tvis::json.
//   - text(): nlohmann's dump() throws (type_error 316, then an abort where
//     nothing catches it) on a string that is not UTF-8. Every string we emit
//     may hold bytes we did not choose (a run folder's name, a script path, a
//     workspace path), so every JSON text we write goes through text(): an
//     invalid byte becomes U+FFFD and the rest is kept.
//   - parse(): nlohmann parses iteratively but copies, compares, dumps and
//     (in older releases) destroys recursively, so a line nested 60,000 deep
//     overflows the stack later. parse() refuses nesting deeper than
//     `max_depth` before nlohmann sees the text (a linear scan that skips
//     strings), and never throws: a refused or malformed text is discarded
//     (is_discarded()), `why` says which.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tvis::safe_json {

/// The nesting every parser of outside JSON allows (MCP lines, worker lines).
constexpr size_t kMaxDepth = 64;

/// `j` as JSON text (`indent` as dump()'s); never throws: invalid UTF-8 is replaced by U+FFFD.
inline std::string text(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// The deepest array/object nesting of `s`, counting brackets outside strings;
/// stops counting (and returns a value > max_depth) as soon as it passes max_depth.
inline size_t nesting_depth(std::string_view s, size_t max_depth = kMaxDepth) {
  size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : s) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
      if (deepest > max_depth) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) --depth;
  }
  return deepest;
}

/// `s` parsed, or a discarded value when it is not JSON or nests deeper than
/// `max_depth` (`*why`, when given: "not JSON" or "nested deeper than N").
inline nlohmann::json parse(std::string_view s, size_t max_depth = kMaxDepth, std::string* why = nullptr) {
  if (nesting_depth(s, max_depth) > max_depth) {
    if (why) *why = "nested deeper than " + std::to_string(max_depth);
    return nlohmann::json(nlohmann::json::value_t::discarded);
  }
  nlohmann::json j = nlohmann::json::parse(s.begin(), s.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() && why) *why = "not JSON";
  return j;
}

}  // namespace tvis::safe_json
