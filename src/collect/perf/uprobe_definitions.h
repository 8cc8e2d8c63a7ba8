// Probe mode's uprobes, defined through tracefs (uprobe_events) as `perf probe` does, and
// opened as tracepoint events by id. Not through the uprobe PMU: an event of that PMU
// keeps a pointer to its path in *our* memory, and the kernel reads it again when a
// probed thread creates a thread and the event is inherited — in the target's memory,
// where it fails, and so does the target's clone(). Definitions are removed when this
// object goes (after the events are closed), and those of dead callprof processes at start.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "collect/perf/perf_options.h"
#include "util/result.h"

namespace callprof::perf {

class UprobeDefinitions {
 public:
  // Defines every site; ids[i] is site i's tracepoint id, or 0 when the kernel refused it
  // (not an instruction it can probe) or its path cannot be written in tracefs syntax.
  static Result<UprobeDefinitions> define(const std::vector<UprobeSite>& sites);
  UprobeDefinitions() = default;
  UprobeDefinitions(UprobeDefinitions&& other) noexcept;
  UprobeDefinitions& operator=(UprobeDefinitions&& other) noexcept;
  ~UprobeDefinitions();

  const std::vector<uint64_t>& ids() const { return ids_; }
  // Removes the definitions now (their events must be closed), or forgets them (another
  // process removes them).
  void remove_now() { remove(); }
  void release() { defined_.clear(); }

 private:
  std::string group_;              // callprof_PID
  std::vector<uint32_t> defined_;  // site numbers with an event in the group
  std::vector<uint64_t> ids_;
  void remove();
};

// Where tracefs is mounted ("" if nowhere).
std::string tracefs_root();

}  // namespace callprof::perf
