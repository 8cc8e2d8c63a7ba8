// Saved shadow-stack frames of suspended contexts: an open-addressing table keyed by the
// ucontext_t, and a pool of frame chunks in power-of-two size classes with a free list per
// class. Only the owning thread touches its store, on the context-switch path.
#include "context_store.h"

#include <sys/mman.h>

#include "raw_syscall.h"

namespace callprof::rt {

namespace {
constexpr uint32_t kSlots = 1u << 14;       // suspended contexts a thread can hold (3/4 of it)
constexpr uint32_t kPoolFrames = 1u << 21;  // frames of all of them together (64 MiB of address space)
constexpr uint32_t kClasses = 22;           // chunk sizes 8 << 0 ... 8 << 21 frames
constexpr uint32_t kNoChunk = UINT32_MAX;

uint32_t chunk_frames(uint32_t size_class) { return 8u << size_class; }
uint32_t class_for(uint32_t frames) {
  uint32_t c = 0;
  while (chunk_frames(c) < frames) ++c;
  return c;
}
uint32_t slot_of(uint64_t key) { return uint32_t((key >> 4) * 0x9E3779B97F4A7C15ull >> 40) & (kSlots - 1); }
}  // namespace

struct ContextStore {
  uint32_t count;                 // saved contexts
  uint32_t bump;                  // pool frames handed out so far
  uint32_t free_chunk[kClasses];  // first free chunk of each class + 1; 0 = none
  SavedContext table[kSlots];
  Frame pool[kPoolFrames];
};

namespace {

constexpr uint64_t kStoreBytes = (sizeof(ContextStore) + 4095) & ~uint64_t(4095);

uint32_t take_chunk(ContextStore* st, uint32_t size_class) {
  if (uint32_t head = st->free_chunk[size_class]) {
    st->free_chunk[size_class] = st->pool[head - 1].node;
    return head - 1;
  }
  if (kPoolFrames - st->bump < chunk_frames(size_class)) return kNoChunk;
  const uint32_t chunk = st->bump;
  st->bump += chunk_frames(size_class);
  return chunk;
}

void give_chunk(ContextStore* st, uint32_t chunk, uint32_t size_class) {
  if (chunk == kNoChunk) return;
  st->pool[chunk].node = st->free_chunk[size_class];
  st->free_chunk[size_class] = chunk + 1;
}

// Frees a table slot, shifting later entries of its probe run back (no tombstones).
void remove(ContextStore* st, SavedContext* c) {
  give_chunk(st, c->chunk, c->size_class);
  uint32_t hole = uint32_t(c - st->table);
  for (uint32_t i = (hole + 1) & (kSlots - 1);; i = (i + 1) & (kSlots - 1)) {
    SavedContext& e = st->table[i];
    if (e.key == 0) break;
    const uint32_t home = slot_of(e.key);
    // e may fill the hole when its home is not in (hole, i] (cyclically).
    const bool stays = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);
    if (stays) continue;
    st->table[hole] = e;
    hole = i;
  }
  st->table[hole].key = 0;
  --st->count;
}

}  // namespace

ContextStore* context_store(void** slot) {
  if (*slot) return static_cast<ContextStore*>(*slot);
  void* m = sys::mmap(nullptr, kStoreBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE);
  *slot = m;  // zero-filled: an empty table and pool
  return static_cast<ContextStore*>(m);
}

void release_context_store(void* store) {
  if (store) sys::munmap(store, kStoreBytes);
}

SavedContext* find_saved(ContextStore* st, uint64_t key) {
  if (!st || key == 0) return nullptr;
  for (uint32_t i = slot_of(key);; i = (i + 1) & (kSlots - 1)) {
    SavedContext& e = st->table[i];
    if (e.key == key) return &e;
    if (e.key == 0) return nullptr;
  }
}

bool save_context(ContextStore* st, ThreadProfile& p, uint64_t key, uint64_t now) {
  if (key == 0 || st->count >= kSlots / 4 * 3) return false;
  const uint32_t size_class = class_for(p.depth());
  const uint32_t chunk = p.depth() == 0 ? kNoChunk : take_chunk(st, size_class);
  if (p.depth() != 0 && chunk == kNoChunk) return false;
  uint32_t i = slot_of(key);
  while (st->table[i].key != 0) i = (i + 1) & (kSlots - 1);
  SavedContext& c = st->table[i];
  c.key = key;
  c.away_since = now;
  c.chunk = chunk;
  c.size_class = size_class;
  Frame scratch;  // a context with no frames takes none
  c.segment = p.take_frames(chunk == kNoChunk ? &scratch : &st->pool[chunk]);
  ++st->count;
  return true;
}

void restore_context(ContextStore* st, ThreadProfile& p, SavedContext* c, uint64_t now) {
  const uint64_t away = now > c->away_since ? now - c->away_since : 0;
  if (c->chunk != kNoChunk) p.put_frames(&st->pool[c->chunk], c->segment, away);
  remove(st, c);
}

void close_saved(ContextStore* st, ThreadProfile& p, SavedContext* c) {
  // The pops work on the profile's own stack: park its frames in a chunk meanwhile.
  const uint32_t size_class = class_for(p.depth());
  const uint32_t parked = p.depth() == 0 ? kNoChunk : take_chunk(st, size_class);
  if (p.depth() != 0 && parked == kNoChunk) return remove(st, c);  // no room: its calls are lost
  Frame scratch;
  const ThreadProfile::Segment own = p.take_frames(parked == kNoChunk ? &scratch : &st->pool[parked]);
  const uint64_t end = c->away_since;
  if (c->chunk != kNoChunk) p.put_frames(&st->pool[c->chunk], c->segment, 0);
  p.unwind_all(end);
  remove(st, c);
  if (parked != kNoChunk) p.put_frames(&st->pool[parked], own, 0);
  give_chunk(st, parked, size_class);
}

void close_all_saved(ContextStore* st, ThreadProfile& p) {
  if (!st) return;
  for (uint32_t i = 0; i < kSlots && st->count > 0; ++i)
    while (st->table[i].key != 0) close_saved(st, p, &st->table[i]);  // removal may shift another in
}

void inherit_saved(ContextStore* st, uint64_t now) {
  if (!st) return;
  for (SavedContext& c : st->table) {
    if (c.key == 0) continue;
    c.away_since = now;
    c.segment.inherited_depth = c.segment.depth + 1;
    if (c.chunk == kNoChunk) continue;
    for (uint32_t i = 0; i < c.segment.depth; ++i) {
      st->pool[c.chunk + i].entry_tsc = now;
      st->pool[c.chunk + i].child_ticks = 0;
    }
  }
}

}  // namespace callprof::rt
