// Frame rules from the CFI, for walks that only need "where is the return address and
// the caller's rbp" (system-call entries: a few frames of a copied window, per call).
// libdw describes the CFA as a DWARF expression; the usual rules are one DW_OP_bregx
// (register + offset), which is all this reads. Anything else is Unknown, and the caller
// falls back to libdwfl's full unwinder.
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "collect/stacks/unwinder.h"
#include "collect/stacks/unwinder_address_space.h"

namespace callprof::stacks {
namespace {

constexpr unsigned kRegBp = 6, kRegSp = 7, kRegRa = 16;

FrameRule rule_at(Dwfl* dwfl, uint64_t pc) {
  FrameRule rule;
  Dwfl_Module* module = dwfl ? dwfl_addrmodule(dwfl, pc) : nullptr;
  if (!module) return rule;
  Dwarf_Addr bias = 0;
  Dwarf_CFI* cfi = dwfl_module_eh_cfi(module, &bias);
  Dwarf_Frame* frame = nullptr;
  if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame) != 0) {
    cfi = dwfl_module_dwarf_cfi(module, &bias);
    if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame) != 0) return rule;
  }
  // The outermost frame (_start, a thread's clone): CFI marks its return address undefined
  // (libdw: no operations, *ops pointing at the caller's array).
  Dwarf_Op ra_mem[3];
  Dwarf_Op* ra_ops = nullptr;
  size_t ra_nops = 0;
  if (dwarf_frame_register(frame, kRegRa, ra_mem, &ra_ops, &ra_nops) == 0 && ra_nops == 0 && ra_ops == ra_mem) {
    free(frame);
    rule.kind = FrameRule::Outermost;
    return rule;
  }
  Dwarf_Op* ops = nullptr;
  size_t nops = 0;
  if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1 && ops[0].atom == DW_OP_bregx) {
    if (ops[0].number == kRegSp) rule.kind = FrameRule::SpOffset;
    if (ops[0].number == kRegBp) rule.kind = FrameRule::BpBased;
    rule.offset = int32_t(int64_t(ops[0].number2));
  }
  // The caller's rbp: "offset(N)" comes as DW_OP_call_frame_cfa followed by
  // DW_OP_plus_uconst N (N wrapped to unsigned when negative) or DW_OP_consts N, DW_OP_plus.
  Dwarf_Op mem[3];
  Dwarf_Op* bp_ops = nullptr;
  size_t bp_nops = 0;
  if (dwarf_frame_register(frame, kRegBp, mem, &bp_ops, &bp_nops) == 0 && bp_nops >= 1 &&
      bp_ops[0].atom == DW_OP_call_frame_cfa) {
    if (bp_nops == 1) {
      rule.saves_bp = true;
    } else if (bp_nops == 3 && bp_ops[1].atom == DW_OP_consts && bp_ops[2].atom == DW_OP_plus) {
      rule.saves_bp = true;
      rule.bp_offset = int32_t(int64_t(bp_ops[1].number));
    } else if (bp_nops == 2 && bp_ops[1].atom == DW_OP_plus_uconst) {  // libdw's form (wraps below 0)
      rule.saves_bp = true;
      rule.bp_offset = int32_t(int64_t(bp_ops[1].number));
    } else {
      rule.kind = FrameRule::Unknown;
    }
  }
  free(frame);
  return rule;
}

}  // namespace

FrameRule Unwinder::frame_rule(uint32_t pid, uint64_t pc) {
  auto [it, added] = rules_.try_emplace(RuleKey{pid, pc});
  if (added) {
    if (rules_.size() > (1u << 20)) {  // bounded; refilled as stacks come again
      rules_.clear();
      it = rules_.try_emplace(RuleKey{pid, pc}).first;
    }
    it->second = rule_at(space_of(pid).dwfl(warnings_), pc);
  }
  return it->second;
}

}  // namespace callprof::stacks
