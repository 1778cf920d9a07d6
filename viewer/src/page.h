// page.h: what a page is to the application. A page is one file that
// defines its PageSpec and one line in page_list.cpp that registers it; it
// owns its state (kept in AppState, replaced when another run opens) and
// reads the model and the shared Selection.
//
// The test surface is built from the registry: state()["page"/"pages"] list
// the registered pages, state()["view"] is the shown page's view(), and
// App::command() hands the commands it does not know itself ("panel", ...)
// to the shown page.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tvis::viewer {

struct AppState;

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
};

/// Every page, in tab order (page_list.cpp).
const std::vector<const PageSpec*>& registered_pages();
/// The page named `name`, or nullptr.
const PageSpec* page_named(const std::string& name);
/// The page is shown for this run (its `present` says so, or it has none).
bool page_present(AppState& s, const PageSpec& page);
/// The run records training steps: it is open and not a profile capture (a
/// `tvis graph` run, one ProfileCapture chunk and no steps). Replay, Loss,
/// Weights and Explore, and the step navigator, are shown only for these.
bool training_run(AppState& s);

}  // namespace tvis::viewer
