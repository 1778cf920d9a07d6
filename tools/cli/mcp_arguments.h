// mcp_arguments.h: checks a tools/call's `arguments` against the tool's
// inputSchema, for the part of JSON Schema the tools of `tvis mcp` declare:
// `type` (object, string, integer, number, boolean, array, null, or a list
// of them), `properties`, `required`, `additionalProperties: false`,
// `minimum` / `maximum`, `minLength` (counted in bytes), `enum`. A keyword outside that
// part is ignored, so a tool must declare only these.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace tvis::cli::mcp {

/// "" when `value` matches `schema`, else the first mismatch, naming where
/// (`arguments.timeout_ms: 5 is less than the minimum 100`).
std::string check_arguments(const nlohmann::json& schema, const nlohmann::json& value, const std::string& where = "arguments");

}  // namespace tvis::cli::mcp
