// One run configuration (schema/recording.fbs: RunConfig): run_config_json,
// what `tvis run` hands its runner (tools/cli/run_config.h), and
// run_config_of, how readers take it from a RunMeta, an older run's options
// strings included (format/include/tvis/format/run_config_of.h).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>

#include "run_config.h"
#include "tvis/format/run_config_of.h"

using tvis::cli::run_config_json;
namespace schema = tvis::schema;

namespace {

/// A RunMeta chunk body built from `meta`, read back as the readers see it.
struct BuiltMeta {
  flatbuffers::FlatBufferBuilder fbb;
  explicit BuiltMeta(const schema::RunMetaT& meta) { fbb.Finish(schema::RunMeta::Pack(fbb, &meta)); }
  const schema::RunMeta& get() const { return *flatbuffers::GetRoot<schema::RunMeta>(fbb.GetBufferPointer()); }
};

std::unique_ptr<schema::KeyValueT> kv(const std::string& k, const std::string& v) {
  auto e = std::make_unique<schema::KeyValueT>();
  e->key = k, e->value = v;
  return e;
}

}  // namespace

TEST_CASE("run_config_json writes every field of RunConfig, the schema's defaults included", "[run_config]") {
  const schema::RunConfigT defaults;
  const auto j = nlohmann::json::parse(run_config_json(defaults));
  const auto* table = schema::RunConfigTypeTable();
  size_t scalars = 0;
  for (size_t i = 0; i < table->num_elems; ++i)
    if (table->type_codes[i].base_type != flatbuffers::ET_STRING) {
      ++scalars;
      CHECK(j.contains(table->names[i]));
    }
  CHECK(j.size() == scalars);  // the empty project_dir is left out, nothing else
  CHECK(j["steps"] == defaults.steps);
  CHECK(j["samples"] == defaults.samples);
  CHECK(j["max_elems"] == defaults.max_elems);
  CHECK(j["max_run_bytes"] == defaults.max_run_bytes);
  CHECK(j["eval_values"] == false);
}

TEST_CASE("run_config_json keeps set values and escapes the project folder", "[run_config]") {
  schema::RunConfigT c;
  c.steps = 7, c.samples = 0, c.max_elems = 12, c.max_run_bytes = uint64_t(5) << 40, c.no_gradcam = true;
  c.project_dir = "/tmp/a \"b\"\\c/\xc3\xbc";  // quotes, a backslash and a non-ASCII letter
  const auto j = nlohmann::json::parse(run_config_json(c));
  CHECK(j["steps"] == 7);
  CHECK(j["samples"] == 0);
  CHECK(j["max_elems"] == 12);
  CHECK(j["max_run_bytes"] == uint64_t(5) << 40);
  CHECK(j["no_gradcam"] == true);
  CHECK(j["gradcam_true"] == false);
  CHECK(j["project_dir"] == c.project_dir);
}

TEST_CASE("run_config_of reads RunMeta.config as stored", "[run_config]") {
  schema::RunMetaT m;
  m.config = std::make_unique<schema::RunConfigT>();
  m.config->samples = 9, m.config->steps = 2, m.config->project_dir = "/p";
  m.options.push_back(kv("samples", "4"));  // the config wins over any strings
  const BuiltMeta built(m);
  const schema::RunConfigT c = tvis::format::run_config_of(built.get());
  CHECK(c.samples == 9);
  CHECK(c.steps == 2);
  CHECK(c.project_dir == "/p");
  CHECK(c.max_elems == schema::RunConfigT().max_elems);
}

TEST_CASE("run_config_of reads a run from before RunConfig from its options strings", "[run_config]") {
  schema::RunMetaT m;
  m.project_dir = "/old";
  for (auto [k, v] : {std::pair{"steps", "5"}, {"max_elems", "1000"}, {"samples", "2"}, {"max_run_bytes", "0"},
                      {"eval_values", "1"}, {"rank", "1"}})
    m.options.push_back(kv(k, v));
  m.options.push_back(kv("no_gradcam", "x"));  // not "1": off
  const BuiltMeta built(m);
  const schema::RunConfigT c = tvis::format::run_config_of(built.get());
  CHECK(c.steps == 5);
  CHECK(c.max_elems == 1000);
  CHECK(c.samples == 2);
  CHECK(c.max_run_bytes == 0);
  CHECK(c.eval_values);
  CHECK_FALSE(c.no_gradcam);
  CHECK(c.project_dir == "/old");

  SECTION("a setting left out or not a whole number reads as the schema's default") {
    schema::RunMetaT bad;
    bad.options.push_back(kv("samples", "4x"));
    bad.options.push_back(kv("steps", "99999999999999999999"));
    const BuiltMeta b(bad);
    const schema::RunConfigT d = tvis::format::run_config_of(b.get());
    CHECK(d.samples == schema::RunConfigT().samples);
    CHECK(d.steps == schema::RunConfigT().steps);
    CHECK(d.max_elems == schema::RunConfigT().max_elems);
  }
}
