// The runtime's walks of the loaded objects (dl_iterate_phdr), kept apart from fork.
// glibc's fork resets the loader's main lock in the child, not the one dl_iterate_phdr
// holds (dl_load_write_lock, glibc 2.36): a fork while another thread walks leaves the
// child's copy of it locked for ever, and the child's first walk hangs (seen: an attached
// program's child, starting its control thread). So a walk of the runtime's never spans a
// fork: the fork's prepare handler waits for the walks under way, and a walk waits for a
// fork under way. The program's own walks are not ours to order; the runtime's fork-child
// handlers therefore walk nothing (what they need is looked up before).
#pragma once

#include <link.h>

namespace callprof::rt {

using ModuleVisitor = int (*)(dl_phdr_info*, size_t, void*);

// dl_iterate_phdr(visit, data), never while a fork is under way.
int walk_modules(ModuleVisitor visit, void* data);

// The fork's prepare handler: waits for the walks under way and holds new ones back, until
// the parent's or the child's handler lets them go.
void hold_module_walks();
void release_module_walks_in_parent();
void release_module_walks_in_child();

}  // namespace callprof::rt
