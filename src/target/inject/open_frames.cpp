#include "target/inject/open_frames.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <algorithm>
#include <cstdlib>

#include "symbols/disassembler.h"
#include "symbols/elf_compiler.h"
#include "symbols/hook_call_sites.h"
#include "target/inject/process_memory.h"

namespace callprof::inject {
namespace {

constexpr uint64_t kEntryHookSpan = 64;  // a function calls its entry hook within these bytes
constexpr uint64_t kCallBytes = 5;       // call rel32
constexpr uint64_t kEpilogueBytes = 32;  // at most this much code between an exit hook and ret
constexpr size_t kMaxFrames = 4096;

const char* linkage_name(Dwarf_Die* die) {
  Dwarf_Attribute a;
  for (int at : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name})
    if (dwarf_attr_integrate(die, at, &a))
      if (const char* s = dwarf_formstring(&a)) return s;
  return dwarf_diename(die);
}

bool control_flow(const cs_insn& insn) {
  const std::string m = insn.mnemonic;
  return m[0] == 'j' || m.rfind("call", 0) == 0 || m.rfind("ret", 0) == 0 || m.rfind("bnd", 0) == 0;
}

// Where `function` calls its entry hook; 0: it does not (not hooked).
uint64_t own_entry_site(uint64_t function, const std::vector<uint64_t>& enter_sites) {
  const auto own = std::lower_bound(enter_sites.begin(), enter_sites.end(), function);
  return own == enter_sites.end() || *own >= function + kEntryHookSpan ? 0 : *own;
}

bool has(const std::vector<uint64_t>& sorted, uint64_t x) {
  return std::binary_search(sorted.begin(), sorted.end(), x);
}

}  // namespace

FrameOpen frame_open(uint64_t function, uint64_t pc, bool activation, const std::vector<uint64_t>& enter_sites,
                     const std::vector<uint64_t>& exit_sites, bool after_exit_call, bool cold_part) {
  const uint64_t own = own_entry_site(function, enter_sites);
  if (own == 0) return FrameOpen::None;
  if (activation) {
    if (!cold_part && pc <= own) return FrameOpen::None;  // its entry hook has not run
    return after_exit_call ? FrameOpen::AllButInnermost : FrameOpen::All;
  }
  // The thread is inside the hook this frame called: an exit hook means that function returned.
  if (has(exit_sites, pc - kCallBytes)) return FrameOpen::AllButInnermost;
  return FrameOpen::All;
}

struct HookedCode::Placed {
  Module* module = nullptr;
  uint64_t function = 0;          // the physical function's address (of a cold part: its function's)
  bool cold = false;              // the pc is in the function's cold part
  std::vector<uint64_t> inlined;  // hooked inlined copies around the pc, outermost first
};

HookedCode::HookedCode(pid_t pid, const std::vector<MappedModule>& modules) : pid_(pid) {
  for (const MappedModule& mm : modules) {
    if (modules_.count(mm.path)) continue;
    auto sites = find_hook_call_sites(mm.file);
    if (!sites || sites->enter.empty()) continue;
    Module m;
    for (uint64_t a : sites->enter) m.enter.push_back(a + mm.bias);
    for (uint64_t a : sites->exit) m.exit.push_back(a + mm.bias);
    for (int k = 0; k < 2; ++k)
      for (uint64_t a : sites->stubs[k]) m.stubs[k].push_back(a + mm.bias);
    m.hooks_inlined_copies = elf_compiler(mm.file) == "gcc";
    cold_.add(mm.file, mm.bias);
    modules_.emplace(mm.path, std::move(m));
  }
}

uint64_t HookedCode::function_named(Module& m, void* dwfl_module, const char* name) {
  auto* mod = static_cast<Dwfl_Module*>(dwfl_module);
  if (!m.functions_read) {
    m.functions_read = true;
    const int n = dwfl_module_getsymtab(mod);
    for (int i = 1; i < n; ++i) {
      GElf_Sym sym;
      GElf_Addr addr = 0;
      const char* s = dwfl_module_getsym_info(mod, i, &sym, &addr, nullptr, nullptr, nullptr);
      if (s && GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_shndx != SHN_UNDEF && addr != 0)
        m.functions.emplace(s, addr);
    }
  }
  auto [lo, hi] = m.functions.equal_range(name);
  if (lo == hi) return 0;
  for (auto it = lo; it != hi; ++it)
    if (it->second != lo->second) return 0;  // two functions of that name (static ones): which is unknown
  return lo->second;
}

bool HookedCode::place(ProcessUnwinder& unwinder, uint64_t code, Placed& out) {
  Dwfl_Module* mod = dwfl_addrmodule(unwinder.dwfl(), code);
  if (!mod) return false;
  const char* path = dwfl_module_info(mod, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
  auto it = path ? modules_.find(path) : modules_.end();
  if (it == modules_.end()) return false;
  GElf_Off offset = 0;
  GElf_Sym sym;
  if (!dwfl_module_addrinfo(mod, code, &offset, &sym, nullptr, nullptr, nullptr) ||
      GELF_ST_TYPE(sym.st_info) != STT_FUNC)
    return false;
  out.module = &it->second;
  out.function = code - offset;
  // GCC's `f.cold` holds f's unlikely paths: a frame there is f's (named by f's address).
  const uint64_t owner = cold_.owner_of(out.function);
  out.cold = owner != 0;
  if (out.cold) out.function = owner;
  out.inlined.clear();
  if (!out.module->hooks_inlined_copies) return true;
  Dwarf_Addr bias = 0;
  Dwarf_Die* cu = dwfl_module_addrdie(mod, code, &bias);
  Dwarf_Die* scopes = nullptr;
  const int n = cu ? dwarf_getscopes(cu, code - bias, &scopes) : 0;
  for (int i = n - 1; i >= 0; --i) {
    if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine) continue;
    Dwarf_Attribute a;
    Dwarf_Die origin;
    if (!dwarf_attr(&scopes[i], DW_AT_abstract_origin, &a) || !dwarf_formref_die(&a, &origin)) continue;
    const char* name = linkage_name(&origin);
    if (const uint64_t at = name ? function_named(*out.module, mod, name) : 0) out.inlined.push_back(at);
  }
  free(scopes);
  return true;
}

// Whether `pc` follows the call of an exit hook with no jump, call or return between: the
// function has returned but for its last instructions.
bool HookedCode::after_exit_call(const Module& m, uint64_t pc) {
  auto it = std::upper_bound(m.exit.begin(), m.exit.end(), pc - kCallBytes);
  if (it == m.exit.begin()) return false;
  const uint64_t from = *(it - 1) + kCallBytes;
  if (pc == from) return true;
  if (pc - from > kEpilogueBytes) return false;
  uint8_t bytes[kEpilogueBytes];
  if (!read_process_memory(pid_, from, bytes, pc - from)) return false;
  Disassembler d;
  const uint8_t* code = bytes;
  size_t size = pc - from;
  uint64_t address = from;
  while (address < pc && d.next(&code, &size, &address))
    if (control_flow(d.insn())) return false;
  return address == pc;
}

// A thread stopped in a hook's PLT stub has not called the hook yet: once the stub jumps
// through its slot, which points at the runtime by then, the runtime gets that call.
// 0: the entry hook's stub, 1: the exit hook's, -1: neither.
int HookedCode::pending_hook(ProcessUnwinder& unwinder, uint64_t pc) {
  constexpr uint64_t kStubBytes = 16;
  Dwfl_Module* mod = dwfl_addrmodule(unwinder.dwfl(), pc);
  const char* path =
      mod ? dwfl_module_info(mod, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr) : nullptr;
  auto it = path ? modules_.find(path) : modules_.end();
  if (it == modules_.end()) return -1;
  for (int k = 0; k < 2; ++k)
    for (uint64_t stub : it->second.stubs[k])
      if (pc >= stub && pc < stub + kStubBytes) return k;
  return -1;
}

std::vector<OpenFrame> HookedCode::open_frames(ProcessUnwinder& unwinder, pid_t tid, const user_regs_struct& regs) {
  bool whole = false;
  const std::vector<UnwoundFrame> frames = unwinder.frames(tid, kMaxFrames, &whole);
  if (!whole || frames.size() < 2) return {};
  const int pending = frames[0].activation ? pending_hook(unwinder, frames[0].pc) : -1;
  bool pending_placed = false;
  std::vector<OpenFrame> inner_first;
  Placed p;
  for (size_t i = 0; i < frames.size(); ++i) {
    const UnwoundFrame& f = frames[i];
    if (!place(unwinder, f.code(), p)) continue;
    const Module& m = *p.module;
    FrameOpen open =
        frame_open(p.function, f.pc, f.activation, m.enter, m.exit, f.activation && after_exit_call(m, f.pc), p.cold);
    if (i == 1 && pending >= 0 && open != FrameOpen::None && has(pending == 0 ? m.enter : m.exit, f.pc - kCallBytes)) {
      open = pending == 0 ? FrameOpen::AllButInnermost : FrameOpen::All;  // its hook call is still to come
      pending_placed = true;
    }
    if (open == FrameOpen::None) continue;
    // Its extent: just below its return address, which the caller's stack pointer points past.
    if (i + 1 == frames.size() || frames[i + 1].sp < 8) return {};  // not unwound past hooked code
    std::vector<OpenFrame> here{{p.function, frames[i + 1].pc, frames[i + 1].sp - 8}};
    for (uint64_t fn : p.inlined) here.push_back({fn, 0, frames[i + 1].sp - 8});
    if (open == FrameOpen::AllButInnermost) here.pop_back();
    inner_first.insert(inner_first.end(), here.rbegin(), here.rend());
  }
  // GCC's tail jump to the exit hook: the function it ends has no frame left, its return
  // address on top of the stack; the hook's first argument names it.
  if (pending == 1 && !pending_placed && place(unwinder, regs.rdi, p) && p.function == regs.rdi &&
      own_entry_site(p.function, p.module->enter) != 0)
    inner_first.insert(inner_first.begin(), OpenFrame{p.function, frames[1].pc, frames[0].sp});
  return {inner_first.rbegin(), inner_first.rend()};
}

}  // namespace callprof::inject
