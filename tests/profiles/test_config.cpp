// tensorviz.toml validation: each rule, with the exact text a user reads.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "tvis/profiles/config.h"
#include "tvis/profiles/workspace.h"

using namespace tvis::profiles;
namespace fs = std::filesystem;

namespace {

const char* kGood = R"(version = 1

[profiles.audit_small]
kind = "model"
model = "audit_models:GoodNet"
mode = "eval"
device = "cpu"
grad_enabled = false
limits = { timeout_ms = 30000 }
[profiles.audit_small.init]
args = []
kwargs = {}
[profiles.audit_small.inputs]
args = [{kind="tensor", shape=[2,4], dtype="float32", requires_grad=false, generator={kind="full", value=1}}]
kwargs = {}
)";

std::string profile_with(const std::string& lines) {
  return std::string("version = 1\n[profiles.p]\nkind = \"model\"\nmodel = \"m:C\"\nmode = \"eval\"\ndevice = \"cpu\"\n"
                     "grad_enabled = false\ninit = { args = [], kwargs = {} }\n") + lines + "\n";
}

std::vector<std::string> texts(const Config& c) {
  std::vector<std::string> out;
  for (const auto& p : c.all_problems()) out.push_back(p.text());
  return out;
}

std::string temp_dir() {
  char tmpl[] = "/tmp/tvis-profiles-XXXXXX";
  return mkdtemp(tmpl);
}

}  // namespace

TEST_CASE("the seed's GoodNet profile is valid with its defaults filled") {
  const Config c = parse_config(kGood, "tensorviz.toml", "/tmp");
  REQUIRE(texts(c).empty());
  REQUIRE(c.valid());
  const Profile& p = c.profiles.at(0);
  CHECK(p.module == "audit_models");
  CHECK(p.class_name == "GoodNet");
  CHECK(p.timeout_ms == 30000);
  CHECK(p.max_capture_bytes == 4 << 20);
  CHECK(p.deterministic);
  CHECK_FALSE(p.seed.has_value());
  CHECK(p.inputs->at("args").at(0).at("shape") == nlohmann::json::array({2, 4}));
}

TEST_CASE("each invalid setting is named with its field path and position") {
  struct Row { std::string lines, expected; };
  const std::vector<Row> rows = {
      {"inputs = { args = [] }\ntimeout_ms = 5",
       "f.toml:10:14: profiles.p.timeout_ms: timeout_ms belongs inside limits: limits = { timeout_ms = ... }"},
      {"inputs = { args = [] }\nlimits = { timeout_ms = 99 }",
       "f.toml:10:25: profiles.p.limits.timeout_ms: 99 is out of range 100..86400000 ms"},
      {"inputs = { args = [] }\nlimits = { max_capture_bytes = 17000000 }",
       "f.toml:10:32: profiles.p.limits.max_capture_bytes: 17000000 is out of range 1024..16777216 bytes"},
      {"inputs = { args = [] }\nseed = -1",
       "f.toml:10:8: profiles.p.seed: -1 is out of range 0..9007199254740991 (a non-negative safe integer)"},
      {"inputs = { args = [] }\nseed = \"0\"",
       "f.toml:10:8: profiles.p.seed: must be an integer (a non-negative safe integer), not a string"},
      {"inputs = { args = [] }\ncolour = 1", "f.toml:10:10: profiles.p.colour: unknown key 'colour' (known: kind, framework, model, mode, device, grad_enabled, seed, deterministic, cwd, limits, init, factory, inputs)"},
      {"inputs = { args = [{kind=\"tensor\", shape=[2,-4], dtype=\"float32\"}] }",
       "f.toml:9:45: profiles.p.inputs.args[0].shape[1]: must be a non-negative integer"},
      {"inputs = { args = [{kind=\"tensor\", shape=[2,4], dtype=\"float\"}] }",
       "f.toml:9:55: profiles.p.inputs.args[0].dtype: 'float' is not a dtype (bfloat16, bool, complex64, float16, float32, float64, int16, int32, int64, int8, uint8)"},
      {"inputs = { args = [{kind=\"tensor\", shape=[4194305], dtype=\"float32\"}] }",
       "f.toml:9:20: profiles.p.inputs.args[0]: the inputs reach more than 4194304 tensor elements"},
      {"inputs = { args = [{kind=\"tensor\", shape=[2], dtype=\"int64\", requires_grad=true}] }",
       "f.toml:9:76: profiles.p.inputs.args[0].requires_grad: only floating-point tensors can require grad, not int64"},
      {"inputs = { args = [], factory = { file = \"m.py\", callable = \"f\" } }",
       "f.toml:9:33: profiles.p.inputs.factory: an input factory cannot be mixed with explicit args/kwargs"},
      {"inputs = { args = [] }\nfactory = { file = \"../x.py\", callable = \"make\" }",
       "f.toml:9:20: profiles.p.factory.file: '../x.py' leads outside the workspace /tmp/tvis-ws (to /tmp/x.py)"},
      {"inputs = { args = [] }\ndevice = \"gpu\"", "f.toml:9:10: profiles.p.device: 'gpu' is not a device (cpu, cuda, cuda:N, mps)"},
  };
  fs::create_directories("/tmp/tvis-ws");
  for (const auto& row : rows) {
    INFO(row.lines);
    std::string text = profile_with(row.lines);
    if (row.lines.find("device = \"gpu\"") != std::string::npos) text.replace(text.find("device = \"cpu\"\n"), 15, "");
    if (row.lines.find("\nfactory") != std::string::npos) text.replace(text.find("init = "), 34, "");
    const Config c = parse_config(text, "f.toml", "/tmp/tvis-ws");
    CHECK_FALSE(c.valid());
    const auto t = texts(c);
    REQUIRE(!t.empty());
    CHECK(t.front() == row.expected);
  }
}

TEST_CASE("every problem of the file is reported at once, including another class's profile") {
  const std::string text = std::string(kGood) + "[profiles.other]\nkind = \"model\"\nmodel = \"x\"\n";
  const Config c = parse_config(text, "f.toml", "/tmp");
  CHECK(c.profiles.at(0).valid());
  const auto t = texts(c);
  REQUIRE(t.size() == 6);
  CHECK(t[0] == "f.toml:18:9: profiles.other.model: 'x' is not module:Class or package.module:Class");
  CHECK(t[1] == "f.toml:16:1: profiles.other.mode: missing (required)");
  CHECK(t.back() == "f.toml:16:1: profiles.other.inputs: missing: give inputs = { args, kwargs } or inputs = { factory = { file, callable, kwargs } }");
}

TEST_CASE("malformed TOML names the line and column") {
  const Config c = parse_config("version = 1\n[profiles.p\n", "f.toml", "/tmp");
  REQUIRE(c.problems.size() == 1);
  CHECK(c.problems[0].line == 2);
  CHECK(c.problems[0].text().rfind("f.toml:2:", 0) == 0);
  CHECK(c.problems[0].message.rfind("malformed TOML: ", 0) == 0);
}

TEST_CASE("init and factory are exclusive, one is required; jax is recognised") {
  const Config both = parse_config(profile_with("inputs = { args = [] }\nfactory = { file = \"m.py\", callable = \"f\" }"), "f.toml", "/tmp");
  CHECK(texts(both).front() == "f.toml:10:11: profiles.p.factory: give exactly one of init or factory, not both");
  const Config jax = parse_config(profile_with("inputs = { args = [] }\nframework = \"jax\""), "f.toml", "/tmp");
  CHECK(jax.valid());
  CHECK(jax.profiles[0].framework == "jax");
}

TEST_CASE("a tensorviz.toml that is a directory, unreadable or a broken symlink is an error, not absence") {
  const std::string dir = temp_dir();
  fs::create_directory(dir + "/tensorviz.toml");
  Workspace w = find_workspace(dir, "/");
  CHECK(w.config == ConfigState::not_a_file);
  CHECK(load_config(w.config_path, w.root).all_problems().at(0).text() == dir + "/tensorviz.toml is a directory, not a file");
  fs::remove(dir + "/tensorviz.toml");
  fs::create_symlink(dir + "/nowhere.toml", dir + "/tensorviz.toml");
  w = find_workspace(dir, "/");
  CHECK(w.config == ConfigState::broken_link);
  CHECK(w.config_error == dir + "/tensorviz.toml is a symlink to " + dir + "/nowhere.toml, which does not exist");
  fs::remove(dir + "/tensorviz.toml");
  std::ofstream(dir + "/tensorviz.toml") << kGood;
  fs::permissions(dir + "/tensorviz.toml", fs::perms::none);
  if (geteuid() != 0) {
    w = find_workspace(dir, "/");
    CHECK(w.config == ConfigState::unreadable);
    CHECK(w.config_error == dir + "/tensorviz.toml cannot be read: Permission denied");
  }
  fs::permissions(dir + "/tensorviz.toml", fs::perms::owner_all);
  fs::create_directories(dir + "/a/b");
  w = find_workspace("", dir + "/a/b");  // found upward
  CHECK(w.root == dir);
  CHECK(w.config == ConfigState::file);
  fs::remove_all(dir);
}
