#include "tvis/links/page_link.h"

#include <cctype>

#include "tvis/links/page_names.h"

namespace tvis::links {

namespace an = tvis::analysis;

const char* page_of(an::Subject subject) {
  switch (subject) {  // no default: a Subject without a page here fails the build (-Werror=switch)
    case an::Subject::Run:
    case an::Subject::Call:
    case an::Subject::Batch: return page::kReplay;
    case an::Subject::Loss: return page::kLoss;
    case an::Subject::Parameter:
    case an::Subject::OptimizerStep: return page::kWeights;
  }
  return page::kReplay;  // a value outside the enum
}

PageLink page_link(const an::Position& w) {
  PageLink l;
  l.page = page_of(w.subject);
  l.step = w.step;
  l.phase = an::phase_name(w.phase);
  l.module = w.module;
  l.param = w.param;
  return l;
}

namespace {

std::string query_value(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == ':' || c == '/') out += char(c);
    else out += '%', out += hex[c >> 4], out += hex[c & 15];
  }
  return out;
}

}  // namespace

std::string link_query(const PageLink& l) {
  std::string q = "page=" + query_value(l.page);
  if (l.step >= 0) q += "&step=" + std::to_string(l.step);
  if (!l.phase.empty()) q += "&phase=" + query_value(l.phase);
  if (!l.module.empty()) q += "&module=" + query_value(l.module);
  if (!l.param.empty()) q += "&param=" + query_value(l.param);
  return q;
}

std::string link_flags(const PageLink& l) {
  std::string s = "--page " + l.page;
  if (l.step >= 0) s += " --step " + std::to_string(l.step);
  if (!l.phase.empty()) s += " --phase " + l.phase;
  if (!l.module.empty()) s += " --module " + l.module;
  if (!l.param.empty()) s += " --param " + l.param;
  return s;
}

}  // namespace tvis::links
