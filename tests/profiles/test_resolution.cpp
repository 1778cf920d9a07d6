// Request resolution: one profile, several (picker, remembered choice and
// its refusals), declarations, invalid configs; the choices file.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "tvis/profiles/resolution.h"

using namespace tvis::profiles;
namespace fs = std::filesystem;

namespace {

std::string profile(const std::string& name, const std::string& model) {
  return "[profiles." + name + "]\nkind = \"model\"\nmodel = \"" + model +
         "\"\nmode = \"eval\"\ndevice = \"cpu\"\ngrad_enabled = false\ninit = { args = [], kwargs = {} }\ninputs = { args = [] }\n";
}

Config two_profiles() {
  return parse_config("version = 1\n" + profile("audit_small", "audit_models:GoodNet") + profile("audit_large", "audit_models:GoodNet"),
                      "tensorviz.toml", "/tmp");
}

std::string temp_dir() {
  char tmpl[] = "/tmp/tvis-choices-XXXXXX";
  return mkdtemp(tmpl);
}

}  // namespace

TEST_CASE("one matching profile runs directly; a named one is checked") {
  const Config c = parse_config("version = 1\n" + profile("only", "m:A"), "tensorviz.toml", "/tmp");
  Resolution r = resolve({"m:A", ""}, c, {}, Choices{});
  CHECK(r.status == Resolved::profile);
  CHECK(r.profile == "only");
  r = resolve({"m:B", "only"}, c, {}, Choices{});
  CHECK(r.status == Resolved::refused);
  CHECK(r.reason == "profile only is for m:A, not m:B");
  r = resolve({"", "nope"}, c, {}, Choices{});
  CHECK(r.reason == "no profile nope in tensorviz.toml (profiles: only)");
}

TEST_CASE("several profiles ask once; the remembered choice is used, a removed one refuses") {
  const Config c = two_profiles();
  const std::string root = temp_dir();
  const Request req{"audit_models:GoodNet", ""};
  Resolution r = resolve(req, c, {}, load_choices(root));
  CHECK(r.status == Resolved::choose);
  CHECK(r.candidates == std::vector<std::string>{"audit_small", "audit_large"});
  CHECK(resolve_pick(req, "", c, {}, root).reason == "cancelled: no profile was chosen for audit_models:GoodNet");
  CHECK(resolve_pick(req, "audit_medium", c, {}, root).reason == "profile audit_medium no longer matches audit_models:GoodNet");
  CHECK_FALSE(fs::exists(root + "/" + kChoicesName));  // refusals remember nothing
  r = resolve_pick(req, "audit_large", c, {}, root);
  CHECK(r.status == Resolved::profile);
  r = resolve(req, c, {}, load_choices(root));
  CHECK(r.status == Resolved::profile);
  CHECK(r.profile == "audit_large");
  CHECK(r.remembered);
  const Config removed = parse_config("version = 1\n" + profile("audit_small", "audit_models:GoodNet") + profile("audit_xl", "audit_models:GoodNet"),
                                      "tensorviz.toml", "/tmp");
  r = resolve(req, removed, {}, load_choices(root));
  CHECK(r.status == Resolved::refused);
  CHECK(r.reason == "the remembered choice audit_large for audit_models:GoodNet is no longer one of its profiles (audit_small, audit_xl); choose with --profile NAME");
  std::ofstream(root + "/" + kChoicesName) << "[choices\n";
  CHECK(load_choices(root).error.find("malformed TOML") != std::string::npos);
  fs::remove_all(root);
}

TEST_CASE("an invalid file refuses every request; a jax profile resolves as a torch one") {
  const Config bad = parse_config("version = 1\n" + profile("a", "m:A") + "[profiles.b]\nkind = \"model\"\n", "tensorviz.toml", "/tmp");
  CHECK(resolve({"m:A", ""}, bad, {}, Choices{}).status == Resolved::refused);
  const Config jax = parse_config("version = 1\n" + profile("j", "m:A") + "framework = \"jax\"\n", "tensorviz.toml", "/tmp");
  const Resolution r = resolve({"", "j"}, jax, {}, Choices{});
  CHECK(r.status == Resolved::profile);
  CHECK(r.profile == "j");
}

TEST_CASE("without a profile: the declaration, else automatic, else refused") {
  const Config none;
  ModelClass m;
  m.ref = "m:A";
  m.declaration.ok = true;
  m.declaration.lines = {3};
  m.declaration.shapes = {{5, 8}};
  CHECK(resolve({"m:A", ""}, none, {m}, Choices{}).status == Resolved::declaration);
  CHECK(resolve({"m:A", ""}, none, {m}, Choices{}).reason == "input=5,8 (line 3)");
  m.declaration = ClassDeclaration{};
  CHECK(resolve({"m:A", ""}, none, {m}, Choices{}).status == Resolved::automatic);
  m.declaration.error = "conflicting declarations";
  CHECK(resolve({"m:A", ""}, none, {m}, Choices{}).reason == "conflicting declarations (add a profile to tensorviz.toml)");
  CHECK(resolve({"m:Z", ""}, none, {m}, Choices{}).reason == "no model class m:Z found in the workspace's sources");
}
