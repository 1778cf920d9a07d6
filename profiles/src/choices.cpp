#include "tvis/profiles/choices.h"

#include <filesystem>
#include <fstream>

#include <toml++/toml.h>

namespace tvis::profiles {

namespace fs = std::filesystem;

Choices load_choices(const std::string& root) {
  Choices c;
  const std::string path = root + "/" + kChoicesName;
  std::error_code ec;
  if (fs::symlink_status(path, ec).type() == fs::file_type::not_found) return c;
  if (!fs::is_regular_file(path, ec)) {
    c.error = path + " is not a regular file";
    return c;
  }
  try {
    const toml::table doc = toml::parse_file(path);
    for (const auto& [k, v] : doc) {
      if (k.str() == "python") {
        auto s = v.value<std::string>();
        if (!v.is_string() || !s || s->empty()) {
          c.error = path + ": python must be the path of an interpreter (a non-empty string)";
          return c;
        }
        c.python = *s;
        continue;
      }
      if (k.str() != "choices" || !v.is_table()) {
        c.error = path + ": unknown key '" + std::string(k.str()) + "' (expected python or a [choices] table)";
        return c;
      }
      for (const auto& [cls, name] : *v.as_table()) {
        auto s = name.value<std::string>();
        if (!s) {
          c.error = path + ": choices.\"" + std::string(cls.str()) + "\" must be a profile name (a string)";
          return c;
        }
        c.by_class[std::string(cls.str())] = *s;
      }
    }
  } catch (const toml::parse_error& e) {
    c.error = path + ":" + std::to_string(e.source().begin.line) + ": malformed TOML: " + std::string(e.description());
  }
  return c;
}

namespace {

// Writes `c` whole (through a temporary file and a rename).
std::string save_choices(const std::string& root, const Choices& c) {
  toml::table choices;
  for (const auto& [k, v] : c.by_class) choices.insert(k, v);
  toml::table doc;
  if (!c.python.empty()) doc.insert("python", c.python);
  doc.insert("choices", choices);
  const std::string path = root + "/" + kChoicesName, tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << "# tvis: the interpreter and the profile per model class chosen for this workspace (safe to delete)\n" << doc << "\n";
    if (!out) return "cannot write " + tmp;
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  return ec ? "cannot write " + path + ": " + ec.message() : "";
}

}  // namespace

std::string remember_choice(const std::string& root, const std::string& class_ref, const std::string& profile) {
  Choices c = load_choices(root);
  if (!c.error.empty()) return c.error;
  c.by_class[class_ref] = profile;
  return save_choices(root, c);
}

std::string remember_python(const std::string& root, const std::string& python) {
  Choices c = load_choices(root);
  if (!c.error.empty()) return c.error;
  c.python = python;
  return save_choices(root, c);
}

}  // namespace tvis::profiles
