// page.h: what a page is to the application. A page is one file that
// defines its PageSpec and one line in page_list.cpp that registers it; it
// owns its state (PageSpec::make_state creates it; the registry keeps it and
// replaces it when another run opens) and reads the model and the shared
// Selection. Nothing outside the page's files names the page or its state:
// its link keys, its extra test-surface keys and the other names it answers
// to are its own hooks below.
//
// The test surface is built from the registry: state()["page"/"pages"] list
// the registered pages, state()["view"] is the shown page's view(), each
// page's state_keys() adds its own keys, and App::command() hands the
// commands it does not know itself ("panel", ...) to the shown page.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tvis::viewer {

struct AppState;

/// A page's own state. Each page derives its state from this; the registry
/// owns it (see page_state()).
struct PageState {
  virtual ~PageState() = default;
};

struct PageSpec {
  const char* name;  // the tab's label, also the name tests use ("Explore")
  /// Draws the page inside its tab (the navigator is above it).
  void (*draw)(AppState& s);
  /// What the page shows, for state()["view"]: an object (keys may be added).
  nlohmann::json (*view)(AppState& s);
  /// A command the application does not handle itself, e.g.
  /// {"panel": "Timeline"}. Returns nullopt-like `null` when the page does not
  /// know it, else the result (true, false, or a value).
  nlohmann::json (*command)(AppState& s, const nlohmann::json& cmd);
  /// The page reads the arrow keys and Space itself (Replay moves its
  /// position): the application's event stepping is off while it is shown,
  /// and {"key": K} goes to the page's command first.
  bool keys = false;
  /// Whether the run has what the page needs (null: always). A page that is
  /// not present has no tab and is left out of state()["pages"] (Insights).
  bool (*present)(AppState& s) = nullptr;
  /// Creates the page's state for the open run (null: the page keeps none).
  std::unique_ptr<PageState> (*make_state)(AppState& s) = nullptr;
  /// Adds the page's own keys to state() (called whether or not a run is
  /// open, so the keys are always there: Insights' `insights`, `insight`).
  void (*state_keys)(AppState& s, nlohmann::json& state) = nullptr;
  /// Writes where the page is as link keys (a rank switch carries them:
  /// Weights' param, show; Loss' backward). Called only while the page's
  /// state belongs to the open run.
  void (*link_position)(AppState& s, nlohmann::json& link) = nullptr;
  /// `name` (a link's or a command's page) is one of the page's own parts:
  /// the page takes it (Insights: Attention, Grad-CAM, Embeddings), asks
  /// to be shown and gets the link's other keys first. False otherwise.
  bool (*claims)(AppState& s, const std::string& name) = nullptr;
  /// A frame's measured time, for pages that count their own (Replay).
  void (*frame_measured)(AppState& s, double ms) = nullptr;
  /// Draws the page's badge on the top bar's run line, after the notices
  /// (Diagnosis: its findings' count, a link to the page).
  void (*top_bar_badge)(AppState& s) = nullptr;
};

/// The pages' states, one per page, each belonging to one open run.
class PageStates {
 public:
  /// The state of `page` for run generation `run`: created by make_state on
  /// first use and again when `run` changed.
  PageState& get(AppState& s, const PageSpec& page, uint64_t run);
  /// The state of `page` when it exists for `run`, else nullptr (creates nothing).
  PageState* find(const PageSpec& page, uint64_t run) const;

 private:
  struct Entry {
    uint64_t run = 0;
    std::unique_ptr<PageState> state;
  };
  std::map<const PageSpec*, Entry> entries_;
};

/// Every page, in tab order (page_list.cpp).
const std::vector<const PageSpec*>& registered_pages();
/// The page named `name`, or nullptr.
const PageSpec* page_named(const std::string& name);
/// The page `claims` `name` (see PageSpec::claims), or nullptr.
const PageSpec* page_claiming(AppState& s, const std::string& name);
/// The state of `page` for the open run (created when absent or stale).
template <typename State>
State& page_state(AppState& s, const PageSpec& page);
/// The state of `page` for the open run, or nullptr when it was not made yet.
template <typename State>
State* existing_page_state(AppState& s, const PageSpec& page);
/// The page is shown for this run (its `present` says so, or it has none).
bool page_present(AppState& s, const PageSpec& page);
/// The run records training steps: it is open and not a profile capture (a
/// `tvis graph` run, one ProfileCapture chunk and no steps). Replay, Loss,
/// Weights and Explore, and the step navigator, are shown only for these.
bool training_run(AppState& s);

}  // namespace tvis::viewer
