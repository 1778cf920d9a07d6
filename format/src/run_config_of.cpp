#include "tvis/format/run_config_of.h"

#include <charconv>
#include <string_view>

namespace tvis::format {
namespace {

/// `text` as a whole number of T into `*out`; `*out` unchanged when it is not one.
template <typename T>
void parse_into(std::string_view text, T* out) {
  T v{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc() && end == text.data() + text.size()) *out = v;
}

}  // namespace

schema::RunConfigT run_config_of(const schema::RunMeta& meta) {
  schema::RunConfigT c;
  if (const auto* stored = meta.config()) {
    stored->UnPackTo(&c);
    return c;
  }
  // A run from before RunConfig: the strings `tvis run` wrote into the options then.
  if (const auto* project = meta.project_dir()) c.project_dir = project->str();
  if (const auto* options = meta.options())
    for (const auto* kv : *options) {
      if (!kv || !kv->key() || !kv->value()) continue;
      const std::string_view k = kv->key()->string_view(), v = kv->value()->string_view();
      if (k == "steps") parse_into(v, &c.steps);
      else if (k == "max_elems") parse_into(v, &c.max_elems);
      else if (k == "samples") parse_into(v, &c.samples);
      else if (k == "max_run_bytes") parse_into(v, &c.max_run_bytes);
      else if (k == "eval_values") c.eval_values = v == "1";
      else if (k == "no_gradcam") c.no_gradcam = v == "1";
      else if (k == "gradcam_true") c.gradcam_true = v == "1";
    }
  return c;
}

}  // namespace tvis::format
