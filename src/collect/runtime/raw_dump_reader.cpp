// Raw dump parsing: a bounds-checked cursor over the file's bytes.
#include "collect/runtime/raw_dump_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

namespace callprof {
namespace {

// Over bytes in memory, or over a file read straight into the arrays it fills: a large
// tree's dump (tens of MB) is then written into memory once, not first into a buffer the
// size of the file (whose zero-fill held a quarter of manypaths' recording's page faults).
class Cursor {
 public:
  Cursor(std::string_view bytes, const std::string& name) : b_(bytes), size_(bytes.size()), name_(name) {}
  Cursor(int fd, uint64_t size, const std::string& name) : fd_(fd), size_(size), name_(name) {}

  template <typename T>
  bool get(T& out) {
    return take(&out, sizeof(T));
  }
  bool get_bytes(uint64_t n, std::string& out) {
    if (size_ - at_ < n) return false;
    out.resize(n);
    return take(out.data(), n);
  }
  template <typename T>
  bool get_array(uint64_t count, std::vector<T>& out) {
    if (count > (size_ - at_) / sizeof(T)) return false;
    out.resize(count);
    return take(out.data(), count * sizeof(T));  // data() may be null when empty: take copies nothing
  }
  bool skip_padding(uint64_t n) {
    uint64_t pad = wire::pad8(n) - n;
    if (size_ - at_ < pad) return false;
    at_ += pad;
    return true;
  }
  bool at_end() const { return at_ == size_; }
  Error error(const std::string& what) const {
    return make_error(name_ + ": damaged runtime dump: " + what + " at offset " + std::to_string(at_));
  }

 private:
  // The next n bytes into `to`; false when fewer are left (a file that shrank meanwhile).
  bool take(void* to, uint64_t n) {
    if (size_ - at_ < n) return false;
    if (n == 0) return true;
    if (fd_ < 0) {
      std::memcpy(to, b_.data() + at_, n);
    } else {
      for (uint64_t done = 0; done < n;) {
        const ssize_t got = ::pread(fd_, static_cast<char*>(to) + done, n - done, off_t(at_ + done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        done += uint64_t(got);
      }
    }
    at_ += n;
    return true;
  }

  std::string_view b_;
  int fd_ = -1;
  uint64_t size_ = 0;
  const std::string& name_;
  uint64_t at_ = 0;
};

std::string hex(const std::string& raw) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::vector<std::string> split_argv(const std::string& cmdline) {
  std::vector<std::string> argv;
  std::string cur;
  for (char c : cmdline) {
    if (c == 0) {
      argv.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) argv.push_back(cur);
  return argv;
}

Status read_thread(Cursor& c, RawThread& t, bool metrics, bool timeline) {
  if (!c.get(t.info)) return c.error("thread record cut short");
  if (t.info.node_count == 0) return c.error("thread without a root node");
  if (!c.get_array(t.info.node_count, t.nodes)) return c.error("node table cut short");
  if (!c.get_array(t.info.open_frames, t.open)) return c.error("open frames cut short");
  if (!c.get_array(t.info.interrupt_node_count, t.interrupts)) return c.error("interrupt tree cut short");
  if (metrics && !c.get_array(t.info.node_count, t.metrics)) return c.error("node metrics cut short");
  if (timeline) {
    t.has_timeline = true;
    if (!c.get(t.timeline_info)) return c.error("timeline header cut short");
    if (t.timeline_info.count > t.timeline_info.capacity) return c.error("timeline holds more events than its ring");
    if (!c.get_array(t.timeline_info.count, t.timeline)) return c.error("timeline cut short");
  }
  if (!c.get_array(t.info.folded_node_count, t.folded)) return c.error("folded nodes cut short");
  for (const auto& f : t.folded)
    if (f.node >= t.nodes.size() || f.hooked_calls > t.nodes[f.node].calls)
      return c.error("folded node entry names a missing node or more calls than it has");
  std::vector<wire::DumpCallSite> sites;
  if (!c.get_array(t.info.call_site_count, sites)) return c.error("call sites cut short");
  for (const auto& s : sites) {
    if (s.node == wire::kDroppedCallSite) continue;
    if (s.node >= t.nodes.size()) return c.error("call site entry names a missing node");
    t.sites.push_back(s);
  }
  if (!c.get_array(t.info.unhooked_count, t.unhooked)) return c.error("calls through counting stubs cut short");
  for (uint32_t i = 1; i < t.nodes.size(); ++i)
    if (t.nodes[i].fn != 0 && t.nodes[i].parent >= t.nodes.size())
      return c.error("node " + std::to_string(i) + " has a missing parent");
  for (uint32_t i = 1; i < t.interrupts.size(); ++i)
    if (t.interrupts[i].parent >= i) return c.error("interrupt node " + std::to_string(i) + " has a later parent");
  for (const auto& f : t.open)
    if (f.node >= t.nodes.size()) return c.error("open frame names a missing node");
  return Ok{};
}

Result<RawProcessDump> parse(Cursor& c, const std::string& name) {
  RawProcessDump d;
  if (!c.get(d.header)) return c.error("header cut short");
  if (std::memcmp(d.header.magic, wire::kDumpMagic, sizeof d.header.magic) != 0)
    return make_error(name + ": not a callprof runtime dump");
  if (d.header.version != wire::kDumpVersion || d.header.header_bytes != sizeof(wire::DumpHeader))
    return make_error(name + ": runtime dump version " + std::to_string(d.header.version) +
                      " does not match this callprof (" + std::to_string(wire::kDumpVersion) +
                      "): use the runtime installed with it");
  std::string cmdline;
  if (!c.get_bytes(d.header.cmdline_bytes, cmdline) || !c.skip_padding(d.header.cmdline_bytes))
    return c.error("command line cut short");
  d.argv = split_argv(cmdline);
  for (uint32_t i = 0; i < d.header.module_count; ++i) {
    wire::DumpModule m;
    RawModule r;
    std::string id;
    if (!c.get(m) || !c.get_bytes(m.path_bytes, r.path) || !c.get_bytes(m.build_id_bytes, id) ||
        !c.skip_padding(uint64_t(m.path_bytes) + m.build_id_bytes))
      return c.error("module table cut short");
    r.bias = m.bias;
    r.start = m.start;
    r.end = m.end;
    r.build_id = hex(id);
    d.modules.push_back(std::move(r));
  }
  for (uint32_t i = 0; i < d.header.libcall_count; ++i) {
    wire::DumpLibCall l;
    RawLibCall r;
    if (!c.get(l) || !c.get_bytes(l.name_bytes, r.name) || !c.skip_padding(l.name_bytes))
      return c.error("library call table cut short");
    r.id = l.id;
    r.target = l.target;
    d.libcalls.push_back(std::move(r));
  }
  for (uint32_t i = 0; i < d.header.removed_functions; ++i) {
    wire::DumpRemovedFunction r;
    if (!c.get(r)) return c.error("removed-function table cut short");
    if (r.fn != 0) d.removed.push_back(r);
  }
  const bool metrics = d.header.flags & wire::kDumpHasNodeMetrics;
  const bool timeline = d.header.flags & wire::kDumpHasTimeline;
  for (uint32_t i = 0; i < d.header.thread_count; ++i) {
    RawThread t;
    if (auto s = read_thread(c, t, metrics, timeline); !s) return s.error();
    d.threads.push_back(std::move(t));
  }
  if (!c.at_end()) return c.error("trailing bytes");
  return d;
}

}  // namespace

Result<RawProcessDump> parse_raw_dump(std::string_view bytes, const std::string& name) {
  Cursor c(bytes, name);
  return parse(c, name);
}

Result<RawProcessDump> read_raw_dump(const std::string& path, uint64_t read_whole_up_to) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (fd >= 0) ::close(fd);
    return make_error("cannot read " + path);
  }
  const uint64_t size = uint64_t(st.st_size);
  Cursor file(fd, size, path);
  auto read = [&]() -> Result<RawProcessDump> {
    if (size > read_whole_up_to) return parse(file, path);
    std::string bytes;  // one read, through the same descriptor
    if (!file.get_bytes(size, bytes)) return file.error("file cut short while read");
    return parse_raw_dump(bytes, path);
  };
  Result<RawProcessDump> d = read();
  ::close(fd);
  return d;
}

}  // namespace callprof
