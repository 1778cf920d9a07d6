// A language model's tokens on the Loss page by their text: where the
// recorder found the script's vocabulary (itos, stoi, ...: the vocabulary
// capture) it labelled each embedding table's rows (EmbeddingTableRecord
// labels: row i is token id i) and each followed sample's attention tokens
// (AttentionRecord tokens / token_labels). A token with no text found is shown
// by its id. Kept in LossState once the insight records are all indexed.
#include "loss_state.h"
#include "tvis/viewer_model/insights.h"

namespace tvis::viewer {

const std::map<int64_t, std::string>& token_names(AppState& s, LossState& l) {
  if (l.token_names_complete) return l.token_names;
  Insights& in = s.model.insights();
  const bool complete = in.ready();
  l.token_names.clear();
  for (const EmbeddingTableEntry& t : in.tables())
    for (size_t i = 0; i < t.labels.size(); ++i)
      if (!t.labels[i].empty()) l.token_names.emplace(static_cast<int64_t>(i), t.labels[i]);
  for (const AttentionEntry& e : in.attention())
    for (size_t i = 0; i < e.tokens.size() && i < e.labels.size(); ++i)
      if (!e.labels[i].empty()) l.token_names.emplace(e.tokens[i], e.labels[i]);
  l.token_names_complete = complete;
  return l.token_names;
}

std::string token_text(const std::map<int64_t, std::string>& names, int64_t id) {
  auto it = names.find(id);
  if (it == names.end()) return std::to_string(id);
  std::string out;
  for (char c : it->second) {  // whitespace made visible (the UI font has no visible-space glyph)
    if (c == ' ') out += '_';
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else out += c;
  }
  return out.empty() ? std::to_string(id) : out;
}

}  // namespace tvis::viewer
