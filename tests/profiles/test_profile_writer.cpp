// The setup form's save (profile_writer.h) and its fields (setup_form.h):
// generated blocks spliced into a real file, every other byte kept.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tvis/profiles/config.h"
#include "tvis/profiles/profile_writer.h"
#include "tvis/profiles/setup_form.h"

using namespace tvis::profiles;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Hand-written: comments, odd spacing, a comment inside a table, CRLF line endings, no final newline.
const std::string kHand =
    "# project models\r\nversion   =   1   # the schema\r\n\r\n"
    "[profiles.two_blocks]   # hand-written\r\nkind=\"model\"\r\nmodel = \"audit_models:TwoBlocks\"\r\n"
    "mode = 'eval'\r\n  device = \"cpu\"\r\ngrad_enabled = false\r\n# keep me\r\n"
    "init = { args = [], kwargs = {} }\r\n"
    "inputs = { args = [{kind=\"tensor\", shape=[2,4], dtype=\"float32\"}], kwargs = {} }";

std::string temp_dir() {
  char tmpl[] = "/tmp/tvis-writer-XXXXXX";
  return mkdtemp(tmpl);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spill(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

json tensor_profile(const json& shape, const std::string& dtype = "float32") {
  return {{"model", "audit_models:TwoBlocks"},
          {"mode", "eval"},
          {"device", "cpu"},
          {"grad_enabled", false},
          {"limits", {{"timeout_ms", 30000}}},
          {"init", {{"args", json::array()}, {"kwargs", json::object()}}},
          {"inputs",
           {{"args", {{{"kind", "tensor"}, {"shape", shape}, {"dtype", dtype}, {"generator", {{"kind", "normal"}}}}}},
            {"kwargs", json::object()}}}};
}

// text with its generated blocks cut out.
std::string outside_blocks(const std::string& text) {
  std::string out;
  size_t at = 0;
  for (const auto& b : find_generated_blocks(text)) {
    out += text.substr(at, b.begin - at);
    at = b.end;
  }
  return out + text.substr(at);
}

}  // namespace

TEST_CASE("a generated profile is appended as a marked block; the hand-written bytes stay") {
  const std::string dir = temp_dir();
  const std::string path = dir + "/tensorviz.toml";
  spill(path, kHand);
  const ProfileWrite w = write_generated_profile(path, dir, "probe", tensor_profile({2, 4}));
  REQUIRE(w.error.empty());
  REQUIRE(w.problems.empty());
  REQUIRE(w.ok);
  CHECK(w.name == "probe");
  CHECK_FALSE(w.created);
  CHECK_FALSE(w.replaced);
  const std::string text = slurp(path);
  REQUIRE(text.substr(0, kHand.size()) == kHand);
  const auto blocks = find_generated_blocks(text);
  REQUIRE(blocks.size() == 1);
  CHECK(blocks[0].name == "probe");
  CHECK(blocks[0].end == text.size());
  // the block follows the file's CRLF and one blank line
  CHECK(text.substr(kHand.size(), 4) == "\r\n\r\n");
  CHECK(text.substr(blocks[0].begin).rfind("# tvis:generated profile probe \xE2\x80\x94 the setup form rewrites this block\r\n"
                                           "[profiles.probe]\r\nkind = \"model\"\r\nmodel = \"audit_models:TwoBlocks\"\r\n",
                                           0) == 0);
  const Config c = parse_config(text, path, dir);
  REQUIRE(c.valid());
  REQUIRE(c.find("probe"));
  CHECK(c.find("probe")->inputs->at("args")[0]["shape"] == json({2, 4}));
  CHECK(c.find("two_blocks"));
  fs::remove_all(dir);
}

TEST_CASE("a second save of a generated profile rewrites its block in place") {
  const std::string dir = temp_dir();
  const std::string path = dir + "/tensorviz.toml";
  spill(path, kHand);
  REQUIRE(write_generated_profile(path, dir, "probe", tensor_profile({2, 4})).ok);
  REQUIRE(write_generated_profile(path, dir, "other", tensor_profile({1, 4})).ok);
  const std::string before = slurp(path);
  const ProfileWrite w = write_generated_profile(path, dir, "probe", tensor_profile({5, 4}));
  REQUIRE(w.ok);
  CHECK(w.name == "probe");
  CHECK(w.replaced);
  const std::string after = slurp(path);
  CHECK(outside_blocks(after) == outside_blocks(before));
  const auto blocks = find_generated_blocks(after);
  REQUIRE(blocks.size() == 2);
  CHECK(blocks[0].name == "probe");
  CHECK(blocks[1].name == "other");
  const Config c = parse_config(after, path, dir);
  REQUIRE(c.valid());
  CHECK(c.find("probe")->inputs->at("args")[0]["shape"] == json({5, 4}));
  CHECK(c.find("other")->inputs->at("args")[0]["shape"] == json({1, 4}));
  fs::remove_all(dir);
}

TEST_CASE("saving under a hand-written profile's name writes NAME_setup and leaves it alone") {
  const std::string dir = temp_dir();
  const std::string path = dir + "/tensorviz.toml";
  spill(path, kHand);
  ProfileWrite w = write_generated_profile(path, dir, "two_blocks", tensor_profile({3, 4}));
  REQUIRE(w.ok);
  CHECK(w.name == "two_blocks_setup");
  std::string text = slurp(path);
  CHECK(text.substr(0, kHand.size()) == kHand);
  // again: the generated two_blocks_setup is updated, no third name
  w = write_generated_profile(path, dir, "two_blocks", tensor_profile({6, 4}));
  REQUIRE(w.ok);
  CHECK(w.name == "two_blocks_setup");
  CHECK(w.replaced);
  text = slurp(path);
  CHECK(text.substr(0, kHand.size()) == kHand);
  const Config c = parse_config(text, path, dir);
  REQUIRE(c.valid());
  CHECK(c.profiles.size() == 2);
  CHECK(c.find("two_blocks")->inputs->at("args")[0]["shape"] == json({2, 4}));
  CHECK(c.find("two_blocks_setup")->inputs->at("args")[0]["shape"] == json({6, 4}));
  fs::remove_all(dir);
}

TEST_CASE("a begin marker without its end line marks nothing: that profile counts as hand-written") {
  const std::string text = "version = 1\n# tvis:generated profile p \xE2\x80\x94 the setup form rewrites this block\n"
                           "[profiles.p]\nkind = \"model\"\n";
  CHECK(find_generated_blocks(text).empty());
  const Config c = parse_config(text, "tensorviz.toml", "/tmp");
  CHECK(setup_profile_name(text, c, "p") == "p_setup");
  CHECK(setup_profile_name(text, c, "q") == "q");
}

TEST_CASE("a missing tensorviz.toml is created with version = 1") {
  const std::string dir = temp_dir();
  const std::string path = dir + "/tensorviz.toml";
  const ProfileWrite w = write_generated_profile(path, dir, "probe", tensor_profile({2, 4}));
  REQUIRE(w.ok);
  CHECK(w.created);
  const std::string text = slurp(path);
  CHECK(text.rfind("version = 1\n\n# tvis:generated profile probe ", 0) == 0);
  CHECK(parse_config(text, path, dir).valid());
  fs::remove_all(dir);
}

TEST_CASE("a save that would make the file invalid leaves the old bytes and names the field") {
  const std::string dir = temp_dir();
  const std::string path = dir + "/tensorviz.toml";
  spill(path, kHand);
  ::chmod(path.c_str(), 0640);
  const ProfileWrite w = write_generated_profile(path, dir, "probe", tensor_profile({2, 4}, "float99"));
  CHECK_FALSE(w.ok);
  REQUIRE_FALSE(w.problems.empty());
  CHECK(w.problems[0].field == "profiles.probe.inputs.args[0].dtype");
  CHECK(slurp(path) == kHand);
  CHECK(fs::directory_iterator(dir) != fs::directory_iterator());
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) entries += e.is_regular_file();
  CHECK(entries == 1);  // no temporary file left behind
  // a valid save keeps the permission bits
  REQUIRE(write_generated_profile(path, dir, "probe", tensor_profile({2, 4})).ok);
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0640);
  CHECK_FALSE(write_generated_profile(path, dir, "bad name", tensor_profile({2, 4})).ok);
  fs::remove_all(dir);
}

// Issue 46 (finding 7): a link planted where the save's temporary file goes is never followed; the file it
// points to stays as it was, and the save still replaces tensorviz.toml.
TEST_CASE("the save's temporary file never follows a planted link") {
  const std::string dir = temp_dir(), elsewhere = temp_dir();
  const std::string path = dir + "/tensorviz.toml", victim = elsewhere + "/victim";
  spill(path, kHand);
  spill(victim, "precious\n");
  // The name the save used to take (its pid), and a few more in case the name changes shape.
  for (const std::string suffix : {".tvis-save-" + std::to_string(::getpid()), std::string(".tvis-save"), std::string(".tmp")})
    fs::create_symlink(victim, path + suffix);
  const ProfileWrite w = write_generated_profile(path, dir, "probe", tensor_profile({2, 4}));
  REQUIRE(w.error.empty());
  REQUIRE(w.ok);
  CHECK(slurp(victim) == "precious\n");
  CHECK_FALSE(fs::is_symlink(path));
  CHECK(find_generated_blocks(slurp(path)).size() == 1);
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += !e.is_symlink();
  CHECK(files == 1);  // no temporary file left behind
  fs::remove_all(dir);
  fs::remove_all(elsewhere);
}

// Issue 46 (finding 7): a tensorviz.toml that links out of the workspace is refused, not written through.
TEST_CASE("a tensorviz.toml linking outside the workspace is refused; one linking inside is written through") {
  const std::string dir = temp_dir(), elsewhere = temp_dir();
  const std::string path = dir + "/tensorviz.toml", outside = elsewhere + "/config.toml";
  spill(outside, kHand);
  fs::create_symlink(outside, path);
  ProfileWrite w = write_generated_profile(path, dir, "probe", tensor_profile({2, 4}));
  CHECK_FALSE(w.ok);
  CHECK(w.error == path + " is a symbolic link to " + fs::canonical(outside).string() + ", outside the workspace " + dir +
                       ": not written (replace the link with the file)");
  CHECK(slurp(outside) == kHand);
  CHECK(fs::is_symlink(path));
  // A dangling link out of the workspace would be created there: refused alike.
  fs::remove(path);
  fs::create_symlink(elsewhere + "/not_yet.toml", path);
  CHECK_FALSE(write_generated_profile(path, dir, "probe", tensor_profile({2, 4})).ok);
  CHECK_FALSE(fs::exists(elsewhere + "/not_yet.toml"));
  // A link to a file inside the workspace (a config kept in a subfolder): written through, the link stays.
  fs::remove(path);
  fs::create_directory(dir + "/configs");
  spill(dir + "/configs/tvis.toml", kHand);
  fs::create_symlink("configs/tvis.toml", path);
  w = write_generated_profile(path, dir, "probe", tensor_profile({2, 4}));
  REQUIRE(w.error.empty());
  CHECK(w.ok);
  CHECK(fs::is_symlink(path));
  CHECK(find_generated_blocks(slurp(dir + "/configs/tvis.toml")).size() == 1);
  fs::remove_all(dir);
  fs::remove_all(elsewhere);
}

TEST_CASE("TOML inline values round-trip through the file, strings escaped") {
  const json v = {{"s", "a \"quoted\"\\ line\nnext\ttab"}, {"f", 0.5}, {"whole", 2.0}, {"i", -3},
                  {"list", {1, 2}}, {"t", {{"odd key", true}}}};
  const std::string dir = temp_dir();
  const std::string path = dir + "/tensorviz.toml";
  json p = tensor_profile({2, 4});
  p["init"]["kwargs"] = v;
  const ProfileWrite w = write_generated_profile(path, dir, "probe", p);
  std::string problems;
  for (const auto& pr : w.problems) problems += pr.text() + "\n";
  CAPTURE(problems);
  REQUIRE(w.problems.empty());
  REQUIRE(w.ok);
  const Config c = parse_config(slurp(path), path, dir);
  REQUIRE(c.valid());
  const json back = c.find("probe")->init->at("kwargs");
  CHECK(back["s"] == v["s"]);
  CHECK(back["f"] == 0.5);
  CHECK(back["whole"] == 2.0);
  CHECK(back["i"] == -3);
  CHECK(back["list"] == json({1, 2}));
  CHECK(back["t"]["odd key"] == true);
  fs::remove_all(dir);
}

TEST_CASE("the form's fields become a profile; bad text is refused with its field") {
  json form = {{"name", "probe"},
               {"construct", "init"},
               {"init", {{{"name", "width"}, {"value", "8"}}, {{"name", "act"}, {"value", ""}}}},
               {"inputs_from", "tensors"},
               {"tensors",
                {{{"name", "x"}, {"kind", "pos"}, {"use", true}, {"shape", "2, 4"}, {"dtype", "float32"},
                  {"generator", "randint"}, {"low", "1"}, {"high", "5"}},
                 {{"name", "mask"}, {"kind", "pos"}, {"use", false}, {"shape", "2"}},
                 {{"name", "bias"}, {"kind", "pos"}, {"use", true}, {"shape", "[4]"}, {"dtype", "float64"},
                  {"generator", "ones"}}}},
               {"example", {{"file", "audit_models.py"}, {"callable", "graph_inputs"}}},
               {"device", "cpu"},
               {"mode", "train"},
               {"timeout_ms", "30000"},
               {"forward_kwargs", "scale = 0.5\nname = \"x\""}};
  std::string error;
  json p = profile_from_form(form, "m:C", &error);
  REQUIRE(error.empty());
  CHECK(p["model"] == "m:C");
  CHECK(p["grad_enabled"] == true);
  CHECK(p["limits"]["timeout_ms"] == 30000);
  CHECK(p["init"]["kwargs"] == json({{"width", 8}}));
  REQUIRE(p["inputs"]["args"].size() == 1);
  CHECK(p["inputs"]["args"][0]["generator"] == json({{"kind", "randint"}, {"low", 1}, {"high", 5}}));
  CHECK(p["inputs"]["kwargs"]["bias"]["shape"] == json({4}));  // after a skipped input: by name
  CHECK(p["inputs"]["kwargs"]["scale"] == 0.5);
  CHECK(p["inputs"]["kwargs"]["name"] == "x");

  form["inputs_from"] = "example";  // the tensor settings are still in the form; only the example is written
  p = profile_from_form(form, "m:C", &error);
  REQUIRE(error.empty());
  CHECK(p["inputs"] == json({{"factory", {{"file", "audit_models.py"}, {"callable", "graph_inputs"}, {"kwargs", json::object()}}}}));

  form["inputs_from"] = "tensors";
  form["tensors"][0]["shape"] = "2, four";
  CHECK(profile_from_form(form, "m:C", &error).is_null());
  CHECK(error == "inputs.x.shape: '2, four' is not a shape: positive integers separated by commas, like 2, 4");
  form["tensors"][0]["shape"] = "2, x";  // 'x' separates only digits
  CHECK(profile_from_form(form, "m:C", &error).is_null());
  CHECK(error == "inputs.x.shape: '2, x' is not a shape: positive integers separated by commas, like 2, 4");
  form["tensors"][0]["shape"] = "0, 4";
  CHECK(profile_from_form(form, "m:C", &error).is_null());
  for (const char* good : {"2x4", "[2, 4]", "2 \xC3\x97 4", " 2 4 "}) {
    form["tensors"][0]["shape"] = good;
    error.clear();
    CAPTURE(good);
    CHECK(profile_from_form(form, "m:C", &error)["inputs"]["args"][0]["shape"] == json({2, 4}));
  }
  form["init"][0]["value"] = "eight";
  CHECK(profile_from_form(form, "m:C", &error).is_null());
  CHECK(error.rfind("init.width: 'eight' is not a TOML value", 0) == 0);
  form["init"][0]["value"] = "8";
  form["forward_kwargs"] = "scale 0.5";
  CHECK(profile_from_form(form, "m:C", &error).is_null());
  CHECK(error.rfind("forward_kwargs: line 1: ", 0) == 0);
  form["forward_kwargs"] = "";
  form["timeout_ms"] = "soon";
  CHECK(profile_from_form(form, "m:C", &error).is_null());
  CHECK(error == "timeout_ms: 'soon' is not a whole number");
}

TEST_CASE("an existing profile comes back as the form's fields") {
  const std::string text =
      "version = 1\n[profiles.p]\nkind = \"model\"\nmodel = \"m:C\"\nmode = \"eval\"\ndevice = \"cpu\"\n"
      "grad_enabled = false\nseed = 7\nlimits = { timeout_ms = 2000 }\ninit = { args = [], kwargs = { width = 8, act = \"relu\" } }\n"
      "inputs = { args = [{kind=\"tensor\", shape=[2,4], dtype=\"int64\", generator={kind=\"randint\", low=0, high=9}}],"
      " kwargs = { flag = true } }\n";
  const Config c = parse_config(text, "tensorviz.toml", "/tmp");
  REQUIRE(c.valid());
  const json f = form_from_profile(c.profiles[0], nullptr);
  CHECK(f["timeout_ms"] == "2000");
  CHECK(f["seed"] == "7");
  CHECK(f["construct"] == "init");
  CHECK(f["init"] == json({{{"name", "act"}, {"value", "\"relu\""}}, {{"name", "width"}, {"value", "8"}}}));
  REQUIRE(f["tensors"].size() == 1);
  CHECK(f["tensors"][0]["shape"] == "2, 4");
  CHECK(f["tensors"][0]["generator"] == "randint");
  CHECK(f["tensors"][0]["high"] == "9");
  CHECK(f["forward_kwargs"] == "flag = true\n");
  // and back again: the same inputs
  json form = f;
  std::string error;
  const json p = profile_from_form(form, "m:C", &error);
  REQUIRE(error.empty());
  CHECK(p["inputs"]["args"][0]["generator"] == json({{"kind", "randint"}, {"low", 0}, {"high", 9}}));
  CHECK(p["inputs"]["kwargs"]["flag"] == true);
  CHECK(p["seed"] == 7);
}

TEST_CASE("plan_generated_profile: the save's text and target, nothing written (editors apply it themselves)") {
  const std::string dir = temp_dir(), elsewhere = temp_dir();
  const std::string path = dir + "/tensorviz.toml";
  spill(path, kHand);
  std::string text, target;
  ProfileWrite w = plan_generated_profile(path, dir, "two_blocks", tensor_profile({3, 4}), &text, &target);
  REQUIRE(w.ok);
  CHECK(w.name == "two_blocks_setup");  // a hand-written name: a new profile, as write_generated_profile
  CHECK(target == path);
  CHECK(slurp(path) == kHand);          // nothing written
  CHECK(text.substr(0, kHand.size()) == kHand);
  REQUIRE(write_generated_profile(path, dir, "two_blocks", tensor_profile({3, 4})).ok);
  CHECK(slurp(path) == text);           // the same bytes the save writes
  // A link inside the workspace: the target is the file it leads to; one leading outside is refused.
  fs::remove(path);
  fs::create_directory(dir + "/configs");
  spill(dir + "/configs/tvis.toml", kHand);
  fs::create_symlink("configs/tvis.toml", path);
  w = plan_generated_profile(path, dir, "probe", tensor_profile({2, 4}), &text, &target);
  REQUIRE(w.ok);
  CHECK(target == fs::canonical(dir + "/configs/tvis.toml").string());
  fs::remove(path);
  spill(elsewhere + "/config.toml", kHand);
  fs::create_symlink(elsewhere + "/config.toml", path);
  text.clear();
  w = plan_generated_profile(path, dir, "probe", tensor_profile({2, 4}), &text, &target);
  CHECK_FALSE(w.ok);
  CHECK(w.error.find("outside the workspace") != std::string::npos);
  CHECK(text.empty());
  fs::remove_all(dir);
  fs::remove_all(elsewhere);
}
