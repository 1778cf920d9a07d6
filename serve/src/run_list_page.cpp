#include "run_list_page.h"

#include <cctype>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <ctime>

#include <nlohmann/json.hpp>

namespace tvis::serve {

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string url_encode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') {
      out += char(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

namespace {

std::string human_bytes(uint64_t n) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  double v = double(n);
  int u = 0;
  while (v >= 1000 && u < 4) {
    v /= 1000;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

std::string utc_date(int64_t unix_ms) {
  if (unix_ms <= 0) return "";
  const std::time_t t = std::time_t(unix_ms / 1000);
  std::tm tm{};
  if (!gmtime_r(&t, &tm)) return "";
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

// The catalog may come from an agent: every field is read with its type
// checked, and a value of another type reads as absent (never a throw).
std::string str_of(const nlohmann::json& r, const char* key, const std::string& fallback = "") {
  const auto it = r.find(key);
  return it != r.end() && it->is_string() ? it->get<std::string>() : fallback;
}

int64_t int_of(const nlohmann::json& r, const char* key, int64_t fallback = 0) {
  const auto it = r.find(key);
  if (it == r.end() || !it->is_number()) return fallback;
  if (it->is_number_unsigned()) {
    const uint64_t u = it->get<uint64_t>();
    return u > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(u);
  }
  if (it->is_number_integer()) return it->get<int64_t>();
  const double d = it->get<double>();
  return d != d ? fallback : d >= 9.2e18 ? INT64_MAX : d <= -9.2e18 ? INT64_MIN : int64_t(d);
}

bool bool_of(const nlohmann::json& r, const char* key) {
  const auto it = r.find(key);
  return it != r.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace

std::string render_run_list(const std::string& where, const std::string& catalog_json, const std::string& token) {
  return render_run_list_page(where, catalog_json, token).html;
}

RunListPage render_run_list_page(const std::string& where, const std::string& catalog_json, const std::string& token) {
  RunListPage out;
  const nlohmann::json runs = nlohmann::json::parse(catalog_json, nullptr, false);
  std::string rows;
  size_t count = 0;
  std::string newest_url;  // the first listed run's url= value: other runs link a comparison with it
  if (runs.is_array()) {
    for (const auto& r : runs) {
      if (!r.is_object()) continue;
      ++count;
      const std::string path = str_of(r, "path");
      std::string args;
      const auto argv = r.find("argv");
      if (argv != r.end() && argv->is_array())
        for (size_t i = 1; i < argv->size(); ++i)
          if ((*argv)[i].is_string()) args += " " + (*argv)[i].get<std::string>();
      const bool has_error = r.contains("error") && r["error"].is_string();
      const std::string status = has_error ? "unreadable" : bool_of(r, "complete") ? "complete" : "recovered";
      const std::string run_url = url_encode("run/" + path + "?token=" + token);
      std::string href = "viewer.html?url=" + run_url + "&token=" + token;
      // A distributed run: its rank files beside `path`, which the viewer opens with it (rank picker).
      const auto rank_files = r.find("rank_files");
      const int64_t ranks = int_of(r, "ranks", 1);
      if (ranks > 1 && rank_files != r.end() && rank_files->is_array()) {
        std::string names;
        for (const auto& f : *rank_files) {
          if (!f.is_string()) continue;
          const std::string p = f.get<std::string>();
          names += (names.empty() ? "" : ",") + p.substr(p.rfind('/') == std::string::npos ? 0 : p.rfind('/') + 1);
        }
        href += "&rank_files=" + url_encode(names);
      }
      const int64_t size = int_of(r, "size");
      if (count == 1 && !path.empty() && path.find('/') == std::string::npos) out.single_run_href = href;
      rows += "<tr class=\"run\" data-path=\"" + html_escape(path) + "\" data-status=\"" + status + "\" data-ranks=\"" +
              std::to_string(ranks) + "\">";
      rows += "<td><a class=\"open\" href=\"" + html_escape(href) + "\">" + html_escape(str_of(r, "name", path)) + "</a></td>";
      rows += "<td class=\"script\">" + html_escape(str_of(r, "script") + args) + "</td>";
      rows += "<td class=\"steps\">" + std::to_string(int_of(r, "steps")) + "</td>";
      rows += "<td class=\"ranks\">" + (ranks > 1 ? std::to_string(ranks) + " ranks" : std::string("1")) + "</td>";
      rows += "<td class=\"date\">" + html_escape(utc_date(int_of(r, "started_unix_ms"))) + "</td>";
      rows += "<td class=\"size\">" + human_bytes(size < 0 ? 0 : uint64_t(size)) + "</td>";
      rows += "<td class=\"status\">" + status +
              (has_error ? ": " + html_escape(r["error"].get<std::string>()) : std::string()) + "</td>";
      // The viewer's Compare page: the newest run (A) beside this one (B).
      std::string compare;
      if (!newest_url.empty() && ranks < 2 && !has_error)
        compare = "<a class=\"compare\" href=\"" +
                  html_escape("viewer.html?url=" + newest_url + "&url2=" + run_url + "&token=" + token) +
                  "\">compare with newest</a>";
      rows += "<td class=\"compare\">" + compare + "</td></tr>\n";
      if (newest_url.empty() && ranks < 2 && !has_error) newest_url = run_url;
    }
  }
  std::string page =
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><link rel=\"icon\" href=\"data:,\"><title>tvis: " + html_escape(where) +
      "</title>\n<style>body{background:#17191d;color:#e6e8ec;font:14px system-ui,sans-serif;margin:24px}"
      "table{border-collapse:collapse}td,th{padding:4px 12px;text-align:left;border-bottom:1px solid #2b2f36}"
      "a{color:#7fb2ff}.status{color:#9aa3ad}</style></head><body>\n<h1>Runs in " + html_escape(where) + "</h1>\n";
  if (!runs.is_array()) {
    page += "<p id=\"tvis-error\">The run list could not be read.</p>\n";
  } else if (count == 0) {
    page += "<p id=\"tvis-empty\">No runs here yet (a run is a folder holding run.tvis).</p>\n";
  } else {
    page += "<table id=\"tvis-runs\"><thead><tr><th>run</th><th>script</th><th>steps</th><th>ranks</th><th>started</th><th>size</th>"
            "<th>state</th><th></th></tr></thead><tbody>\n" + rows + "</tbody></table>\n";
  }
  if (count != 1) out.single_run_href.clear();
  out.html = page + "</body></html>\n";
  return out;
}

}  // namespace tvis::serve
