// The shadow-stack frames of a thread's suspended contexts (coroutines): when the program
// switches away with swapcontext(oucp, ...), the frames open in the running context are
// kept here under `oucp` until a switch into `oucp` puts them back. One store per thread,
// mapped at its first switch (address space, committed as used); the switch path owns it,
// so nothing here is shared or locked.
#pragma once

#include <stdint.h>

#include "thread_profile.h"

namespace callprof::rt {

struct SavedContext {
  uint64_t key;         // the ucontext_t the context was saved in; 0 = free slot
  uint64_t away_since;  // ticks when it was suspended
  uint32_t chunk;       // first frame in the pool (frames are in chunk_frames(size_class))
  uint32_t size_class;
  ThreadProfile::Segment segment;
};

struct ContextStore;

// The calling thread's store, mapped on first use; null when no memory could be had.
ContextStore* context_store(void** slot);
void release_context_store(void* store);

// The saved context under `key`, or null.
SavedContext* find_saved(ContextStore* st, uint64_t key);
// Takes the profile's open frames into the store under `key` (replacing nothing: the
// caller has removed an older entry). False when the store is full: the frames stay.
bool save_context(ContextStore* st, ThreadProfile& p, uint64_t key, uint64_t now);
// Puts a saved context's frames back onto `p` (which holds only its root) and frees it.
void restore_context(ContextStore* st, ThreadProfile& p, SavedContext* c, uint64_t now);
// Closes a saved context's frames as of the moment it was suspended (it never resumes),
// leaving the profile's own open frames as they were, and frees it.
void close_saved(ContextStore* st, ThreadProfile& p, SavedContext* c);
// Every saved context, closed (thread exit, final dump).
void close_all_saved(ContextStore* st, ThreadProfile& p);
// After fork: the saved frames are the parent's calls; here they are context only.
void inherit_saved(ContextStore* st, uint64_t now);

}  // namespace callprof::rt
