// setup_form.h: what the browser setup form (`tvis graph MODULE:CLASS
// --setup`, docs/profiles.md "The setup form") shows and what it sends back,
// as JSON; the server (tools/cli/setup_server) only carries these.
//
// The form's model (setup_form_model): the class, its `__init__` and
// `forward` parameters from source discovery (names, kinds, defaults and
// annotations as source text), the workspace's top-level functions (factory
// and example-input pickers), the choices (dtypes, generators, devices,
// modes), and this class's profiles, each with `generated` (a block the form
// wrote, rewritten in place on save) and `form`: the profile as the form's
// fields, so "Change inputs" starts from it.
//
// The form's fields (profile_from_form), every value text as typed:
//   {name, construct: "init"|"factory",
//    init: [{name, value}]            value: a TOML value ("8", "\"relu\"", "[1, 2]"); "" leaves the default
//    factory: {file, callable, kwargs}  kwargs: TOML `key = value` lines
//    inputs_from: "tensors"|"example",
//    tensors: [{name, use, shape: "2, 4", dtype, generator, requires_grad}],
//    example: {file, callable},       a workspace function returning the inputs
//    device, mode: "eval"|"train", timeout_ms: "30000", seed: "" | "0",
//    forward_kwargs: TOML `key = value` lines (advanced: keyword options of forward)}
// Tensor settings stay in `tensors` while `inputs_from` is "example", so
// switching back loses nothing; only the chosen source is written.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tvis/profiles/catalog.h"

namespace tvis::profiles {

/// The form's model for class `class_ref` ("module:Class"); `config_text` is
/// the tensorviz.toml text ("" without one), to tell generated blocks. A
/// class the catalog does not know: {"error": "..."}.
nlohmann::json setup_form_model(const Catalog& catalog, const std::string& class_ref, const std::string& config_text);

/// The profile (config.h's fields, for write_generated_profile) of the form's
/// fields for `class_ref`; on a field that cannot be read, null and `*error`
/// = "FIELD: what is wrong" (one line, at most 300 characters).
nlohmann::json profile_from_form(const nlohmann::json& form, const std::string& class_ref, std::string* error);

/// The form's fields of an existing profile (the inverse of profile_from_form for what the form can express).
nlohmann::json form_from_profile(const Profile& p, const ModelClass* cls);

}  // namespace tvis::profiles
