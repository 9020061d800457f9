// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <sys/types.h>

// Process control that an arm cannot escape. A command or worker arm runs as the leader of its own
// process group; at its end (exit, timeout, stop) everything it started is killed and reaped, not
// only the group: a daemon that called setsid(), a grandchild orphaned by its parent's exit, a
// process that closed nothing and keeps the output pipe open.
//
// How they are found, without privileges (a cgroup would need a delegated hierarchy, which CI
// containers and most desktops do not give):
// - the leader's process group, and the leader's descendants by parent pid;
// - every process whose environment carries this containment's tag (KWB_PROCESS_TAG, set in the
//   leader's environment and inherited by whatever it starts, setsid or not);
// - in a process that is a subreaper (become_subreaper(); kwb run is one), every child of this
//   process that no containment started: an orphan reparents to the nearest subreaper, so a
//   descendant that both left the group and scrubbed its environment still comes back here.
// The set is gathered by repeated passes over /proc that stop (SIGSTOP) each process found, so
// none can fork past the sweep; then all are killed together and this process's children among
// them are reaped.
namespace kwb {

inline constexpr const char* kProcessTagVariable = "KWB_PROCESS_TAG";

// Makes this process the subreaper of its descendants (prctl PR_SET_CHILD_SUBREAPER) and lets
// containments claim orphans that reparent here. Only for a process whose children are all started
// through a containment (kwb run): the window starts other children (QProcess) and never calls it.
// False where the kernel refuses (the tag and group still hold then).
bool become_subreaper();
bool is_subreaper();

class ProcessContainment {
public:
    ProcessContainment(); // a fresh tag, unique on this host
    ~ProcessContainment(); // ends whatever is left
    ProcessContainment(const ProcessContainment&) = delete;
    ProcessContainment& operator=(const ProcessContainment&) = delete;

    // "KWB_PROCESS_TAG=<value>": the leader's environment must carry it.
    const std::string& tag_entry() const { return tag_entry_; }
    const char* tag_value() const { return tag_entry_.c_str() + tag_value_offset_; }

    // The leader, just forked and made the leader of its own group. Its exit status is the
    // caller's to reap: end_all() kills it but never waits for it.
    void set_leader(pid_t leader);

    // Kills every process of the containment, the leader included, and reaps this process's
    // children among them but the leader. Returns how many processes besides the leader it killed.
    int end_all();

    // Says the caller reaped the leader: its pid may be reused from now on, so it no longer names
    // anything of this containment (the destructor then ends nothing more).
    void leader_reaped();

private:
    std::string tag_entry_;
    std::size_t tag_value_offset_ = 0;
    pid_t leader_ = -1;
};

} // namespace kwb
