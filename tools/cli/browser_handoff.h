// browser_handoff.h: giving the browser a URL that carries the server's
// token without putting the token on a command line (where `ps` shows it to
// every user of the machine). The URL is written into a small HTML page that
// redirects to it, in a folder only this user can read (mode 0700, created
// fresh: never a path someone else made), and the browser is started on the
// page's path instead.
//
// Contracts:
//   - The page exists from construction until the handoff is destroyed (the
//     end of the serving session, so a browser that starts slowly still
//     finds it); destruction removes the page and its folder.
//   - ok() false: nothing was written; error() says why in one line. The
//     caller then must not hand the URL over another way.
#pragma once

#include <string>

namespace tvis::cli {

class BrowserHandoff {
 public:
  explicit BrowserHandoff(const std::string& url);
  ~BrowserHandoff();
  BrowserHandoff(const BrowserHandoff&) = delete;
  BrowserHandoff& operator=(const BrowserHandoff&) = delete;

  bool ok() const { return !page_.empty(); }
  /// The page's absolute path: what the browser is started on.
  const std::string& page() const { return page_; }
  const std::string& error() const { return error_; }

 private:
  std::string folder_, page_, error_;
};

}  // namespace tvis::cli
