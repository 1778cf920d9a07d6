// page_list.cpp: the registry. A new page adds its file and one line here.
#include "page.h"

#include "app_state.h"

namespace tvis::viewer {

extern const PageSpec kGraphPage;    // pages/graph_page.cpp (only for profile captures; first: their default page)
extern const PageSpec kReplayPage;   // pages/replay_page.cpp (first of a training run: its default page)
extern const PageSpec kExplorePage;  // pages/explore_page.cpp
extern const PageSpec kLossPage;     // pages/loss_page.cpp
extern const PageSpec kWeightsPage;  // pages/weights_page.cpp
extern const PageSpec kInsightsPage; // pages/insights_page.cpp (only when the run has insights)
extern const PageSpec kDiagnosisPage; // pages/diagnosis_page.cpp (diagnose's findings)
extern const PageSpec kComparePage;   // pages/compare_page.cpp (only while a second run is compared)

const std::vector<const PageSpec*>& registered_pages() {
  static const std::vector<const PageSpec*> pages = {
      &kGraphPage,
      &kReplayPage,
      &kLossPage,
      &kWeightsPage,
      &kInsightsPage,
      &kExplorePage,
      &kDiagnosisPage,
      &kComparePage,
  };
  return pages;
}

const PageSpec* page_named(const std::string& name) {
  for (const PageSpec* page : registered_pages())
    if (name == page->name) return page;
  return nullptr;
}

const PageSpec* page_claiming(AppState& s, const std::string& name) {
  for (const PageSpec* page : registered_pages())
    if (page->claims && page->claims(s, name)) return page;
  return nullptr;
}

PageState& PageStates::get(AppState& s, const PageSpec& page, uint64_t run) {
  Entry& e = entries_[&page];
  if (!e.state || e.run != run) {
    e.state.reset();  // the old run's state goes first (its textures, its caches)
    e.state = page.make_state(s);
    e.run = run;
  }
  return *e.state;
}

PageState* PageStates::find(const PageSpec& page, uint64_t run) const {
  auto it = entries_.find(&page);
  return it != entries_.end() && it->second.run == run ? it->second.state.get() : nullptr;
}

bool page_present(AppState& s, const PageSpec& page) { return !page.present || page.present(s); }

bool training_run(AppState& s) {
  return s.model.status() == RunStatus::Open && !s.model.profile_capture().present();
}

}  // namespace tvis::viewer
