// The Graph page's freshness on a headless ImGui context, over capture runs
// written here: the shell's recheck_files is asked once the capture arrives
// (with the recorded evidence), its answer becomes the stale banner's
// state().view.stale / stale_reasons / freshness; a shell without the hook
// (the browser) shows what a {"freshness": ...} command said; a capture that
// records no evidence is never checked.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "headless_app.h"
#include "scratch_dir.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/chunk_pack.h"
#include "tvis/format/run_writer.h"
#include "tvis/schema/recording_generated.h"

using nlohmann::json;
using tvis::test::HeadlessApp;
namespace sc = tvis::schema;
namespace fmt = tvis::format;

namespace {

// A capture run of one input node; with `evidence`, one recorded source file.
std::string write_capture(const std::string& name, bool evidence) {
  const std::string path =
      tvis::test::scratch_path("graph_" + name + ".tvis");
  auto w = fmt::RunWriter::create(path);
  REQUIRE(w.ok());
  sc::RunMetaT meta;
  meta.kind = sc::RunKind::ProfileCapture;
  meta.script = "m:Net";
  meta.complete = true;
  fmt::ChunkInfo mi;
  mi.kind = static_cast<uint16_t>(fmt::ChunkKind::RunMeta);
  sc::BodyUnion mu;
  mu.Set(std::move(meta));
  w.value()->append(mi, fmt::pack_chunk(std::move(mu)));
  sc::ProfileCaptureT p;
  p.model = "m:Net";
  p.ok = true;
  auto n = std::make_unique<sc::GraphNodeT>();
  n->id = 1, n->op = "input", n->module_ = "x", n->x = 50, n->y = 20, n->width = 60, n->height = 30;
  p.nodes.push_back(std::move(n));
  p.graph_width = 100, p.graph_height = 40;
  if (evidence) {
    auto f = std::make_unique<sc::FileIdentityT>();
    f->role = "source", f->path = "/ws/model.py", f->name = "model.py", f->present = true, f->size = 12, f->xxh64 = 7;
    p.evidence.push_back(std::move(f));
  }
  fmt::ChunkInfo ci;
  ci.kind = static_cast<uint16_t>(fmt::ChunkKind::ProfileCapture);
  sc::BodyUnion cu;
  cu.Set(std::move(p));
  w.value()->append(ci, fmt::pack_chunk(std::move(cu)));
  REQUIRE(w.value()->finalize().ok());
  return path;
}

std::shared_ptr<fmt::ByteSource> file_source(const std::string& path) {
  auto s = fmt::open_file_source(path);
  REQUIRE(s.ok());
  return s.value();
}

}  // namespace

TEST_CASE("the Graph page asks the shell to recheck the capture's evidence and shows it stale") {
  const std::string path = write_capture("stale", true);
  int calls = 0;
  json seen;
  tvis::viewer::AppOptions o;
  o.recheck_files = [&](const std::string& evidence) {
    ++calls;
    seen = json::parse(evidence);
    return json{{"checked", true}, {"stale", true}, {"reasons", {"model.py changed"}}}.dump();
  };
  HeadlessApp h(o);
  h.app().open(file_source(path));
  h.frame(4);
  const json v = h.state()["view"];
  CHECK(h.state()["page"] == "Graph");
  CHECK(calls == 1);  // once when the capture arrived, not every frame
  REQUIRE(seen.is_array());
  REQUIRE(seen.size() == 1);
  CHECK(seen[0]["path"] == "/ws/model.py");
  CHECK(seen[0]["size"] == 12);
  CHECK(seen[0]["xxh64"] == 7);
  CHECK(v["stale"] == true);
  CHECK(v["stale_reasons"] == json{"model.py changed"});
  CHECK(v["freshness"]["checked"] == true);
  std::filesystem::remove(path);
}

TEST_CASE("without a recheck hook the page shows what the freshness command said; no evidence is never checked") {
  const std::string path = write_capture("command", true);
  HeadlessApp h;
  h.app().open(file_source(path));
  h.frame(3);
  CHECK(h.state()["view"]["stale"] == false);
  CHECK(h.state()["view"]["freshness"].is_null());  // not checked: the browser sees no files
  CHECK(h.app().command(R"({"freshness": {"checked": true, "stale": true, "reasons": ["tensorviz.toml changed"]}})") ==
        "true");
  h.frame(1);
  CHECK(h.state()["view"]["stale"] == true);
  CHECK(h.state()["view"]["stale_reasons"] == json{"tensorviz.toml changed"});
  std::filesystem::remove(path);

  const std::string bare = write_capture("bare", false);
  int calls = 0;
  tvis::viewer::AppOptions o;
  o.recheck_files = [&](const std::string&) {
    ++calls;
    return std::string("{}");
  };
  HeadlessApp g(o);
  g.app().open(file_source(bare));
  g.frame(3);
  CHECK(calls == 0);
  CHECK(g.state()["view"]["stale"] == false);
  CHECK(g.state()["view"]["freshness"].is_null());
  std::filesystem::remove(bare);
}
