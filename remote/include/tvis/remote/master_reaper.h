// master_reaper.h: ending tvis's ssh masters when tvis dies of a fatal
// signal. A master runs detached (ssh -f, ControlPersist=yes) so that every
// agent session of one `tvis open` rides on one authentication; the normal
// stop ends it (SshSession::close). An abnormal end (abort after an escaped
// failure, a crash) would leave it running with no owner, holding the
// connection open. So each live master is registered here, and the first
// registration installs handlers for SIGABRT, SIGSEGV, SIGBUS, SIGILL and
// SIGFPE that send each registered master SIGTERM, remove its private
// folder's files, then let the signal do what it did before (the previous
// handler, or the default: the core dump / exit status are unchanged).
// The handlers do only async-signal-safe work on memory fixed in advance.
// At most kMaxReapedMasters at once (a session has one; more are not
// registered, and then only the normal stop ends them).
#pragma once

#include <sys/types.h>

#include <string>

namespace tvis::remote {

inline constexpr int kMaxReapedMasters = 16;

/// Registers `pid` (the master) and its private folder `dir`; false when
/// every slot is taken or `dir` is too long to keep.
bool end_master_on_crash(pid_t pid, const std::string& dir);
/// Unregisters `pid` (the master was ended the normal way).
void forget_master_on_crash(pid_t pid);

}  // namespace tvis::remote
