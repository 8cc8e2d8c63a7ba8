// libcallprof-alloc.so: every operator new and delete. They forward to the next definition
// (libstdc++'s), which keeps the new_handler loop and std::bad_alloc without this library
// using exceptions; an exception passes through these frames (they have unwind tables and
// nothing to clean up). Counting once per new/delete: see charge.h.
#include <stddef.h>
#include <stdlib.h>

#include <new>

#include "charge.h"
#include "next_functions.h"

using namespace callprof::alloc;

namespace {

using std::align_val_t;
using std::nothrow_t;

// No C++ runtime after us (cannot happen while someone calls operator new: it would be
// libstdc++'s caller): allocate plainly, without throwing.
void* fallback_new(size_t n) { return malloc(n); }
void* fallback_new(size_t n, const nothrow_t&) { return malloc(n); }
void* fallback_new(size_t n, align_val_t a) {
  void* p = nullptr;
  return posix_memalign(&p, size_t(a), n) == 0 ? p : nullptr;
}
void* fallback_new(size_t n, align_val_t a, const nothrow_t&) { return fallback_new(n, a); }

// Forward to the next operator, counting it unless it runs inside one of ours (libstdc++'s
// nothrow and sized variants call the plain ones through the PLT, i.e. ours).
template <typename F, typename... Args>
void* forward_new(Next which, size_t bytes, Args... args) {
  F f = next<F>(which);
  if (__builtin_expect(f == nullptr, 0)) return fallback_new(bytes, args...);
  if (t_in_new) return f(bytes, args...);
  t_in_new = 1;
  void* p = f(bytes, args...);
  t_in_new = 0;
  if (p) callprof_rt_note_alloc(bytes);
  return p;
}

template <typename F, typename... Args>
void forward_delete(Next which, void* p, Args... args) {
  F f = next<F>(which);
  if (__builtin_expect(f == nullptr, 0)) return free(p);  // see fallback_new
  if (!p || t_in_delete) return f(p, args...);
  t_in_delete = 1;
  f(p, args...);
  t_in_delete = 0;
  callprof_rt_note_free();
}

using New = void* (*)(size_t);
using NewNothrow = void* (*)(size_t, const nothrow_t&);
using NewAligned = void* (*)(size_t, align_val_t);
using NewAlignedNothrow = void* (*)(size_t, align_val_t, const nothrow_t&);
using Delete = void (*)(void*);
using DeleteSized = void (*)(void*, size_t);
using DeleteNothrow = void (*)(void*, const nothrow_t&);
using DeleteAligned = void (*)(void*, align_val_t);
using DeleteSizedAligned = void (*)(void*, size_t, align_val_t);
using DeleteAlignedNothrow = void (*)(void*, align_val_t, const nothrow_t&);

}  // namespace

#define EXPORT CALLPROF_ALLOC_EXPORT

EXPORT void* operator new(size_t n) { return forward_new<New>(Next::kNew, n); }
EXPORT void* operator new[](size_t n) { return forward_new<New>(Next::kNewArray, n); }
EXPORT void* operator new(size_t n, const nothrow_t& t) noexcept {
  return forward_new<NewNothrow, const nothrow_t&>(Next::kNewNothrow, n, t);
}
EXPORT void* operator new[](size_t n, const nothrow_t& t) noexcept {
  return forward_new<NewNothrow, const nothrow_t&>(Next::kNewArrayNothrow, n, t);
}
EXPORT void* operator new(size_t n, align_val_t a) { return forward_new<NewAligned>(Next::kNewAligned, n, a); }
EXPORT void* operator new[](size_t n, align_val_t a) { return forward_new<NewAligned>(Next::kNewArrayAligned, n, a); }
EXPORT void* operator new(size_t n, align_val_t a, const nothrow_t& t) noexcept {
  return forward_new<NewAlignedNothrow, align_val_t, const nothrow_t&>(Next::kNewAlignedNothrow, n, a, t);
}
EXPORT void* operator new[](size_t n, align_val_t a, const nothrow_t& t) noexcept {
  return forward_new<NewAlignedNothrow, align_val_t, const nothrow_t&>(Next::kNewArrayAlignedNothrow, n, a, t);
}

EXPORT void operator delete(void* p) noexcept { forward_delete<Delete>(Next::kDelete, p); }
EXPORT void operator delete[](void* p) noexcept { forward_delete<Delete>(Next::kDeleteArray, p); }
EXPORT void operator delete(void* p, size_t n) noexcept { forward_delete<DeleteSized>(Next::kDeleteSized, p, n); }
EXPORT void operator delete[](void* p, size_t n) noexcept {
  forward_delete<DeleteSized>(Next::kDeleteArraySized, p, n);
}
EXPORT void operator delete(void* p, const nothrow_t& t) noexcept {
  forward_delete<DeleteNothrow, const nothrow_t&>(Next::kDeleteNothrow, p, t);
}
EXPORT void operator delete[](void* p, const nothrow_t& t) noexcept {
  forward_delete<DeleteNothrow, const nothrow_t&>(Next::kDeleteArrayNothrow, p, t);
}
EXPORT void operator delete(void* p, align_val_t a) noexcept {
  forward_delete<DeleteAligned>(Next::kDeleteAligned, p, a);
}
EXPORT void operator delete[](void* p, align_val_t a) noexcept {
  forward_delete<DeleteAligned>(Next::kDeleteArrayAligned, p, a);
}
EXPORT void operator delete(void* p, size_t n, align_val_t a) noexcept {
  forward_delete<DeleteSizedAligned>(Next::kDeleteSizedAligned, p, n, a);
}
EXPORT void operator delete[](void* p, size_t n, align_val_t a) noexcept {
  forward_delete<DeleteSizedAligned>(Next::kDeleteArraySizedAligned, p, n, a);
}
EXPORT void operator delete(void* p, align_val_t a, const nothrow_t& t) noexcept {
  forward_delete<DeleteAlignedNothrow, align_val_t, const nothrow_t&>(Next::kDeleteAlignedNothrow, p, a, t);
}
EXPORT void operator delete[](void* p, align_val_t a, const nothrow_t& t) noexcept {
  forward_delete<DeleteAlignedNothrow, align_val_t, const nothrow_t&>(Next::kDeleteArrayAlignedNothrow, p, a, t);
}
