#include "target/inject/patched_code.h"

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include <algorithm>
#include <cstring>

#include "symbols/elf_sections.h"
#include "target/inject/process_memory.h"

namespace callprof::inject {
namespace {

constexpr size_t kMaxFrames = 4096;
constexpr uint64_t kEndbrBytes = 4;

// The module's sections of sites, in the process: [start, end).
std::vector<std::pair<uint64_t, uint64_t>> sections_of(const MappedModule& m) {
  auto sections = allocated_sections(m.file, kPatchableSection);
  if (!sections) return {};
  for (auto& [start, end] : *sections) start += m.bias, end += m.bias;
  return *sections;
}

// Whether `address` lies in libgcc's unwinder (libgcc_s.so): a thread stopped there is
// walking its own stack (a C++ throw's search or cleanup phase), reading the return
// addresses that replacing now would hide from it.
bool in_unwinder(ProcessUnwinder& unwinder, uint64_t address) {
  Dwfl_Module* mod = dwfl_addrmodule(unwinder.dwfl(), address);
  const char* path =
      mod ? dwfl_module_info(mod, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr) : nullptr;
  const char* base = path ? std::strrchr(path, '/') : nullptr;
  return base && std::strncmp(base + 1, "libgcc_s.so", 11) == 0;
}

}  // namespace

PatchedCode::PatchedCode(pid_t pid, const std::vector<MappedModule>& modules) : pid_(pid) {
  for (const MappedModule& m : modules)
    for (const auto& [start, end] : sections_of(m)) {
      std::vector<uint64_t> at((end - start) / 8);
      if (at.empty() || !read_process_memory(pid, start, at.data(), at.size() * 8)) continue;
      ranges_.emplace_back(start, end);
      if (modules_.insert(m.path).second) cold_.add(m.file, m.bias);
      for (uint64_t site : at)
        if (site != 0) sites_.push_back(site);
    }
  std::sort(sites_.begin(), sites_.end());
  sites_.erase(std::unique(sites_.begin(), sites_.end()), sites_.end());
}

uint64_t PatchedCode::past_nops(uint64_t pc) const {
  auto it = std::upper_bound(sites_.begin(), sites_.end(), pc);
  if (it == sites_.begin()) return 0;
  const uint64_t site = *(it - 1);
  return pc > site && pc < site + kPatchBytes ? site + kPatchBytes : 0;
}

uint64_t PatchedCode::site_of(uint64_t function) const {
  for (uint64_t site : {function, function + kEndbrBytes})
    if (std::binary_search(sites_.begin(), sites_.end(), site)) return site;
  return 0;
}

std::vector<OpenFrame> PatchedCode::open_frames(ProcessUnwinder& unwinder, pid_t tid, bool* unwinding_out) const {
  bool whole = false;
  const std::vector<UnwoundFrame> frames = unwinder.frames(tid, kMaxFrames, &whole);
  // Inside the unwinder, its stack may not unwind whole while the catch's context is being
  // installed: the process is stopped again later all the same.
  bool unwinding = false;
  for (const UnwoundFrame& f : frames) unwinding = unwinding || in_unwinder(unwinder, f.code());
  if (unwinding_out) *unwinding_out = *unwinding_out || unwinding;
  if (!whole || frames.size() < 2) return {};
  std::vector<OpenFrame> inner_first;
  for (size_t i = 0; i < frames.size(); ++i) {
    const UnwoundFrame& f = frames[i];
    // Only a module with sites is looked into: a symbol lookup in libc's may go looking
    // for its debug information (0.4 ms per thread).
    Dwfl_Module* mod = dwfl_addrmodule(unwinder.dwfl(), f.code());
    const char* path =
        mod ? dwfl_module_info(mod, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr) : nullptr;
    GElf_Off offset = 0;
    GElf_Sym sym;
    if (!path || !modules_.contains(path) ||
        !dwfl_module_addrinfo(mod, f.code(), &offset, &sym, nullptr, nullptr, nullptr) ||
        GELF_ST_TYPE(sym.st_info) != STT_FUNC)
      continue;
    uint64_t function = f.code() - offset;
    uint64_t site = site_of(function);
    bool open = site != 0 && frame_open(site, f.pc, f.activation);
    if (site == 0 && (function = cold_.owner_of(function)) != 0) {
      site = site_of(function);
      open = site != 0;  // its cold part runs only after its entry
    }
    if (!open) continue;
    // Its return address: where the caller's stack pointer points past.
    if (i + 1 == frames.size() || frames[i + 1].sp < 8) return {};
    const uint64_t slot = frames[i + 1].sp - 8;
    uint64_t held = 0;
    if (!read_process_memory(pid_, slot, &held, sizeof held) || held != frames[i + 1].pc) return {};
    inner_first.push_back(OpenFrame{function, held, slot, 1});
  }
  // Walking its stack (a throw): the slots must not change under the walk; the runtime
  // replaces them at the catch that ends it (wire::AttachFrame::returns).
  if (unwinding)
    for (OpenFrame& f : inner_first) f.returns = 2;
  return {inner_first.rbegin(), inner_first.rend()};
}

}  // namespace callprof::inject
