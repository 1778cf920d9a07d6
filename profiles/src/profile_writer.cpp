#include "tvis/profiles/profile_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace tvis::profiles {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kBegin = "# tvis:generated profile ";
const std::string kBeginTail = " \xE2\x80\x94 the setup form rewrites this block";  // " — ..."
const std::string kEnd = "# tvis:end generated profile ";

struct Line {
  size_t begin, end;  // end: past the line ending
  std::string body;   // without the line ending
};

std::vector<Line> lines_of(const std::string& text) {
  std::vector<Line> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    const size_t end = nl == std::string::npos ? text.size() : nl + 1;
    std::string body = text.substr(at, (nl == std::string::npos ? text.size() : nl) - at);
    if (!body.empty() && body.back() == '\r') body.pop_back();
    out.push_back({at, end, std::move(body)});
    at = end;
  }
  return out;
}

// The NAME of a marker line `PREFIX NAME[ ...]`, or "".
std::string marker_name(const std::string& body, const std::string& prefix) {
  if (body.rfind(prefix, 0) != 0) return "";
  const std::string rest = body.substr(prefix.size());
  const std::string name = rest.substr(0, rest.find(' '));
  return valid_profile_name(name) ? name : "";
}

std::string eol_of(const std::string& text) { return text.find("\r\n") != std::string::npos ? "\r\n" : "\n"; }

bool bare_key(const std::string& k) {
  if (k.empty()) return false;
  for (unsigned char c : k)
    if (!(std::isalnum(c) || c == '_' || c == '-')) return false;
  return true;
}

std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += char(c);
        }
    }
  }
  return out + "\"";
}

std::string toml_key(const std::string& k) { return bare_key(k) ? k : toml_string(k); }

}  // namespace

std::string toml_inline_value(const json& v) {
  switch (v.type()) {
    case json::value_t::string: return toml_string(v.get<std::string>());
    case json::value_t::boolean: return v.get<bool>() ? "true" : "false";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return v.dump();
    case json::value_t::number_float: {
      std::string s = v.dump();  // shortest round trip; a TOML float needs a '.' or an exponent
      if (s.find_first_of(".eE") == std::string::npos) s += ".0";
      return s;
    }
    case json::value_t::array: {
      std::string out = "[";
      for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + toml_inline_value(v[i]);
      return out + "]";
    }
    case json::value_t::object: {
      if (v.empty()) return "{}";
      std::string out = "{ ";
      bool first = true;
      for (const auto& [k, x] : v.items()) {
        out += (first ? "" : ", ") + toml_key(k) + " = " + toml_inline_value(x);
        first = false;
      }
      return out + " }";
    }
    default: return "\"\"";
  }
}

namespace {

bool read_text(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return !in.bad();
}

}  // namespace

bool valid_profile_name(const std::string& name) { return !name.empty() && name.size() <= 64 && bare_key(name); }

std::vector<GeneratedBlock> find_generated_blocks(const std::string& text) {
  std::vector<GeneratedBlock> out;
  const auto lines = lines_of(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string name = marker_name(lines[i].body, kBegin);
    if (name.empty()) continue;
    for (size_t j = i + 1; j < lines.size(); ++j) {
      if (!marker_name(lines[j].body, kBegin).empty()) break;  // another begin first: this one is unterminated
      if (marker_name(lines[j].body, kEnd) == name) {
        out.push_back({name, lines[i].begin, lines[j].end});
        i = j;
        break;
      }
    }
  }
  return out;
}

std::string setup_profile_name(const std::string& text, const Config& config, const std::string& wanted) {
  const auto blocks = find_generated_blocks(text);
  auto usable = [&](const std::string& n) {
    for (const auto& b : blocks)
      if (b.name == n) return true;
    return config.find(n) == nullptr && text.find("[profiles." + n + "]") == std::string::npos &&
           text.find("[profiles." + n + ".") == std::string::npos;
  };
  if (usable(wanted)) return wanted;
  for (int k = 1;; ++k) {
    const std::string n = wanted + "_setup" + (k == 1 ? "" : std::to_string(k));
    if (usable(n)) return n;
  }
}

std::string render_generated_block(const std::string& name, const json& profile, const std::string& eol) {
  std::string out = kBegin + name + kBeginTail + eol;
  out += "[profiles." + name + "]" + eol;
  auto line = [&](const std::string& key, const json& v) { out += toml_key(key) + " = " + toml_inline_value(v) + eol; };
  line("kind", "model");
  // The fixed order of the form's fields; anything else the caller put in follows.
  const std::vector<std::string> order = {"framework", "model", "mode", "device", "grad_enabled", "seed", "deterministic", "cwd",
                                          "limits", "init", "factory", "inputs"};
  for (const auto& k : order)
    if (profile.contains(k) && !profile[k].is_null()) line(k, profile[k]);
  for (const auto& [k, v] : profile.items()) {
    bool listed = k == "kind";
    for (const auto& o : order) listed = listed || o == k;
    if (!listed && !v.is_null()) line(k, v);
  }
  out += kEnd + name + eol;
  return out;
}

std::string splice_generated_profile(const std::string& text, const std::string& name, const json& profile) {
  const std::string eol = text.empty() ? "\n" : eol_of(text);
  const std::string block = render_generated_block(name, profile, eol);
  for (const auto& b : find_generated_blocks(text))
    if (b.name == name) return text.substr(0, b.begin) + block + text.substr(b.end);
  if (text.empty()) return "version = 1" + eol + eol + block;
  std::string out = text;
  if (out.back() != '\n') out += eol;
  return out + eol + block;
}

namespace {

// Where the save writes: `path` itself, or the file its link leads to when that file is inside the workspace.
// A link leading outside is refused (rather than written through, or replaced by a plain file): the
// workspace is outside input (a cloned repository), and its tensorviz.toml must never aim the save at one of
// the user's files elsewhere (~/.bashrc); a link inside it (a config kept in a subfolder) is the project's own
// layout and keeps working. Every link on the way is resolved, so the rename below replaces a real path.
bool save_target(const std::string& path, const std::string& root, fs::path* target, std::string* error) {
  std::error_code ec;
  *target = path;
  if (!fs::is_symlink(*target, ec)) return true;
  // Followed link by link (weakly_canonical alone stops at a dangling link and would call it inside).
  fs::path resolved = *target;
  for (int hops = 0; !ec && fs::is_symlink(resolved, ec) && hops < 40; ++hops) {
    const fs::path to = fs::read_symlink(resolved, ec);
    resolved = to.is_absolute() ? to : resolved.parent_path() / to;
  }
  if (!ec && fs::is_symlink(resolved, ec)) ec = std::make_error_code(std::errc::too_many_symbolic_link_levels);
  if (!ec) resolved = fs::weakly_canonical(resolved, ec);
  std::error_code root_ec;
  const fs::path workspace = fs::weakly_canonical(root, root_ec);
  const std::string r = resolved.string(), w = workspace.string();
  if (ec || root_ec || r.rfind(w == "/" ? w : w + "/", 0) != 0) {
    *error = path + " is a symbolic link to " + (ec ? std::string("a path that cannot be resolved") : r) +
             ", outside the workspace " + root + ": not written (replace the link with the file)";
    return false;
  }
  *target = resolved;
  return true;
}

// write(2) all of `text`, retried on EINTR.
bool write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// Creates a new temporary file beside `target` (O_CREAT | O_EXCL | O_NOFOLLOW: never an existing file, never
// through a link planted under a guessed name) holding `text`, with the permission bits `mode` exactly, or
// (`mode` < 0) those of a new file the user creates (0666 less the umask); its path, or "" with `error`.
std::string write_temporary(const fs::path& target, const std::string& text, int mode, std::string* error) {
  std::random_device random;
  for (int attempt = 0; attempt < 100; ++attempt) {
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, ".tvis-save-%d-%08x", static_cast<int>(::getpid()), random());
    const std::string tmp = target.string() + suffix;
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode < 0 ? 0666 : 0600);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) return *error = "cannot create " + tmp + ": " + std::strerror(errno), "";
    const bool ok = write_all(fd, text) && (mode < 0 || ::fchmod(fd, static_cast<mode_t>(mode)) == 0) && ::fsync(fd) == 0;
    const int saved = errno;
    if (::close(fd) != 0 || !ok) {
      ::unlink(tmp.c_str());
      return *error = "cannot write " + tmp + ": " + std::strerror(ok ? errno : saved), "";
    }
    return tmp;
  }
  return *error = "cannot create a temporary file beside " + target.string() + ": every name tried exists", "";
}

}  // namespace

ProfileWrite plan_generated_profile(const std::string& path, const std::string& root, const std::string& wanted,
                                    const json& profile, std::string* text_out, std::string* target_out) {
  ProfileWrite w;
  if (!valid_profile_name(wanted)) {
    w.error = "'" + wanted + "' is not a profile name: 1 to 64 letters, digits, '_' or '-'";
    return w;
  }
  std::error_code ec;
  fs::path target;
  if (!save_target(path, root, &target, &w.error)) return w;
  std::string old;
  w.created = !fs::exists(target, ec);
  if (!w.created && (fs::is_directory(target, ec) || !read_text(target.string(), &old))) {
    w.error = path + " cannot be read";
    return w;
  }
  const Config before = parse_config(old, path, root);
  w.name = setup_profile_name(old, before, wanted);
  for (const auto& b : find_generated_blocks(old)) w.replaced = w.replaced || b.name == w.name;
  const std::string text = splice_generated_profile(old, w.name, profile);
  const Config after = parse_config(text, path, root);
  if (!after.valid()) {
    w.problems = after.all_problems();
    return w;
  }
  *text_out = text;
  *target_out = target.string();
  w.ok = true;
  return w;
}

ProfileWrite write_generated_profile(const std::string& path, const std::string& root, const std::string& wanted,
                                     const json& profile) {
  std::string text, target_path;
  ProfileWrite w = plan_generated_profile(path, root, wanted, profile, &text, &target_path);
  if (!w.ok) return w;
  w.ok = false;
  const fs::path target = target_path;
  struct stat st {};
  int mode = -1;  // a new file: as any file the user creates; an existing one keeps its permission bits
  if (!w.created && ::stat(target.c_str(), &st) == 0) mode = static_cast<int>(st.st_mode & 07777);
  const std::string tmp = write_temporary(target, text, mode, &w.error);
  if (tmp.empty()) return w;
  // rename(2) is atomic: a reader sees the old file or the new one, never a part.
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    w.error = "cannot replace " + path + ": " + std::strerror(errno);
    ::unlink(tmp.c_str());
    return w;
  }
  w.ok = true;
  return w;
}

}  // namespace tvis::profiles
