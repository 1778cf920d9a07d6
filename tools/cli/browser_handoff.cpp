// browser_handoff.cpp: the private redirect page (browser_handoff.h).
#include "browser_handoff.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "tvis/remote/frame_io.h"

namespace tvis::cli {

namespace {

// The URL as an HTML attribute value.
std::string escaped(const std::string& url) {
  std::string out;
  for (char c : url) {
    if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '\'' || c == '\\') out += "&#" + std::to_string(static_cast<int>(c)) + ";";
    else out += c;
  }
  return out;
}

std::string page_text(const std::string& url) {
  const std::string u = escaped(url);
  return "<!doctype html><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0;url=" + u +
         "\"><title>tvis</title><a href=\"" + u + "\">Open tvis</a>\n";
}

}  // namespace

BrowserHandoff::BrowserHandoff(const std::string& url) {
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  std::string base = runtime && runtime[0] == '/' ? runtime : "/tmp";
  std::string tmpl = base + "/tvis-browser-XXXXXX";
  if (!::mkdtemp(tmpl.data())) {  // a fresh folder, mode 0700
    error_ = "cannot make a private folder in " + base + ": " + std::strerror(errno);
    return;
  }
  folder_ = tmpl;
  const std::string page = folder_ + "/open.html";
  const int fd = ::open(page.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0 || !remote::write_all(fd, page_text(url))) {
    error_ = "cannot write " + page + ": " + std::strerror(errno);
    if (fd >= 0) ::close(fd), ::unlink(page.c_str());
    return;
  }
  ::close(fd);
  page_ = page;
}

BrowserHandoff::~BrowserHandoff() {
  if (!page_.empty()) ::unlink(page_.c_str());
  if (!folder_.empty()) ::rmdir(folder_.c_str());
}

}  // namespace tvis::cli
