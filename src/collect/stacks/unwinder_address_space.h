// One process image as the unwinder sees it: its executable mappings, the libdwfl
// session with one module per mapped file (reported once, kept across samples), and
// the memory a walk may read: the sample's stack copy and the files' read-only bytes.
#pragma once

#include <elfutils/libdwfl.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "collect/perf/perf_records.h"

namespace callprof::stacks {

// The user stack bytes the kernel copied with a sample: [sp, sp + size).
struct StackCopy {
  uint64_t sp = 0;
  const char* bytes = nullptr;
  size_t size = 0;

  bool read(uint64_t address, uint64_t* out) const {
    if (address < sp || address - sp > size || size - (address - sp) < sizeof *out) return false;
    std::memcpy(out, bytes + (address - sp), sizeof *out);
    return true;
  }
  // Above the copy: the walk went on into stack the kernel did not copy.
  bool beyond(uint64_t address) const { return address >= sp && address - sp + sizeof(uint64_t) > size; }
};

class AddressSpace {
 public:
  explicit AddressSpace(uint32_t pid) : pid_(pid) {}
  AddressSpace(uint32_t pid, const AddressSpace& parent);  // fork: same mappings, own libdwfl
  ~AddressSpace();
  AddressSpace(const AddressSpace&) = delete;
  AddressSpace& operator=(const AddressSpace&) = delete;

  uint32_t pid() const { return pid_; }
  void add(const perf::Mapping& mapping);
  bool empty() const { return mappings_.empty(); }

  // In some executable mapping, file-backed or not (JIT code counts).
  bool executable(uint64_t address) const;

  // The libdwfl session, brought up to date with the mappings (modules of new mappings
  // reported); null while no file could be reported. Problems go to warnings, once each.
  Dwfl* dwfl(std::vector<std::string>& warnings);

  // A word of a read-only segment of the file mapped at address (what a CFI
  // expression may dereference besides the stack).
  bool read_file_word(uint64_t address, uint64_t* out) const;

  // Per-walk context for libdwfl's callbacks, which only get this object.
  void* walk = nullptr;

 private:
  void rebuild(std::vector<std::string>& warnings);
  void report(const perf::Mapping& mapping, std::vector<std::string>& warnings);

  uint32_t pid_;
  std::vector<perf::Mapping> mappings_;  // sorted by start, not overlapping
  std::vector<perf::Mapping> pending_;   // added since the modules were last reported
  bool rebuild_ = false;                 // a reported mapping was replaced: start a new session
  Dwfl* dwfl_ = nullptr;
  bool has_modules_ = false;
  std::vector<std::pair<std::string, uint64_t>> reported_;  // (path, bias) of each module
};

void add_warning(std::vector<std::string>& warnings, std::string warning);

}  // namespace callprof::stacks
