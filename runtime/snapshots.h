// Getting data out while the program runs: snapshots on a user-chosen signal, every N
// milliseconds, and when a checkpoint function returns; and a last dump when a fatal
// signal ends the program. Snapshots are written by a runtime thread (signals never wait
// on it), one file per process image, replaced atomically, so `callprof record` can
// always read the latest.
#pragma once

#include <stdint.h>

#include "config.h"

namespace callprof::rt {

void start_snapshots(const RuntimeConfig& config);
void restart_snapshots_after_fork();
// ThreadProfile's checkpoint handler: the calling thread writes a snapshot now.
void checkpoint_reached(uint64_t fn);
// Serialises every dump and snapshot of this image. With `may_give_up` (fatal signals)
// it fails after a while instead of waiting forever.
bool lock_dumps(bool may_give_up);
void unlock_dumps();
// The snapshot thread's id in this image, 0 when it has none (yet).
uint32_t snapshot_thread_id();

}  // namespace callprof::rt
