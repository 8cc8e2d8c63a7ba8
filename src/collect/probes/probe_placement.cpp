#include "collect/probes/probe_placement.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <memory>

#include "symbols/disassembler.h"

namespace callprof::probes {
namespace {

// One decoder per thread, with operand details (groups, operands, registers).
Disassembler& decoder() {
  static thread_local Disassembler cs(CS_OPT_DETAIL);
  return cs;
}

bool in_cold_part(const ColdParts& cold, uint64_t address) {
  auto after = std::upper_bound(cold.begin(), cold.end(), std::make_pair(address, UINT64_MAX));
  return after != cold.begin() && address < std::prev(after)->second;
}

bool in_group(const cs_insn& insn, uint8_t group) {
  const cs_detail* d = insn.detail;
  return d && std::find(d->groups, d->groups + d->groups_count, group) != d->groups + d->groups_count;
}

// The target of a relative jmp, jcc, loop or call; 0 for an indirect one.
uint64_t direct_target(const cs_insn& insn) {
  const cs_x86& x86 = insn.detail->x86;
  return x86.op_count == 1 && x86.operands[0].type == X86_OP_IMM ? uint64_t(x86.operands[0].imm) : 0;
}

// The kernel's multi-byte nops (x86_nops[], P6 encodings): what every kernel emulates as a
// nop; newer ones (insn_is_nop(), 6.18+) recognise more, never fewer.
bool is_kernel_nop(const uint8_t* code, size_t size) {
  static const uint8_t nops[][8] = {{0x90},
                                    {0x66, 0x90},
                                    {0x0f, 0x1f, 0x00},
                                    {0x0f, 0x1f, 0x40, 0x00},
                                    {0x0f, 0x1f, 0x44, 0x00, 0x00},
                                    {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00},
                                    {0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00},
                                    {0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00}};
  return size >= 1 && size <= 8 && std::memcmp(code, nops[size - 1], size) == 0;
}

// 0..15 for the parts of a general-purpose register, -1 for any other register.
int gpr(unsigned reg) {
  static const unsigned families[16][4] = {
      {X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL},      {X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL},
      {X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL},      {X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL},
      {X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL},     {X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL},
      {X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL},     {X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL},
      {X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B},     {X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B},
      {X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B}, {X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B},
      {X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B}, {X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B},
      {X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B}, {X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B}};
  if (reg == X86_REG_AH) return 0;
  if (reg == X86_REG_CH) return 1;
  if (reg == X86_REG_DH) return 2;
  if (reg == X86_REG_BH) return 3;
  for (int i = 0; i < 16; ++i)
    if (std::find(families[i], families[i] + 4, reg) != families[i] + 4) return i;
  return -1;
}

// An instruction the entry probe may be moved past: it cannot fault, branch or touch
// memory, and leaves alone what unwinding the callers needs (the stack pointer and the
// callee-saved rbx, rbp, r12-r15) — so the stack at the moved probe is the entry's.
bool harmless(const Disassembler& cs, const cs_insn& insn) {
  switch (insn.id) {
    case X86_INS_ENDBR64:
    case X86_INS_ENDBR32:
    case X86_INS_NOP:
    case X86_INS_MOV:
    case X86_INS_MOVABS:
    case X86_INS_MOVZX:
    case X86_INS_MOVSX:
    case X86_INS_MOVSXD:
    case X86_INS_LEA:
    case X86_INS_XOR:
    case X86_INS_AND:
    case X86_INS_OR:
    case X86_INS_ADD:
    case X86_INS_SUB:
    case X86_INS_CMP:
    case X86_INS_TEST:
      break;
    default:
      return false;
  }
  const cs_x86& x86 = insn.detail->x86;
  for (uint8_t i = 0; i < x86.op_count; ++i) {
    const cs_x86_op& op = x86.operands[i];
    if (op.type == X86_OP_MEM && insn.id != X86_INS_LEA && insn.id != X86_INS_NOP) return false;
    if (op.type == X86_OP_MEM && op.mem.segment != X86_REG_INVALID) return false;
    if (op.type == X86_OP_REG && gpr(op.reg) < 0) return false;
  }
  cs_regs read, written;
  uint8_t nread = 0, nwritten = 0;
  if (!cs.registers(insn, read, &nread, written, &nwritten)) return false;
  for (uint8_t i = 0; i < nwritten; ++i) {
    if (written[i] == X86_REG_EFLAGS) continue;
    const int r = gpr(written[i]);
    if (r < 0 || r == 3 || r == 4 || r == 5 || r >= 12) return false;
  }
  return true;
}

constexpr int kMostMovedPast = 8;

}  // namespace

bool uprobe_emulates(const uint8_t* code, size_t size) {
  if (size == 0) return false;
  if (is_kernel_nop(code, size)) return true;
  if (size == 1 && code[0] >= 0x50 && code[0] <= 0x57) return true;                     // push reg
  if (size == 2 && code[0] == 0x41 && code[1] >= 0x50 && code[1] <= 0x57) return true;  // push r8-r15
  // Branches, after their prefixes: bnd (f2) and rep (f3) are taken; the kernel refuses to
  // emulate a branch with 0x66 and to probe any instruction with a segment prefix (2e, 3e
  // `notrack`...) at all.
  size_t p = 0;
  while (p < size && (code[p] == 0xf2 || code[p] == 0xf3)) ++p;
  const size_t rest = size - p;
  const uint8_t op = p < size ? code[p] : 0;
  if ((op == 0xeb || (op >= 0x70 && op <= 0x7f)) && rest == 2) return true;      // jmp rel8, jcc rel8
  if ((op == 0xe9 || op == 0xe8) && rest == 5) return true;                      // jmp rel32, call rel32
  return op == 0x0f && rest == 6 && code[p + 1] >= 0x80 && code[p + 1] <= 0x8f;  // jcc rel32
}

std::vector<uint64_t> branch_targets(const uint8_t* code, size_t size, uint64_t address) {
  Disassembler& cs = decoder();
  std::vector<uint64_t> out;
  if (!cs.ok()) return out;
  const uint8_t* p = code;
  size_t left = size;
  uint64_t at = address;
  while (left > 0 && cs.next(&p, &left, &at))
    if (in_group(cs.insn(), X86_GRP_JUMP) || in_group(cs.insn(), X86_GRP_CALL))
      if (const uint64_t t = direct_target(cs.insn())) out.push_back(t);
  std::sort(out.begin(), out.end());
  return out;
}

Placement place_probes(const uint8_t* code, size_t size, uint64_t address, const ColdParts& cold,
                       const std::vector<uint64_t>& entries) {
  Disassembler& cs = decoder();
  Placement pl;
  if (!cs.ok()) return pl;
  const uint64_t end = address + size;
  const uint8_t* p = code;
  size_t left = size;
  uint64_t at = address;
  bool leaf = true, indirect_jump = false, moving = true;
  int index = 0;
  bool found = false;
  uint64_t candidate = 0;  // address of the first emulated instruction, after harmless ones only
  std::vector<uint64_t> targets;
  for (; left > 0 && cs.next(&p, &left, &at); ++index) {
    const cs_insn& i = cs.insn();
    const bool jump = in_group(i, X86_GRP_JUMP), call = in_group(i, X86_GRP_CALL);
    const uint64_t target = jump || call ? direct_target(i) : 0;
    if (target) targets.push_back(target);
    if (jump && !target) indirect_jump = true;
    const bool leaves = jump && target && (target < address || target >= end);
    if (i.id == X86_INS_RET || (i.id == X86_INS_JMP && leaves && !in_cold_part(cold, target))) {
      pl.exits.push_back(i.address - address);
      pl.exits_emulated.push_back(uprobe_emulates(i.bytes, i.size));
    }
    // A leaf: nothing it runs can throw through its frame, be cancelled or enter the kernel.
    if (call || leaves || (jump && !target) || in_group(i, X86_GRP_INT) || in_group(i, X86_GRP_IRET) ||
        i.id == X86_INS_SYSCALL || i.id == X86_INS_SYSENTER || i.id == X86_INS_UD2 || i.id == X86_INS_UD0 ||
        i.id == X86_INS_HLT || i.id == X86_INS_XBEGIN)
      leaf = false;
    if (moving && index <= kMostMovedPast && uprobe_emulates(i.bytes, i.size)) {
      found = true;
      candidate = i.address;
    }
    if (moving && (found || index >= kMostMovedPast || !harmless(cs, i))) moving = false;
  }
  if (left > 0) leaf = false;  // undecodable code: what it does is unknown
  // Moved only where nothing can enter between the function's start and the probe.
  auto enters_before = [&](const std::vector<uint64_t>& at_addresses) {
    return std::any_of(at_addresses.begin(), at_addresses.end(),
                       [&](uint64_t a) { return a > address && a <= candidate; });
  };
  if (found && (candidate == address || (!indirect_jump && !enters_before(targets) && !enters_before(entries)))) {
    pl.entry = candidate - address;
    pl.entry_emulated = true;
  }
  // The entry's instruction leaves the function (a function that is `jmp other`, maybe after
  // harmless instructions): no exit probe of its own there — two probes at one address fire
  // in an order the kernel does not promise — the entry is also the exit.
  if (!pl.exits.empty() && pl.exits.front() == pl.entry) {
    pl.entry_exits = true;
    pl.exits.erase(pl.exits.begin());
    pl.exits_emulated.erase(pl.exits_emulated.begin());
  }
  pl.leaf = leaf && !pl.entry_exits && size > 0;
  return pl;
}

}  // namespace callprof::probes
