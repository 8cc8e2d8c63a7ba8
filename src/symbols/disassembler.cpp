#include "symbols/disassembler.h"

#include <dlfcn.h>

namespace callprof {

struct Disassembler::Api {
  decltype(&cs_open) open;
  decltype(&cs_option) option;
  decltype(&cs_close) close;
  decltype(&cs_malloc) malloc_insn;
  decltype(&cs_free) free_insns;
  decltype(&cs_disasm_iter) disasm_iter;
  decltype(&cs_regs_access) regs_access;
};

namespace {

template <typename F>
bool bind(void* lib, const char* name, F* out) {
  *out = reinterpret_cast<F>(dlsym(lib, name));
  return *out != nullptr;
}

// The library stays loaded once found; null and the reason when it cannot be.
const Disassembler::Api* load_capstone(std::string* why) {
  static std::string error;
  static const Disassembler::Api* api = []() -> const Disassembler::Api* {
    void* lib = dlopen(CALLPROF_CAPSTONE_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      error = std::string("cannot load capstone (" CALLPROF_CAPSTONE_SONAME "): ") + (e ? e : "unknown error");
      return nullptr;
    }
    static Disassembler::Api a{};
    if (bind(lib, "cs_open", &a.open) && bind(lib, "cs_option", &a.option) && bind(lib, "cs_close", &a.close) &&
        bind(lib, "cs_malloc", &a.malloc_insn) && bind(lib, "cs_free", &a.free_insns) &&
        bind(lib, "cs_disasm_iter", &a.disasm_iter) && bind(lib, "cs_regs_access", &a.regs_access))
      return &a;
    error = "capstone (" CALLPROF_CAPSTONE_SONAME ") lacks a function callprof uses";
    return nullptr;
  }();
  if (!api) *why = error;
  return api;
}

}  // namespace

Disassembler::Disassembler(cs_opt_type option) {
  api_ = load_capstone(&error_);
  if (!api_) return;
  if (api_->open(CS_ARCH_X86, CS_MODE_64, &handle_) != CS_ERR_OK) {
    error_ = "capstone cannot disassemble x86-64";
    handle_ = 0;
    return;
  }
  if (option != CS_OPT_INVALID) api_->option(handle_, option, CS_OPT_ON);
  insn_ = api_->malloc_insn(handle_);
  if (!insn_) error_ = "capstone: out of memory";
}

Disassembler::~Disassembler() {
  if (insn_) api_->free_insns(insn_, 1);
  if (handle_) api_->close(&handle_);
}

bool Disassembler::next(const uint8_t** code, size_t* size, uint64_t* address) {
  return api_->disasm_iter(handle_, code, size, address, insn_);
}

bool Disassembler::ends_with_call(const uint8_t* code, size_t size) {
  constexpr size_t kShortestCall = 2, kLongestInstruction = 15;  // call *%rax; x86-64's limit
  for (size_t length = kShortestCall; length <= size && length <= kLongestInstruction; ++length) {
    const uint8_t* at = code + size - length;
    size_t left = length;
    uint64_t address = 0;
    if (next(&at, &left, &address) && left == 0 && insn_->id == X86_INS_CALL) return true;
  }
  return false;
}

bool Disassembler::registers(const cs_insn& insn, cs_regs read, uint8_t* nread, cs_regs written,
                             uint8_t* nwritten) const {
  return api_->regs_access(handle_, &insn, read, nread, written, nwritten) == CS_ERR_OK;
}

}  // namespace callprof
