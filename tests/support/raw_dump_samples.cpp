// The sample runtime dump, written the way the runtime writes one.
#include "raw_dump_samples.h"

#include <cstring>

#include "wire/raw_dump.h"

namespace callprof::test {
namespace {

template <typename T>
void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void pad(std::string& out) { out.append(wire::pad8(out.size()) - out.size(), '\0'); }

}  // namespace

std::string sample_raw_dump() {
  std::string out;
  wire::DumpHeader h{};
  std::memcpy(h.magic, wire::kDumpMagic, 8);
  h.version = wire::kDumpVersion;
  h.header_bytes = sizeof h;
  h.pid = 42;
  h.module_count = 1;
  h.thread_count = 1;
  const std::string cmdline("prog\0arg\0", 9);
  h.cmdline_bytes = uint32_t(cmdline.size());
  put(out, h);
  out += cmdline;
  pad(out);
  const std::string path = "/bin/prog", id = "\x01\xab";
  put(out, wire::DumpModule{0x1000, 0x1000, 0x2000, uint32_t(path.size()), uint32_t(id.size())});
  out += path + id;
  pad(out);
  wire::DumpThread t{};
  t.tid = 42;
  t.node_count = 3;
  t.open_frames = 1;
  t.interrupt_node_count = 2;
  t.call_site_count = 2;
  t.unhooked_count = 1;
  put(out, t);
  put(out, wire::DumpNode{0, 0, 0, 0, 0, 0, UINT64_MAX, 0, 0, 0});
  put(out, wire::DumpNode{0, 0, 0x1100, 0, 0, 0, UINT64_MAX, 0, 0, 0});
  put(out, wire::DumpNode{1, 0, 0x1200, 0x1105, 7, 70, 5, 20, 0, 0});
  put(out, wire::DumpOpenFrame{1, 0, 100, 70});
  put(out, wire::DumpNode{0, 0, 0, 0, 0, 0, UINT64_MAX, 0, 0, 0});
  put(out, wire::DumpNode{0, 0, wire::kInterruptedContext | 1, 0, 1, 3, 3, 3, 0, 0});
  put(out, wire::DumpCallSite{2, 0, 0x1109, 3, 30});  // 3 of node 2's 7 calls from a second site
  put(out, wire::DumpCallSite{wire::kDroppedCallSite, 0, 0x1111, 1, 1});
  put(out, wire::DumpUnhookedCalls{0x1300, 5000});  // a removed function's calls through its stubs
  return out;
}

}  // namespace callprof::test
