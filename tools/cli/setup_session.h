// setup_session.h: `tvis graph MODULE:CLASS --setup [--no-browser]`
// (docs/profiles.md "The setup form"): tvis open's server (serve/run_server.h:
// 127.0.0.1, a random token on every request) over the workspace's runs
// folder, plus the setup form and its JSON endpoints:
//   GET  /setup?class=M:C[&profile=NAME]  the form (setup_form.html), prefilled from NAME
//   GET  /api/setup/model?class=M:C       setup_form_model(): signatures, pickers, the class's profiles
//   POST /api/setup/save    {class, form} profile_from_form() + write_generated_profile():
//                           {ok, profile, file, created, replaced} or {ok: false, message, log}
//   POST /api/setup/capture {profile}     tvis graph --profile NAME into the runs folder:
//                           {ok, exit_code, run, viewer (the Graph page's URL), result} or
//                           {ok: false, message, log}
// A refusal's message is one bounded line (the first problem, at most 300
// characters, and how many more); every problem and the worker's detail go
// to the session log (stderr's second line names it). The URL of the form is
// stdout's first line with --no-browser, else it goes to the browser; SIGINT,
// SIGTERM or SIGHUP stop the server (exit 0).
#pragma once

#include <string>

namespace tvis::cli {

struct SetupRequest {
  std::string target;  // MODULE:CLASS
  std::string profile;  // "" = a new setup; NAME = "Change inputs" of that profile
  std::string workspace, python, out;
  bool no_browser = false;
};

/// Runs the session; exit 0 after a stop signal, 2 when it cannot start (one line on stderr).
int run_setup(const SetupRequest& request);

/// The form's endpoints without a server, for editors that show the form
/// themselves (editors/vscode): `form_file` "" prints the form's model (what
/// GET /api/setup/model answers); else the form's fields are read from
/// `form_file` ("-": stdin) and the save's answer is printed, with nothing
/// written: {ok, profile, file, created, replaced, text (the whole new
/// tensorviz.toml)} or {ok: false, message, log}. Exit 0 ok, 1 refused,
/// 2 cannot start (one line on stderr).
int print_setup(const SetupRequest& request, const std::string& form_file);

}  // namespace tvis::cli
