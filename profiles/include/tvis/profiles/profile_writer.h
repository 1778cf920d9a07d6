// profile_writer.h: the setup form's way of saving a profile into
// tensorviz.toml (docs/profiles.md "The setup form"). The file is never
// re-serialised: its text is spliced. A profile the form wrote is one marked
// block,
//
//   # tvis:generated profile NAME — the setup form rewrites this block
//   [profiles.NAME]
//   ...
//   # tvis:end generated profile NAME
//
// which a later save of NAME replaces in place; every byte outside the
// generated blocks (comments, spacing, CRLF, hand-written profiles) stays as
// it was. A hand-written profile is never rewritten: saving under its name
// writes NAME_setup (NAME_setup2, ... when taken) instead. A new block is
// appended after one blank line; a missing file is created with
// `version = 1`. The result is parsed with parse_config() before it replaces
// the file (a temporary file beside it, then rename), so a save that would
// make the file invalid leaves the old bytes untouched and says why.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tvis/profiles/config.h"

namespace tvis::profiles {

/// One marked block of `text`: bytes [begin, end) from the first byte of its
/// begin line through the end of its end line (its line ending included).
struct GeneratedBlock {
  std::string name;
  size_t begin = 0, end = 0;
};

/// The complete blocks in `text`, in order. A begin line without its end
/// line (or the reverse) marks nothing: that profile counts as hand-written.
std::vector<GeneratedBlock> find_generated_blocks(const std::string& text);

/// Whether `name` is a valid profile name for the form: 1..64 of
/// [A-Za-z0-9_-] (a bare TOML key).
bool valid_profile_name(const std::string& name);

/// The name a save of `wanted` writes to: `wanted` itself when it is free or
/// a generated block of `text`; else (a hand-written profile of that name)
/// `wanted_setup`, `wanted_setup2`, ... the first that is free or generated.
std::string setup_profile_name(const std::string& text, const Config& config, const std::string& wanted);

/// A JSON value as a TOML inline value: strings escaped, floats with a '.'
/// or an exponent, arrays `[a, b]`, objects `{ k = v }` (keys quoted unless
/// bare). JSON null has no TOML form: it is written as the empty string "".
std::string toml_inline_value(const nlohmann::json& v);

/// The block text of profile `name` (`eol` ends every line). `profile` holds
/// the fields as config.h names them: model, mode, device, grad_enabled,
/// optional seed, limits {timeout_ms, max_capture_bytes}, init {args,
/// kwargs} or factory {file, callable, kwargs}, inputs {args, kwargs} or
/// {factory}. Values are written as TOML inline values; `kind = "model"`.
std::string render_generated_block(const std::string& name, const nlohmann::json& profile, const std::string& eol);

/// `text` with profile `name`'s block replaced, or appended when it has none.
/// `text` "" (no file) becomes `version = 1` and the block.
std::string splice_generated_profile(const std::string& text, const std::string& name, const nlohmann::json& profile);

struct ProfileWrite {
  bool ok = false;
  std::string name;     // the profile written (setup_profile_name of the wanted one)
  bool created = false;   // the file did not exist
  bool replaced = false;  // an existing generated block was updated
  std::string error;      // a file that cannot be read or written
  std::vector<Problem> problems;  // the spliced file is invalid: nothing was written
};

/// Saves `profile` as `wanted` (see setup_profile_name) into the
/// tensorviz.toml at `path` of workspace `root`: splice, parse_config, then
/// write a new temporary file beside it (created with O_EXCL | O_NOFOLLOW
/// under an unguessable name, so a link planted there is never followed) and
/// rename it over, atomically; the file keeps its permission bits. A
/// tensorviz.toml that is a symbolic link is written through only when it
/// leads to a file inside `root` (the link stays); a link leading outside
/// the workspace is refused (`error`: "PATH is a symbolic link to TARGET,
/// outside the workspace ROOT: not written ...") and nothing is written.
ProfileWrite write_generated_profile(const std::string& path, const std::string& root, const std::string& wanted,
                                     const nlohmann::json& profile);

/// write_generated_profile without writing: the same checks (name, a link
/// leading outside the workspace, the spliced text must parse), `ok` with the
/// whole new file text in `*text` and the file the save would replace (the
/// link's target inside the workspace, else `path`) in `*target`. Editors
/// apply `*text` themselves (VS Code: one undoable WorkspaceEdit).
ProfileWrite plan_generated_profile(const std::string& path, const std::string& root, const std::string& wanted,
                                    const nlohmann::json& profile, std::string* text, std::string* target);

}  // namespace tvis::profiles
