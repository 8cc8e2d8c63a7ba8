// ExactCallerCalls with crafted events and node maps: calls hang under the model node their
// runtime node became, a node id reused after pruning (another function) goes to the root
// and is counted, a thread without a dump is counted as unplaced, an exec starts the node
// ids again (the image running at the call is the one), and a call without its caller
// (attached, before the thread's first hook) goes to the frame open at the attach.
#include "record/exact_callers.h"

#include <gtest/gtest.h>

namespace callprof::record {
namespace {

constexpr uint32_t kRead = 0, kWrite = 1;

syscalls::SyscallEvent event(uint32_t pid, uint32_t tid, uint32_t nr, uint32_t node, uint64_t fn, uint64_t start) {
  syscalls::SyscallEvent e;
  e.pid = pid;
  e.tid = tid;
  e.nr = nr;
  e.start_ns = start;
  e.end_ns = start + 100;
  e.context = syscalls::ExactCaller{node, fn};
  return e;
}

void add(ExactCallerCalls& calls, const syscalls::SyscallEvent& e, std::string_view name, uint64_t ns, int error) {
  calls.add(e, *e.context, name, ns, error);
}

// One thread, pid 7: root -> main (runtime node 1, fn 0x10) -> work (node 2, fn 0x20).
struct Fixture {
  Profile p;
  std::vector<ThreadNodes> nodes;
  NodeId main = 0, work = 0;
  Fixture() {
    p.functions = {{"main"}, {"work"}};
    Thread t;
    t.pid = t.tid = 7;
    main = t.tree.child(kRootNode, 0);
    work = t.tree.child(main, 1);
    t.tree.base(work)[Metric::WallNs] = 10000;
    p.threads.push_back(t);
    ThreadNodes n;
    n.thread = 0;
    n.pid = n.tid = 7;
    n.image_start_ns = 1000;
    n.node = {kRootNode, main, work};
    n.fn = {0, 0x10, 0x20};
    nodes.push_back(n);
  }
  const CallNode* leaf(NodeId under, const std::string& name) const {
    const CallTree& tree = p.threads[0].tree;
    for (NodeId c = tree.node(under).first_child; c != kNoNode; c = tree.node(c).next_sibling)
      if (p.functions[tree.node(c).function].name == name) return &tree.node(c);
    return nullptr;
  }
};

TEST(ExactCallers, CallsHangUnderTheirNodeAndTakeTheirTime) {
  Fixture f;
  ExactCallerCalls calls;
  add(calls, event(7, 7, kRead, 2, 0x20, 2000), "read", 100, 0);
  add(calls, event(7, 7, kRead, 2, 0x20, 3000), "read", 300, 9);
  add(calls, event(7, 7, kWrite, 1, 0x10, 4000), "write", 50, 0);
  calls.attach(f.p, f.nodes);
  const CallNode* read = f.leaf(f.work, "[syscall] read");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(f.p.threads[0].tree.base(NodeId(read - f.p.threads[0].tree.nodes().data()))[Metric::Calls], 2u);
  EXPECT_EQ(f.p.threads[0].tree.base(NodeId(read - f.p.threads[0].tree.nodes().data()))[Metric::SyscallErrors], 1u);
  EXPECT_EQ(f.p.threads[0].tree.base(NodeId(read - f.p.threads[0].tree.nodes().data()))[Metric::WallNs], 400u);
  EXPECT_EQ(f.p.threads[0].tree.base(f.work)[Metric::WallNs], 9600u) << "the time moves out of the caller";
  ASSERT_NE(f.leaf(f.main, "[syscall] write"), nullptr);
  EXPECT_EQ(f.p.meta.syscalls->exact_callers, 3u);
  EXPECT_EQ(f.p.meta.syscalls->exact_callers_unplaced, 0u);
  ASSERT_EQ(f.p.threads[0].syscalls.size(), 2u);
}

TEST(ExactCallers, AReusedNodeIdGoesToTheRootAndAMissingDumpIsCounted) {
  Fixture f;
  ExactCallerCalls calls;
  add(calls, event(7, 7, kRead, 2, 0x99, 2000), "read", 100, 0);  // node 2 held another function then
  add(calls, event(8, 8, kRead, 1, 0x10, 2000), "read", 100, 0);  // pid 8 wrote no dump
  calls.attach(f.p, f.nodes);
  EXPECT_EQ(f.leaf(f.work, "[syscall] read"), nullptr);
  ASSERT_NE(f.leaf(kRootNode, "[syscall] read"), nullptr);
  EXPECT_EQ(f.p.meta.syscalls->exact_callers, 2u);
  EXPECT_EQ(f.p.meta.syscalls->exact_callers_unplaced, 2u);
}

TEST(ExactCallers, AfterAnExecTheNewImagesNodesCount) {
  Fixture f;
  // The same pid and tid after an exec: a second image whose node 1 is `work`'s function.
  Thread second;
  second.pid = second.tid = 7;
  const NodeId other = second.tree.child(kRootNode, 1);
  f.p.threads.push_back(second);
  ThreadNodes n;
  n.thread = 1;
  n.pid = n.tid = 7;
  n.image_start_ns = 5000;
  n.node = {kRootNode, other};
  n.fn = {0, 0x30};
  f.nodes.push_back(n);
  ExactCallerCalls calls;
  add(calls, event(7, 7, kRead, 1, 0x10, 2000), "read", 100, 0);  // the first image
  calls.exec(7);
  add(calls, event(7, 7, kRead, 1, 0x30, 6000), "read", 100, 0);  // the second
  calls.attach(f.p, f.nodes);
  ASSERT_NE(f.leaf(f.main, "[syscall] read"), nullptr);
  const CallTree& t2 = f.p.threads[1].tree;
  ASSERT_NE(t2.node(other).first_child, kNoNode);
  EXPECT_EQ(t2.base(t2.node(other).first_child)[Metric::Calls], 1u);
  EXPECT_EQ(f.p.meta.syscalls->exact_callers_unplaced, 0u);
}

// Attached, thread 7 had main and work open when the window began: a call it made before
// its first hook was made in work, and work's time (the whole window) holds it already.
TEST(ExactCallers, ACallWithoutItsCallerGoesToTheFrameOpenAtTheAttach) {
  Fixture f;
  f.nodes[0].attach_top = 2;
  ExactCallerCalls calls;
  calls.add(event(7, 7, kRead, 0, 0, 2000), syscalls::ExactCaller{}, "read", 4000, 0);
  calls.attach(f.p, f.nodes);
  const CallNode* read = f.leaf(f.work, "[syscall] read");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(f.p.threads[0].tree.base(NodeId(read - f.p.threads[0].tree.nodes().data()))[Metric::WallNs], 4000u);
  EXPECT_EQ(f.p.threads[0].tree.base(f.work)[Metric::WallNs], 6000u) << "counted once";
  EXPECT_EQ(f.leaf(kRootNode, "[syscall] read"), nullptr);
  EXPECT_EQ(f.p.meta.syscalls->exact_callers_unplaced, 0u);
}

TEST(ExactCallers, ACallWithoutItsCallerOrAFrameOpenAtTheAttachIsAtTheRoot) {
  Fixture f;
  ExactCallerCalls calls;
  calls.add(event(7, 7, kRead, 0, 0, 2000), syscalls::ExactCaller{}, "read", 4000, 0);
  calls.attach(f.p, f.nodes);
  ASSERT_NE(f.leaf(kRootNode, "[syscall] read"), nullptr);
  EXPECT_EQ(f.p.threads[0].tree.base(f.work)[Metric::WallNs], 10000u);
  EXPECT_EQ(f.p.meta.syscalls->exact_callers_unplaced, 0u) << "the root is where it was made, as far as is known";
}

}  // namespace
}  // namespace callprof::record
