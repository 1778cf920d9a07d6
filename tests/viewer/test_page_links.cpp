// links/ (page_link.h, page_names.h): every subject a finding can be about
// maps to a page the viewer registers and shows for a training run, the
// registry's pages are exactly page_names.h's list, and a position's link
// keeps the format `tvis diagnose --json`'s `link` and `position` print.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "headless_app.h"
#include "page.h"
#include "tvis/links/finding_json.h"
#include "tvis/links/page_link.h"
#include "tvis/links/page_names.h"

using nlohmann::json;
namespace an = tvis::analysis;
namespace links = tvis::links;

TEST_CASE("the viewer's registry names its pages from page_names.h, every one", "[viewer][links]") {
  std::vector<std::string> registered, named;
  for (const tvis::viewer::PageSpec* p : tvis::viewer::registered_pages()) registered.push_back(p->name);
  for (const char* n : links::page::kAll) named.push_back(n);
  CHECK(registered == named);
}

TEST_CASE("every subject maps to a registered page that a link to it opens", "[viewer][links]") {
  tvis::test::HeadlessApp h;
  h.app().open(tvis::test::file_source_for(TVIS_TEST_DIAGNOSE_RUN));  // a training run: its pages present
  for (int i = 0; i < 20 && !h.state()["run"].is_object(); ++i) h.frame();
  const json shown = h.state()["pages"];  // the tabs a training run shows
  REQUIRE(shown.is_array());
  std::set<std::string> pages;
  for (an::Subject subject : an::kSubjects) {
    INFO(an::subject_name(subject));
    const std::string page = links::page_of(subject);
    pages.insert(page);
    const tvis::viewer::PageSpec* spec = tvis::viewer::page_named(page);
    REQUIRE(spec != nullptr);
    CHECK(std::find(shown.begin(), shown.end(), json(page)) != shown.end());
    an::Position w;
    w.subject = subject;
    w.step = 0;
    CHECK(links::page_link(w).page == page);
    CHECK(json::parse(h.app().command(json{{"link", links::position_json(w)}}.dump())) == true);
    h.frame(3);
    CHECK(h.state()["page"] == page);
  }
  CHECK(pages == std::set<std::string>{"Replay", "Loss", "Weights"});
}

TEST_CASE("a position's link keeps diagnose's format", "[links]") {
  an::Position w;
  CHECK(links::link_query(w) == "page=Replay");
  CHECK(links::link_flags(w) == "--page Replay");
  CHECK(links::position_json(w) == json({{"page", "Replay"}}));

  w.subject = an::Subject::Call, w.step = 0, w.phase = an::Phase::Forward, w.module = "layer1.0 conv&2";
  w.role = an::Role::Output;  // a role picks no page and is no link key
  CHECK(links::link_query(w) == "page=Replay&step=0&phase=forward&module=layer1.0%20conv%262");
  CHECK(links::position_json(w) ==
        json({{"page", "Replay"}, {"step", 0}, {"phase", "forward"}, {"module", "layer1.0 conv&2"}}));

  an::Position p;
  p.subject = an::Subject::Parameter, p.step = 3, p.phase = an::Phase::Optimizer, p.param = "fc.weight";
  CHECK(links::link_query(p) == "page=Weights&step=3&phase=optimizer&param=fc.weight");
  CHECK(links::link_flags(p) == "--page Weights --step 3 --phase optimizer --param fc.weight");

  an::Position l;
  l.subject = an::Subject::Loss, l.step = 7;  // the loss curve: no phase
  CHECK(links::link_query(l) == "page=Loss&step=7");

  an::Finding f;
  f.kind = "update_ratio", f.where = p, f.where.role = an::Role::Update;
  const json j = links::finding_json(f);
  CHECK(j["link"] == "page=Weights&step=3&phase=optimizer&param=fc.weight");
  CHECK(j["phase"] == "optimizer");
  CHECK(j["subject"] == "parameter");
  CHECK(j["role"] == "update");
  f.where.role.reset();
  CHECK(links::finding_json(f)["role"].is_null());
}
