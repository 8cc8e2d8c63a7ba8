#include "target/inject/process_unwinder.h"

#include <elfutils/libdwfl.h>

#include "target/inject/process_memory.h"

namespace callprof::inject {
namespace {

char* g_debuginfo_path = nullptr;
const Dwfl_Callbacks kCallbacks = {dwfl_linux_proc_find_elf, dwfl_standard_find_debuginfo, nullptr, &g_debuginfo_path};
constexpr unsigned kDwarfRsp = 7;  // x86-64 DWARF register number of rsp

struct Collect {
  std::vector<UnwoundFrame> frames;
  size_t max;
};

int take_frame(Dwfl_Frame* frame, void* arg) {
  auto* c = static_cast<Collect*>(arg);
  UnwoundFrame f;
  Dwarf_Addr pc = 0;
  if (!dwfl_frame_pc(frame, &pc, &f.activation)) return DWARF_CB_ABORT;
  f.pc = pc;
  Dwarf_Word sp = 0;
  if (dwfl_frame_reg(frame, kDwarfRsp, &sp) == 0) f.sp = sp;
  c->frames.push_back(f);
  return c->frames.size() >= c->max ? DWARF_CB_ABORT : DWARF_CB_OK;
}

}  // namespace

ProcessUnwinder::ProcessUnwinder(pid_t pid) : pid_(pid), dwfl_(dwfl_begin(&kCallbacks)) {
  if (!dwfl_) return;
  // Assumed stopped: libdwfl neither attaches nor detaches; it reads through ptrace the
  // threads we hold.
  attached_ = dwfl_linux_proc_report(dwfl_, pid) == 0 && dwfl_report_end(dwfl_, nullptr, nullptr) == 0 &&
              dwfl_linux_proc_attach(dwfl_, pid, true) == 0;
}

ProcessUnwinder::~ProcessUnwinder() {
  if (dwfl_) dwfl_end(dwfl_);
}

bool ProcessUnwinder::follows_call(uint64_t return_address) {
  if (!calls_.ok()) return true;  // without capstone, as libdwfl found it
  const auto [known, added] = checked_returns_.try_emplace(return_address, false);
  if (!added) return known->second;
  uint8_t before[10];  // the longest call a compiler emits: notrack, REX, ff, ModRM, SIB, disp32
  known->second = return_address >= sizeof before &&
                  read_process_memory(pid_, return_address - sizeof before, before, sizeof before) &&
                  calls_.ends_with_call(before, sizeof before);
  return known->second;
}

std::string ProcessUnwinder::function_name(uint64_t address) const {
  Dwfl_Module* mod = attached_ ? dwfl_addrmodule(dwfl_, address) : nullptr;
  const char* name = mod ? dwfl_module_addrname(mod, address) : nullptr;
  return name ? name : "";
}

std::vector<UnwoundFrame> ProcessUnwinder::frames(pid_t tid, size_t max, bool* whole) {
  Collect c{{}, max};
  const int status = attached_ && max > 0 ? dwfl_getthread_frames(dwfl_, tid, take_frame, &c) : -1;
  if (whole) *whole = status == 0;  // -1: it could not go on; DWARF_CB_ABORT: `max` reached
  for (size_t i = 0; i < c.frames.size(); ++i) {
    if (c.frames[i].activation || follows_call(c.frames[i].pc)) continue;
    c.frames.resize(i);
    if (whole) *whole = false;
    break;
  }
  return std::move(c.frames);
}

}  // namespace callprof::inject
