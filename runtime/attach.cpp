// Exact mode attached to a program already running (`callprof attach --mode exact`;
// docs/attach.md). callprof loads this library into the process with the loader's dlopen,
// on a thread it borrows with ptrace, then calls callprof_attach there. From then on the
// program's hook calls come here: the GOT entries through which its modules call
// __cyg_profile_func_enter/exit (glibc's empty functions until now) are pointed at ours.
// A thread of the runtime's waits on callprof's control FIFO: a byte, or callprof's end
// (EOF), detaches -- the GOT entries get glibc's functions back, the data is written, and
// the runtime stays loaded but dormant (a thread may still be inside a hook).
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>

#include "attach_frames.h"
#include "attach_replacements.h"
#include "clock.h"
#include "code_patch.h"
#include "early_env.h"
#include "parse_number.h"
#include "patched_calls.h"
#include "process.h"
#include "raw_syscall.h"
#include "runtime_thread.h"
#include "wire/attach_state.h"

// The hooks (hooks.cpp) by hidden aliases: a plain reference to __cyg_profile_func_enter
// from a library loaded with dlopen binds to glibc's, first in the lookup scope.
extern "C" void callprof_enter_hook(void*, void*);
extern "C" void callprof_exit_hook(void*, void*);

// Read by callprof before it begins a window (wire/attach_state.h).
extern "C" {
__attribute__((visibility("default"))) int callprof_attach_state = callprof::wire::kAttachNever;
}

namespace callprof::rt {
namespace {

struct HookSlot {
  uint64_t address;
  uint64_t original;     // what it held before the attach
  uint64_t replacement;  // kind 2: the runtime's stand-in (attach_replacements.h)
  uint8_t kind;          // 0 enter, 1 exit, 2 a function the runtime stands in for
  bool read_only;        // RELRO: writable only while it is swapped
  bool swapped;
  bool unwinds;  // an unwinder's entry, a catch or pthread_exit: a patched program keeps
                 // the stand-in after the detach (a frame may still return through the
                 // trampoline: patched_calls.h)
};

HookSlot g_slots[2048];  // a program of many C++ libraries has a slot per unwinder entry in each
bool g_too_many_slots = false;
uint32_t g_slot_count = 0;
char g_settings[131072];                  // .bss: pages are touched only as far as the settings go
char g_control[1024];                     // the FIFO callprof detaches through
char g_detached[1024];                    // the file this runtime creates once the data is written
int& g_attached = callprof_attach_state;  // wire::kAttach*: 0 never, 1 attached, 2 detached (dormant)
bool g_follow_children = false;           // attach --children: a fork's child records too

// "got ADDRESS enter|exit|FUNCTION 0|1" lines become slots; "control PATH" and "detached
// PATH" the paths; the rest stay for use_runtime_settings.
unsigned read_settings(const char* path) {
  const long fd = sys::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  unsigned used = 0;
  for (long n;
       used + 1 < sizeof g_settings && (n = sys::read(int(fd), g_settings + used, sizeof g_settings - 1 - used)) > 0;)
    used += unsigned(n);
  sys::close(int(fd));
  g_settings[used] = 0;
  return used;
}

// Copies a path of `length` bytes, terminated, when it fits.
void take_path(char* out, uint64_t cap, const char* path, unsigned length) {
  if (length >= cap) return;
  memcpy(out, path, length);
  out[length] = 0;
}

// A slot's kind from its function's name, "enter" or "exit" for the hooks.
bool take_kind(HookSlot& s, const char* name, unsigned length) {
  char buf[64];
  if (length == 0 || length >= sizeof buf) return false;
  memcpy(buf, name, length);
  buf[length] = 0;
  if (strcmp(buf, "enter") == 0 || strcmp(buf, "exit") == 0) {
    s.kind = buf[1] == 'x' ? 1 : 0;
    return true;
  }
  s.kind = 2;
  s.replacement = replacement_for(buf);
  s.unwinds =
      patched_replacement(buf) != 0 || strcmp(buf, "__cxa_begin_catch") == 0 || strcmp(buf, "pthread_exit") == 0;
  return s.replacement != 0;
}

// One line of the attach's own: "got ADDRESS KIND 0|1", "control PATH", "detached PATH".
void take_line(const char* line, unsigned length) {
  if (length > 4 && strncmp(line, "got ", 4) == 0 && g_slot_count == sizeof g_slots / sizeof g_slots[0]) {
    g_too_many_slots = true;  // refused below: a slot left out would leave its calls unseen, or half seen
  } else if (length > 4 && strncmp(line, "got ", 4) == 0) {
    const char* rest = nullptr;
    HookSlot& s = g_slots[g_slot_count];
    s = HookSlot{};
    s.address = parse_u64(line + 4, 16, &rest);
    const char* name = rest + 1;
    const char* end = line + length - 2;  // " 0|1" ends the line
    if (*rest != ' ' || end <= name || !take_kind(s, name, unsigned(end - name))) return;
    s.read_only = line[length - 1] == '1';
    if (s.address != 0 && s.address % 8 == 0) ++g_slot_count;
  } else if (length > 8 && strncmp(line, "control ", 8) == 0) {
    take_path(g_control, sizeof g_control, line + 8, length - 8);
  } else if (length > 9 && strncmp(line, "detached ", 9) == 0) {
    take_path(g_detached, sizeof g_detached, line + 9, length - 9);
  } else if (length == 10 && strncmp(line, "children 1", 10) == 0) {
    g_follow_children = true;
  } else if (length > 10 && strncmp(line, "patchable ", 10) == 0) {  // "patchable START END"
    const char* rest = nullptr;
    const uint64_t start = parse_u64(line + 10, 16, &rest);
    if (*rest == ' ') add_patchable_range(start, parse_u64(rest + 1, 16, &rest));
  }
}

// The attach's own lines; the CALLPROF_* ones are use_runtime_settings' (it skips the rest).
void parse_settings(unsigned used) {
  for (unsigned start = 0, i = 0; i <= used; ++i)
    if (i == used || g_settings[i] == '\n') {
      take_line(g_settings + start, i - start);
      start = i + 1;
    }
}

// This library's own image: its calibration's hook calls go through slots in it.
extern "C" const char __ehdr_start[] __attribute__((visibility("hidden")));
extern "C" const char _end[] __attribute__((visibility("hidden")));
bool own_slot(const HookSlot& s) {
  return s.address >= reinterpret_cast<uint64_t>(__ehdr_start) && s.address < reinterpret_cast<uint64_t>(_end);
}

enum class Slots { Own, Program, All };

// Points the slots at our hooks and stand-ins (attach) or back at what they held (detach;
// a patched program's unwinders keep theirs). The entry hooks' first: given back first, no
// call enters the window after the exit hooks left it (which would nest the next calls
// under it); swapped, every thread is stopped.
bool swap_slots(bool attach, Slots which) {
  const uint64_t ours[2] = {reinterpret_cast<uint64_t>(&callprof_enter_hook),
                            reinterpret_cast<uint64_t>(&callprof_exit_hook)};
  bool all = true;
  for (uint32_t k = 0; k < 2 * g_slot_count; ++k) {
    HookSlot& s = g_slots[k % g_slot_count];
    if ((s.kind == 0) != (k < g_slot_count)) continue;
    if (attach == s.swapped || (which != Slots::All && own_slot(s) != (which == Slots::Own))) continue;
    if (!attach && s.unwinds && patchable_ranges()) continue;
    uint64_t old = 0;
    const uint64_t to = !attach ? s.original : s.kind < 2 ? ours[s.kind] : s.replacement;
    if (!swap_pointer(s.address, to, s.read_only, &old)) {
      all = false;
      continue;
    }
    if (attach) s.original = old;
    s.swapped = attach;
  }
  return all;
}

// Held while the program's slots change: a window's start (callprof_attach_begin, on the
// borrowed thread) and its end (detach, on the control thread, which sees callprof's end
// whenever it comes: an injector may be starting the window that very moment).
int g_window_lock = 0;
bool try_lock_window() { return !__atomic_exchange_n(&g_window_lock, 1, __ATOMIC_ACQUIRE); }
void lock_window() {
  while (!try_lock_window()) sys::call(SYS_sched_yield);
}
void unlock_window() { __atomic_store_n(&g_window_lock, 0, __ATOMIC_RELEASE); }

void detach() {
  check_costs_at_exit();  // while the hooks are the runtime's (process.h)
  lock_window();
  g_window_end_tsc = ticks();
  __atomic_store_n(&g_window_closing, true, __ATOMIC_RELEASE);
  freeze_unhooked_counts();
  unpatch_sites();
  swap_slots(false, Slots::All);
  unlock_window();
  // Hooks already entered finish within microseconds; none starts after the swap.
  const timespec grace{0, 20 * 1000 * 1000};
  sys::call(SYS_nanosleep, sys::p(&grace), 0);
  drop_attach_frames();
  write_dump();
  release_window_memory();
  stop_recording();
  const long fd = sys::open(g_detached, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0) sys::close(int(fd));
  __atomic_store_n(&g_attached, 2, __ATOMIC_RELEASE);
}

// Waits for callprof to close the FIFO (the window's end, or callprof killed), then
// detaches. Opened without waiting for a writer: in a child forked after callprof closed
// it, the read sees the end at once.
void* control_thread(void*) {
  const long fd = sys::open(g_control, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  char byte = 0;
  if (fd >= 0 && sys::call(SYS_fcntl, fd, F_SETFL, O_RDONLY) == 0) {
    for (long n; (n = sys::read(int(fd), &byte, 1)) != 0;)  // a byte, EINTR: wait on for the end
      if (n < 0 && n != -EINTR) break;
  }
  if (fd >= 0) sys::close(int(fd));
  detach();
  return nullptr;
}

// Appends "." and `n` in decimal to the path in `out` (of `cap` bytes), when it fits.
void append_number(char* out, uint64_t cap, uint64_t n) {
  char digits[24];
  unsigned count = 0;
  do digits[count++] = char('0' + n % 10);
  while ((n /= 10) != 0);
  uint64_t at = strlen(out);
  if (at + count + 2 > cap) return;
  out[at++] = '.';
  while (count) out[at++] = digits[--count];
  out[at] = 0;
}

// A fork while attached: without --children the child gets glibc's hooks back and records
// nothing; with it, the child records until the window ends (its own control thread sees
// callprof close the FIFO too) and says so with a file callprof waits for: the marker's
// path, ".PID", ".started" (then the marker, ".PID", once its data is written).
void attached_fork_child() {
  if (__atomic_load_n(&g_attached, __ATOMIC_ACQUIRE) != 1) return;
  if (!g_follow_children) {
    unpatch_sites();
    swap_slots(false, Slots::All);
    drop_attach_frames();
    stop_recording();
    __atomic_store_n(&g_attached, 2, __ATOMIC_RELEASE);
    return;
  }
  append_number(g_detached, sizeof g_detached, sys::getpid());
  char started[sizeof g_detached + 8];
  memcpy(started, g_detached, strlen(g_detached) + 1);
  if (strlen(started) + 9 <= sizeof started) memcpy(started + strlen(started), ".started", 9);
  const long fd = sys::open(started, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0) sys::close(int(fd));
  if (!start_runtime_thread(control_thread, "callprof-ctl", 64 * 1024)) detach();
}

// The attach itself; `again`: a window after a detach.
int start_window(const char* settings_path, bool again) {
  g_slot_count = 0;
  g_too_many_slots = false;
  g_follow_children = false;
  clear_patchable_ranges();
  g_control[0] = g_detached[0] = 0;
  const unsigned used = read_settings(settings_path);
  if (used == 0) return -2;
  parse_settings(used);
  if ((g_slot_count == 0 && !patchable_ranges()) || !g_control[0] || !g_detached[0]) return -22;
  if (g_too_many_slots || used + 1 >= sizeof g_settings) return -7;  // E2BIG
  use_runtime_settings(g_settings, used);
  if (again) {  // the hooks' cost is known, the threads' states exist
    if (!resume_recording()) return -5;
  } else {
    // Our own hook calls first (the calibration, on this thread), the program's last, once
    // everything is ready for them.
    if (!swap_slots(true, Slots::Own)) return -1;
    if (!start_recording()) return -5;
    // Registered after process.cpp's (in start_recording): the child's state is reset first.
    static bool fork_handler = false;
    if (!fork_handler) fork_handler = pthread_atfork(nullptr, nullptr, attached_fork_child) == 0;
  }
  if (!start_runtime_thread(control_thread, "callprof-ctl", 64 * 1024)) {
    stop_recording();
    return -11;
  }
  return 0;
}

// Whether the window began: the hooks' slots swapped, or a patched program's sites patched
// (its unwinders' stand-ins stay from an earlier window).
bool window_began() {
  if (sites_patched()) return true;
  for (uint32_t i = 0; i < g_slot_count; ++i)
    if (g_slots[i].swapped && !own_slot(g_slots[i]) && !g_slots[i].unwinds) return true;
  return false;
}

}  // namespace
}  // namespace callprof::rt

using namespace callprof::rt;

// Readies a window: 0 when ready; a negative errno-like code otherwise. Called on the thread
// callprof borrowed, once per window; callprof_attach_begin starts it.
extern "C" __attribute__((visibility("default"))) int callprof_attach(const char* settings_path) {
  // 0 never attached, 1 attached, 2 detached (dormant): a new window may begin.
  int state = __atomic_load_n(&g_attached, __ATOMIC_ACQUIRE);
  if (state == 1 || !__atomic_compare_exchange_n(&g_attached, &state, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return -16;  // EBUSY: attached now
  const int status = start_window(settings_path, state == 2);
  if (status == -2 || status == -22 || status == -5 || status == -7)
    __atomic_store_n(&g_attached, state, __ATOMIC_RELEASE);
  return status;
}

// Starts the window callprof_attach readied: every thread of the process is stopped but
// the one running this; `frames_path` lists the frames they have open ("": none).
// The program's hooks come here from now on. 0, or a negative errno-like code.
// Never waits for the lock: its holder may be a thread callprof stopped.
extern "C" __attribute__((visibility("default"))) int callprof_attach_begin(const char* frames_path) {
  if (!try_lock_window()) return -16;
  if (__atomic_load_n(&g_attached, __ATOMIC_ACQUIRE) != 1 || g_window_closing || window_began()) {
    unlock_window();
    return -16;  // EBUSY: the window ended already (callprof gone), or began
  }
  if (frames_path[0] && load_attach_frames(frames_path, ticks()))
    for (ThreadState* s = first_thread(); s; s = s->next)
      if (!__atomic_load_n(&s->finished, __ATOMIC_ACQUIRE)) open_attach_frames(s, 0);
  if (patchable_ranges()) {
    uint32_t count = 0;
    const callprof::wire::AttachFrame* frames = attach_frames(&count);
    if (const int status = begin_patched_window(frames, count); status != 0) {
      drop_attach_frames();
      unlock_window();
      return status;
    }
  }
  clear_unhooked_counts();
  const bool swapped = swap_slots(true, Slots::Program);
  unlock_window();
  return swapped ? 0 : -1;
}

bool callprof::rt::attached_mode() { return __atomic_load_n(&g_attached, __ATOMIC_ACQUIRE) != 0; }

void callprof::rt::attached_image_ends(bool ends) {
  if (__atomic_load_n(&g_attached, __ATOMIC_ACQUIRE) != 1) return;
  if (!ends) {
    sys::unlink(g_detached);
    return;
  }
  const long fd = sys::open(g_detached, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0) sys::close(int(fd));
}
