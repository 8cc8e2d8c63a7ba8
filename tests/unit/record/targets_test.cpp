// Targets decided on before they run: executables by their ELF facts, processes by what
// /proc/PID/stat says (comm may hold spaces and parentheses).
#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "target/executable.h"
#include "target/process_check.h"

namespace callprof {
namespace {

ExecutableInfo elf64() {
  ExecutableInfo i;
  i.path = "/x/prog";
  i.elf = true;
  i.elf_class = ELFCLASS64;
  i.machine = EM_X86_64;
  i.elf_type = ET_DYN;
  return i;
}

TEST(Targets, RunnableExecutables) {
  EXPECT_TRUE(check_runnable(elf64()));
  ExecutableInfo script;
  script.path = "/x/run.sh";
  script.script = true;
  EXPECT_TRUE(check_runnable(script));
  EXPECT_TRUE(is_wrapper(script));
  EXPECT_FALSE(is_wrapper(elf64()));
  ExecutableInfo shell = elf64();
  shell.path = "/usr/bin/sh";
  EXPECT_TRUE(is_wrapper(shell));
}

TEST(Targets, RefusedExecutables) {
  auto refusal = [](ExecutableInfo i) { return check_runnable(i).error().message; };
  ExecutableInfo i = elf64();
  i.elf_class = ELFCLASS32;
  EXPECT_EQ(refusal(i).rfind("/x/prog is a 32-bit ELF program", 0), 0u);
  i = elf64();
  i.machine = EM_AARCH64;
  EXPECT_NE(refusal(i).find("for another machine (e_machine 183)"), std::string::npos);
  i = elf64();
  i.elf_type = ET_REL;
  EXPECT_NE(refusal(i).find("not a program"), std::string::npos);
  i = elf64();
  i.changes_identity = true;
  EXPECT_NE(refusal(i).find("set-user-ID"), std::string::npos);
  ExecutableInfo garbage;
  garbage.path = "/x/data";
  EXPECT_NE(refusal(garbage).find("neither an ELF program nor a script"), std::string::npos);
}

TEST(Targets, ProcStatLines) {
  auto s = parse_proc_stat("2 (kthreadd) S 0 0 0 0 -1 2129984 0 0");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->comm, "kthreadd");
  EXPECT_EQ(s->state, 'S');
  EXPECT_TRUE(s->kernel_thread);
  s = parse_proc_stat("77 (a) T (b)) T 12 77 77 34816 77 4194304 100");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->comm, "a) T (b)");
  EXPECT_EQ(s->state, 'T');
  EXPECT_EQ(s->parent, 12);
  EXPECT_FALSE(s->kernel_thread);
  EXPECT_FALSE(parse_proc_stat("garbage"));
  EXPECT_FALSE(parse_proc_stat("1 (x) S"));
}

TEST(Targets, AttachableProcesses) {
  EXPECT_NE(check_attachable(getpid()).error().message.find("is callprof itself"), std::string::npos);
  if (getppid() > 1) {
    EXPECT_NE(check_attachable(getppid()).error().message.find("is an ancestor of callprof"), std::string::npos);
  }
  EXPECT_TRUE(check_attachable(999999999));  // no such process: left to the attach to say
  EXPECT_TRUE(thread_alive(getpid(), getpid()));
  EXPECT_FALSE(thread_alive(getpid(), 999999999));
}

}  // namespace
}  // namespace callprof
