// Test helper (see unwinder_capture.h): a minimal perf_event sampler and maps reader.
#include "unwinder_capture.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace callprof::test_support {
namespace {

using perf::Sample;

// perf's x86 register order (bits of sample_regs_user) for each DWARF register.
constexpr std::array<int, perf::kDwarfRegs> kPerfRegOfDwarf = {0,  3,  2,  1,  4,  5,  6,  7, 16,
                                                               17, 18, 19, 20, 21, 22, 23, 8};
constexpr uint64_t kRegsMask = 0x1ffull | (0xffull << 16);
constexpr size_t kRingPages = 512;

class Child {
 public:
  Child(const std::string& program, std::string& error);
  ~Child();
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

Child::Child(const std::string& program, std::string& error) {
  int out[2];
  if (pipe(out) != 0) {
    error = "pipe failed";
    return;
  }
  pid_ = fork();
  if (pid_ == 0) {
    dup2(out[1], STDOUT_FILENO);
    execl(program.c_str(), program.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  pollfd wait_ready{out[0], POLLIN, 0};
  char buffer[16] = {};
  if (poll(&wait_ready, 1, 10000) != 1 || read(out[0], buffer, sizeof buffer - 1) <= 0 ||
      std::strncmp(buffer, "ready", 5) != 0) {
    error = program + " did not get ready";
  }
  close(out[0]);
}

Child::~Child() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
}

std::vector<perf::Mapping> read_maps(pid_t pid) {
  std::vector<perf::Mapping> mappings;
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream in(line);
    perf::Mapping m;
    std::string range, perms, dev, inode;
    in >> range >> perms >> std::hex >> m.pgoff >> dev >> inode >> std::ws;
    std::getline(in, m.path);
    if (perms.size() < 3 || perms[2] != 'x') continue;
    std::sscanf(range.c_str(), "%lx-%lx", reinterpret_cast<unsigned long*>(&m.start),
                reinterpret_cast<unsigned long*>(&m.end));
    m.pid = uint32_t(pid);
    mappings.push_back(m);
  }
  return mappings;
}

int open_sampler(pid_t pid, uint32_t stack_bytes) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.sample_period = 250000;  // 4 kHz of CPU time
  attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN |
                     PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
  attr.sample_regs_user = kRegsMask;
  attr.sample_stack_user = stack_bytes;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.exclude_callchain_kernel = 1;
  attr.wakeup_events = 4;
  return int(syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

// Reads one PERF_RECORD_SAMPLE body laid out as open_sampler asked for.
class RecordReader {
 public:
  RecordReader(const char* data, size_t size) : data_(data), size_(size) {}
  bool ok() const { return ok_; }
  template <typename T>
  T get() {
    T value{};
    if (at_ + sizeof value > size_) {
      ok_ = false;
      return value;
    }
    std::memcpy(&value, data_ + at_, sizeof value);
    at_ += sizeof value;
    return value;
  }
  const char* bytes(size_t n) {
    if (at_ + n > size_) {
      ok_ = false;
      return data_;
    }
    at_ += n;
    return data_ + at_ - n;
  }

 private:
  const char* data_;
  size_t size_, at_ = 0;
  bool ok_ = true;
};

bool decode_sample(const char* body, size_t size, Sample& s) {
  RecordReader in(body, size);
  s.ip = in.get<uint64_t>();
  s.pid = in.get<uint32_t>();
  s.tid = in.get<uint32_t>();
  s.time_ns = in.get<uint64_t>();
  const uint64_t nr = in.get<uint64_t>();
  for (uint64_t i = 0; i < nr && in.ok(); ++i) {
    uint64_t pc = in.get<uint64_t>();
    if (pc < uint64_t(PERF_CONTEXT_MAX)) s.user_chain.push_back(pc);
  }
  if (in.get<uint64_t>() != PERF_SAMPLE_REGS_ABI_NONE) {
    std::array<uint64_t, 17> perf_regs{};
    for (uint64_t& r : perf_regs) r = in.get<uint64_t>();
    // Values come in bit order of the mask: AX..IP are bits 0-8, R8..R15 bits 16-23.
    for (size_t dw = 0; dw < perf::kDwarfRegs; ++dw) {
      int bit = kPerfRegOfDwarf[dw];
      s.regs[dw] = perf_regs[size_t(bit < 16 ? bit : bit - 7)];
    }
    s.has_user_regs = true;
  }
  const uint64_t stack_size = in.get<uint64_t>();
  const char* stack = in.bytes(stack_size);
  const uint64_t dyn_size = stack_size != 0 ? in.get<uint64_t>() : 0;
  s.stack.assign(stack, std::min(stack_size, dyn_size));
  return in.ok();
}

// Copies records out of the ring (they may wrap) and decodes the samples.
void drain(perf_event_mmap_page* page, size_t count, std::vector<Sample>& samples) {
  const char* ring = reinterpret_cast<const char*>(page) + page->data_offset;
  const uint64_t size = page->data_size;
  uint64_t tail = page->data_tail;
  const uint64_t head = __atomic_load_n(&page->data_head, __ATOMIC_ACQUIRE);
  std::string record;
  while (tail < head) {
    perf_event_header header;
    for (size_t i = 0; i < sizeof header; ++i) reinterpret_cast<char*>(&header)[i] = ring[(tail + i) % size];
    record.resize(header.size);
    for (size_t i = 0; i < header.size; ++i) record[i] = ring[(tail + i) % size];
    tail += header.size;
    Sample s;
    if (header.type == PERF_RECORD_SAMPLE && samples.size() < count &&
        decode_sample(record.data() + sizeof header, header.size - sizeof header, s)) {
      samples.push_back(std::move(s));
    }
  }
  __atomic_store_n(&page->data_tail, tail, __ATOMIC_RELEASE);
}

}  // namespace

std::string run_command(const std::string& command) {
  std::string output;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return "cannot run: " + command;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
  int status = pclose(pipe);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  return command + " failed: " + (output.empty() ? std::string("(no output)") : output);
}

Capture capture_samples(const std::string& program, size_t count, uint32_t stack_bytes) {
  Capture capture;
  Child child(program, capture.error);
  if (!capture.error.empty()) return capture;
  capture.mappings = read_maps(child.pid());
  int fd = open_sampler(child.pid(), stack_bytes);
  if (fd < 0) {
    capture.skip_reason = std::string("perf_event_open(cpu-clock, user regs and stack): ") + std::strerror(errno);
    return capture;
  }
  const size_t bytes = (kRingPages + 1) * size_t(sysconf(_SC_PAGESIZE));
  void* ring = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (ring == MAP_FAILED) {
    capture.error = std::string("mmap of the perf ring: ") + std::strerror(errno);
    close(fd);
    return capture;
  }
  auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (capture.samples.size() < count && std::chrono::steady_clock::now() < give_up) {
    pollfd ready{fd, POLLIN, 0};
    poll(&ready, 1, 100);
    drain(static_cast<perf_event_mmap_page*>(ring), count, capture.samples);
  }
  if (capture.samples.size() < count) capture.error = "only " + std::to_string(capture.samples.size()) + " samples";
  munmap(ring, bytes);
  close(fd);
  return capture;
}

}  // namespace callprof::test_support
