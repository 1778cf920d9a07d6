#include "tvis/profiles/input_declaration.h"

#include <cctype>
#include <regex>

namespace tvis::profiles {

namespace {

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t at = 0;
  while (true) {
    const size_t i = s.find(sep, at);
    out.push_back(s.substr(at, i == std::string::npos ? std::string::npos : i - at));
    if (i == std::string::npos) return out;
    at = i + 1;
  }
}

ParsedDeclaration bad(const std::string& why) {
  ParsedDeclaration d;
  d.error = why;
  return d;
}

// Where a declaration comment stands relative to `cls`: inside it, directly above it, or neither.
bool belongs_to(const DeclarationComment& d, const ClassFacts& cls) {
  if (d.line >= cls.first_line && d.line <= cls.end_line) return true;
  return d.comment_only && d.line >= cls.above_start && d.line < cls.first_line;
}

const ClassFacts* owner_of(const DeclarationComment& d, const FileFacts& file) {
  for (const auto& c : file.classes)
    if (belongs_to(d, c)) return &c;
  return nullptr;
}

std::string shapes_text(const std::vector<std::vector<int64_t>>& shapes) {
  std::string out;
  for (size_t t = 0; t < shapes.size(); ++t) {
    if (t) out += ";";
    for (size_t i = 0; i < shapes[t].size(); ++i) out += (i ? "," : "") + std::to_string(shapes[t][i]);
  }
  return out;
}

// Why `n` positional tensors cannot be bound to `forward` (self excluded), or "".
std::string count_mismatch(size_t n, const Signature& forward) {
  size_t required = 0, positional = 0;
  bool variadic = false;
  std::string kwonly;
  for (size_t i = 0; i < forward.params.size(); ++i) {
    const Param& p = forward.params[i];
    if (i == 0 && (p.kind == "pos" || p.kind == "posonly")) continue;  // self
    if (p.kind == "pos" || p.kind == "posonly") {
      ++positional;
      if (!p.has_default) ++required;
    } else if (p.kind == "vararg") {
      variadic = true;
    } else if (p.kind == "kwonly" && !p.has_default) {
      kwonly += (kwonly.empty() ? "" : ", ") + p.name;
    }
  }
  const std::string sig = forward.text();
  if (!kwonly.empty())
    return sig + " requires keyword-only " + kwonly + "; a declaration supplies positional tensors only";
  if (n < required || (!variadic && n > positional))
    return std::to_string(n) + " declared tensor" + (n == 1 ? "" : "s") + " for " + sig + ", which takes " +
           (variadic ? "at least " + std::to_string(required)
                     : required == positional ? std::to_string(required)
                                              : std::to_string(required) + " to " + std::to_string(positional)) +
           " positional input" + (positional == 1 && !variadic ? "" : "s");
  return "";
}

}  // namespace

std::string ClassDeclaration::spec() const { return "input=" + shapes_text(shapes); }

ParsedDeclaration parse_declaration(const std::string& comment) {
  static const std::regex head(R"(^#\s*tensorviz\s*:\s*)");
  std::smatch m;
  if (!std::regex_search(comment, m, head)) return bad("not a tensorviz comment");
  const std::string body = trim(comment.substr(m.length(0)));
  static const std::regex input(R"(^input\s*=\s*(.*)$)");
  std::smatch im;
  if (!std::regex_match(body, im, input))
    return bad("'" + body + "' is not a declaration tvis reads (only input=DIMS;DIMS, e.g. input=2,8;2,8)");
  const std::string spec = trim(im[1].str());
  const std::string unsupported = "unsupported expression 'input=" + spec +
                                  "': dims are positive integers, ',' between dims and ';' between tensors "
                                  "(nothing is evaluated; use tensorviz.toml for other inputs)";
  if (spec.empty()) return bad(unsupported);
  ParsedDeclaration d;
  int64_t total = 0;
  for (const std::string& tensor : split(spec, ';')) {
    std::vector<int64_t> shape;
    for (const std::string& raw : split(tensor, ',')) {
      const std::string dim = trim(raw);
      if (dim.empty() || dim.size() > 9) return bad(dim.size() > 9 ? "dimension " + dim + " is too large" : unsupported);
      for (char c : dim)
        if (!std::isdigit(static_cast<unsigned char>(c))) return bad(unsupported);
      const int64_t v = std::stoll(dim);
      if (v <= 0) return bad("dimension " + dim + " in 'input=" + spec + "' is not positive");
      shape.push_back(v);
    }
    if (shape.size() > kMaxDeclaredDims)
      return bad("a tensor of " + std::to_string(shape.size()) + " dims, more than " + std::to_string(kMaxDeclaredDims));
    int64_t elements = 1;
    for (int64_t v : shape) elements = elements > kMaxDeclaredElements / v ? kMaxDeclaredElements + 1 : elements * v;
    total += elements;
    if (total > kMaxDeclaredElements)
      return bad("'input=" + spec + "' declares more than " + std::to_string(kMaxDeclaredElements) + " elements");
    d.shapes.push_back(shape);
  }
  if (d.shapes.size() > kMaxDeclaredTensors)
    return bad(std::to_string(d.shapes.size()) + " tensors, more than " + std::to_string(kMaxDeclaredTensors));
  d.ok = true;
  return d;
}

ClassDeclaration declaration_for(const FileFacts& file, const ClassFacts& cls,
                                 const std::vector<const ClassFacts*>& model_classes,
                                 const std::optional<Signature>& forward) {
  ClassDeclaration out;
  std::vector<std::string> specs;
  for (const auto& d : file.declarations) {
    const ClassFacts* owner = owner_of(d, file);
    const bool mine = owner == &cls || (!owner && model_classes.size() == 1 && model_classes[0] == &cls);
    if (!mine) continue;
    out.lines.push_back(d.line);
    const ParsedDeclaration p = parse_declaration(d.text);
    if (!p.ok) {
      out.error = "line " + std::to_string(d.line) + ": " + p.error + "; explicit setup is needed";
      return out;
    }
    const std::string spec = shapes_text(p.shapes);
    if (!specs.empty() && spec != specs.front()) {
      out.error = "conflicting declarations input=" + specs.front() + " (line " + std::to_string(out.lines.front()) +
                  ") and input=" + spec + " (line " + std::to_string(d.line) + "); keep one, or use tensorviz.toml";
      return out;
    }
    if (specs.empty()) out.shapes = p.shapes;
    specs.push_back(spec);
  }
  if (specs.empty()) return out;
  if (forward && !forward->assigned) {
    const std::string why = count_mismatch(out.shapes.size(), *forward);
    if (!why.empty()) {
      out.error = why + "; explicit setup is needed";
      return out;
    }
  }
  out.ok = true;
  return out;
}

std::vector<std::string> unowned_declarations(const FileFacts& file,
                                              const std::vector<const ClassFacts*>& model_classes) {
  std::vector<std::string> out;
  for (const auto& d : file.declarations) {
    const ClassFacts* owner = owner_of(d, file);
    const std::string where = (file.rel.empty() ? file.path : file.rel) + ":" + std::to_string(d.line);
    if (owner) {
      bool is_model = false;
      for (const auto* m : model_classes) is_model = is_model || m == owner;
      if (!is_model) out.push_back(where + ": declaration belongs to " + owner->name + ", which is not a model class");
    } else if (model_classes.size() != 1) {
      out.push_back(where + ": declaration applies to no class: the file has " + std::to_string(model_classes.size()) +
                    " model classes; move it into or directly above the intended class");
    }
  }
  return out;
}

}  // namespace tvis::profiles
