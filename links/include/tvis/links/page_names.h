// page_names.h: the viewer's page names, in one place. The page registry
// (viewer/src/pages/*_page.cpp: PageSpec::name) and page_link.h's mapping
// both use these constants, so renaming a page renames every link to it; a
// test (tests/viewer/test_page_links.cpp) holds the registry to this list.
// The names are also the `page` of a link (`?page=Loss`, `--page Loss`) and
// of the test surface's state(): part of the documented interface
// (docs/viewer_test_surface.md), changed only with the docs.
#pragma once

namespace tvis::links::page {

inline constexpr char kGraph[] = "Graph";
inline constexpr char kReplay[] = "Replay";
inline constexpr char kLoss[] = "Loss";
inline constexpr char kWeights[] = "Weights";
inline constexpr char kInsights[] = "Insights";
inline constexpr char kExplore[] = "Explore";
inline constexpr char kDiagnosis[] = "Diagnosis";
inline constexpr char kCompare[] = "Compare";

/// Every page name above, in the registry's order.
inline constexpr const char* kAll[] = {kGraph, kReplay, kLoss, kWeights, kInsights, kExplore, kDiagnosis, kCompare};

}  // namespace tvis::links::page
