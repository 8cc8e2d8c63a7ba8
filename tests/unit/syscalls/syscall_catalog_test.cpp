// Names, numbers and classes of x86-64 system calls, and the selection syntax.
#include "collect/syscalls/syscall_catalog.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace callprof::syscalls {
namespace {

uint32_t nr(std::string_view name) {
  auto n = syscall_number(name);
  EXPECT_TRUE(n) << name;
  return n.value_or(0);
}

TEST(SyscallCatalog, KnownNumbers) {
  EXPECT_EQ(syscall_name(0), "read");
  EXPECT_EQ(syscall_name(1), "write");
  EXPECT_EQ(syscall_name(59), "execve");
  EXPECT_EQ(syscall_name(231), "exit_group");
  EXPECT_EQ(nr("write"), 1u);
  EXPECT_EQ(nr("read"), 0u);
  EXPECT_EQ(nr("clone3"), 435u);
  EXPECT_FALSE(syscall_number("no_such_call"));
  EXPECT_FALSE(syscall_number("socketcall"));  // exists elsewhere, not on x86-64
  EXPECT_EQ(syscall_name(kMaxSyscallNumber), "");
}

TEST(SyscallCatalog, NamesRoundTrip) {
  int named = 0;
  for (uint32_t n = 0; n < kMaxSyscallNumber; ++n) {
    std::string_view name = syscall_name(n);
    ASSERT_FALSE(name.empty()) << n;
    EXPECT_EQ(syscall_number(name), n) << name;
    named += !name.starts_with("syscall_");
  }
  EXPECT_GT(named, 330);  // x86-64 has ~360 calls
}

TEST(SyscallCatalog, NumbersAndUnnamedCalls) {
  EXPECT_EQ(syscall_number("1"), 1u);
  EXPECT_EQ(syscall_number("1023"), 1023u);
  EXPECT_FALSE(syscall_number("1024"));
  EXPECT_FALSE(syscall_number("-1"));
  EXPECT_FALSE(syscall_number("1x"));
  EXPECT_EQ(syscall_name(1000), "syscall_1000");
  EXPECT_EQ(syscall_number("syscall_1000"), 1000u);
}

TEST(SyscallCatalog, ClassesHoldTheirMembers) {
  auto has = [](std::string_view cls, std::string_view name) { return syscall_class(cls).value().test(nr(name)); };
  EXPECT_TRUE(has("file", "openat"));
  EXPECT_TRUE(has("file", "read"));  // desc belongs to file
  EXPECT_TRUE(has("file", "close"));
  EXPECT_TRUE(has("file", "execve"));
  EXPECT_FALSE(has("file", "mmap"));
  EXPECT_TRUE(has("network", "connect"));
  EXPECT_FALSE(has("network", "read"));
  EXPECT_TRUE(has("process", "clone3"));
  EXPECT_TRUE(has("process", "exit_group"));
  EXPECT_TRUE(has("memory", "mmap"));
  EXPECT_TRUE(has("ipc", "semop"));
  EXPECT_TRUE(has("signal", "rt_sigaction"));
  EXPECT_TRUE(has("time", "nanosleep"));
  EXPECT_TRUE(has("blocking", "futex"));
  EXPECT_TRUE(has("blocking", "epoll_wait"));
  EXPECT_TRUE(has("blocking", "wait4"));
  EXPECT_FALSE(has("blocking", "getpid"));
  EXPECT_FALSE(has("blocking", "mmap"));
  EXPECT_TRUE(syscall_class("all").value().all());
  EXPECT_FALSE(syscall_class("write"));
  EXPECT_EQ(syscall_class_names().size(), 9u);
  for (std::string_view cls : syscall_class_names()) EXPECT_TRUE(syscall_class(cls)->any()) << cls;
}

TEST(SyscallCatalog, SelectionAddsAndRemovesInOrder) {
  auto s = parse_syscall_selection("write, read");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->count(), 2u);
  EXPECT_TRUE(s->test(0) && s->test(1));

  s = parse_syscall_selection("file,!read,!write");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(s->test(nr("openat")));
  EXPECT_FALSE(s->test(0));
  EXPECT_FALSE(s->test(1));
  EXPECT_EQ(s->count(), syscall_class("file")->count() - 2);

  s = parse_syscall_selection("!write");  // starts from all
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->count(), kMaxSyscallNumber - 1);
  EXPECT_FALSE(s->test(1));

  s = parse_syscall_selection("!file,read");  // later items win
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(s->test(0));
  EXPECT_FALSE(s->test(1));

  s = parse_syscall_selection("time");  // the class, not the call
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(*s, *syscall_class("time"));
  s = parse_syscall_selection("201,%network");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(s->test(201));
  EXPECT_TRUE(s->test(nr("connect")));
}

TEST(SyscallCatalog, SelectionErrors) {
  auto s = parse_syscall_selection("write,foo");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "unknown system call or class 'foo'");
  s = parse_syscall_selection("!bar");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "unknown system call or class 'bar'");
  s = parse_syscall_selection("%write");  // not a class
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("'%write'"), std::string::npos);
  s = parse_syscall_selection("write,,read");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("empty item"), std::string::npos) << s.error().message;
  EXPECT_FALSE(parse_syscall_selection(""));
  s = parse_syscall_selection("write,!write");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("selects nothing"), std::string::npos) << s.error().message;
}

TEST(SyscallCatalog, ErrnoNames) {
  EXPECT_EQ(errno_name(EBADF), "EBADF");
  EXPECT_EQ(errno_name(-EBADF), "EBADF");
  EXPECT_EQ(errno_name(ENOENT), "ENOENT");
  EXPECT_EQ(errno_name(-512), "ERESTARTSYS");
  EXPECT_EQ(errno_name(100000), "");
}

}  // namespace
}  // namespace callprof::syscalls
