// run_list_page.h: the HTML page `tvis open` shows first: the runs of the
// store, newest first (script and arguments, steps, start date, size,
// complete / recovered / unreadable), each a link into the viewer.
#pragma once

#include <string>

namespace tvis::serve {

/// The page for `catalog_json` (run_catalog.h) of the runs at `where`.
/// Each run's link is viewer.html?url=run/<path>?token=T (token in both).
std::string render_run_list(const std::string& where, const std::string& catalog_json, const std::string& token);

/// The run list page and, when the store serves one run (a run file, or a
/// run folder: a single run or one launch's rank files, so the catalog is
/// one entry whose path has no folder), that run's viewer link
/// (viewer.html?url=...&token=T[&rank_files=...]); "" otherwise.
struct RunListPage {
  std::string html;
  std::string single_run_href;
};
RunListPage render_run_list_page(const std::string& where, const std::string& catalog_json, const std::string& token);

/// `s` with &, <, >, " and ' escaped for HTML text and attributes.
std::string html_escape(const std::string& s);
/// `s` percent-encoded for a URL query value.
std::string url_encode(const std::string& s);

}  // namespace tvis::serve
