// remote_runs.h: `tvis-view HOST:PATH` and `tvis-view TARGET`: the runs an
// agent serves over ssh, read the way `tvis open` reads the same argument
// (remote/store_opener.h: --via, --remote-tvis, --ssh-config, one ssh master
// so authentication is asked once), handed to the App as byte sources over
// that store (remote/store_source.h).
#pragma once

#include <memory>
#include <string>

#include "tvis/remote/store_opener.h"
#include "tvis/viewer/app.h"

namespace tvis::native {

/// True when `what` is read through a store rather than as a local path: it
/// does not exist here and is a saved target's name or HOST:PATH. An
/// existing local path always wins (a file name may contain ':').
bool names_remote_runs(const std::string& what);

/// Connects, lists the runs and hands them to `app`: the run itself when
/// PATH names one run (a run folder or a run file), else the run list.
/// `rank`: a distributed run's rank to show first (-1: rank 0). Returns what
/// keeps the connection up (hold it while the window runs), or null with
/// `problem` set to one line.
std::shared_ptr<remote::OpenedStore> open_remote_runs(viewer::App& app, const remote::StoreRequest& request, int rank,
                                                      std::string* problem);

}  // namespace tvis::native
