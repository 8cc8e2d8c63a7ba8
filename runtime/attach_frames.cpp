#include "attach_frames.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "process.h"
#include "raw_syscall.h"
#include "wire/attach_frames.h"

namespace callprof::rt {

bool g_attach_frames_pending = false;

namespace {

wire::AttachFrame* g_frames = nullptr;  // a private copy of the file's entries
uint32_t g_count = 0;
void* g_mapping = nullptr;
uint64_t g_mapping_bytes = 0;
uint64_t g_start = 0;

}  // namespace

bool load_attach_frames(const char* path, uint64_t now) {
  drop_attach_frames();
  const long fd = sys::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  void* at = nullptr;
  if (sys::fstat(int(fd), &st) == 0 && uint64_t(st.st_size) >= sizeof(wire::AttachFramesHeader))
    at = sys::mmap(nullptr, uint64_t(st.st_size), PROT_READ | PROT_WRITE, MAP_PRIVATE, int(fd), 0);
  sys::close(int(fd));
  if (!at) return false;
  const auto* h = static_cast<const wire::AttachFramesHeader*>(at);
  const uint64_t room = (uint64_t(st.st_size) - sizeof *h) / sizeof(wire::AttachFrame);
  if (h->magic != wire::kAttachFramesMagic || h->version != wire::kAttachFramesVersion || h->count > room) {
    sys::munmap(at, uint64_t(st.st_size));
    return false;
  }
  g_mapping = at;
  g_mapping_bytes = uint64_t(st.st_size);
  g_frames = reinterpret_cast<wire::AttachFrame*>(static_cast<char*>(at) + sizeof *h);
  g_count = h->count;
  g_start = now;
  __atomic_store_n(&g_attach_frames_pending, g_count > 0, __ATOMIC_RELEASE);
  return true;
}

const wire::AttachFrame* attach_frames(uint32_t* count) {
  *count = g_count;
  return g_frames;
}

void drop_attach_frames() {
  __atomic_store_n(&g_attach_frames_pending, false, __ATOMIC_RELEASE);
  if (g_mapping) sys::munmap(g_mapping, g_mapping_bytes);
  g_mapping = nullptr;
  g_frames = nullptr;
  g_count = 0;
}

uint32_t open_attach_frames(ThreadState* s, uint64_t sp) {
  uint32_t first = 0;
  while (first < g_count && g_frames[first].tid != s->tid) ++first;
  if (first == g_count || __atomic_exchange_n(&g_frames[first].taken, uint16_t(1), __ATOMIC_ACQ_REL)) return 0;
  uint32_t end = first;
  while (end < g_count && g_frames[end].tid == s->tid) ++end;
  const uint64_t outermost = g_frames[first].sp;
  if (sp != 0 && (sp > outermost || outermost - sp >= kSameStackSpan)) return 0;
  const uint32_t pushed = s->profile.open_context_frames(g_frames + first, end - first, g_start);
  if (pushed > 0 && s->start_tsc > g_start) s->start_tsc = g_start;  // it ran before its first hook here
  return pushed;
}

void adopt_forking_thread_frames(uint32_t forking_tid, uint32_t tid, uint64_t now) {
  if (!attach_frames_pending()) return;
  // tid 0 is no thread's: an entry of a thread that does not exist here is never taken.
  for (uint32_t i = 0; i < g_count; ++i) g_frames[i].tid = g_frames[i].tid == forking_tid ? tid : 0;
  g_start = now;
}

}  // namespace callprof::rt
