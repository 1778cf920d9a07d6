#include <catch2/catch.hpp>

#include "python_discovery.h"

using namespace tvis::cli;

TEST_CASE("candidates: $TVIS_PYTHON, beside tvis, PATH in order, /usr/bin/python3") {
  const PythonSearch s{"/venv/bin/python", "/opt/tvis/bin", "/a::/b:"};
  const std::vector<std::string> want = {"/venv/bin/python", "/opt/tvis/bin/python3", "/a/python3", "/b/python3",
                                         "/usr/bin/python3"};
  CHECK(python_candidates(s) == want);
}

TEST_CASE("candidates: the build's own interpreter right after $TVIS_PYTHON") {
  const PythonSearch s{"/venv/bin/python", "/opt/tvis/bin", "/a", "/src/build/venv/bin/python"};
  const std::vector<std::string> want = {"/venv/bin/python", "/src/build/venv/bin/python", "/opt/tvis/bin/python3",
                                         "/a/python3", "/usr/bin/python3"};
  CHECK(python_candidates(s) == want);
}

TEST_CASE("candidates without environment: only /usr/bin/python3") {
  CHECK(python_candidates(PythonSearch{}) == std::vector<std::string>{"/usr/bin/python3"});
}

TEST_CASE("an explicit --python that does not exist is no guess") {
  CHECK(likely_python("/nonexistent/python3", PythonSearch{}).empty());
}

TEST_CASE("likely_python skips scripts and takes the first binary") {
  const PythonSearch s{"/nonexistent/python", "", "/bin"};
  // /bin/python3 may or may not exist; the guess is never the missing $TVIS_PYTHON.
  CHECK(likely_python("", s) != "/nonexistent/python");
}
