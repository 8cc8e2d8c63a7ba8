// A std::thread worker's start routine is libstdc++'s unnamed trampoline: the thread is named
// by what it ran, below the C++ library's wrappers, on the path that reaches the program's
// own code even when a path that stays in the library took longer (a getter that took a page
// fault once).
#include "collect/runtime/thread_callable.h"

#include <gtest/gtest.h>

#include "folded_profile.h"

namespace callprof {
namespace {

std::string callable(const std::string& folded, const std::string& routine) {
  Profile p = testing::folded(folded);
  FunctionId r = testing::function_named(p, routine);
  if (r == kNoFunction) {  // the trampoline: a function the tree does not have
    p.functions.push_back(Function{});
    p.functions.back().name = routine;
    r = FunctionId(p.functions.size() - 1);
  }
  const FunctionId f = thread_callable(p.threads[0].tree, r, p.functions);
  return f < p.functions.size() ? p.functions[f].name : "?";
}

constexpr const char* kLambdaWorker =
    "std::thread::_State_impl::_M_run;std::get<0ul>;std::__get_helper<0ul>;std::_Head_base::_M_head 134000\n"
    "std::thread::_State_impl::_M_run;std::__invoke<>;main::{lambda()#1}::operator()();helper 104000\n";

TEST(ThreadCallable, BelowTheLibrarysWrappersOnThePathThatReachesTheProgram) {
  EXPECT_EQ(callable(kLambdaWorker, "libstdc++.so.6+0xd4490"), "main::{lambda()#1}::operator()()")
      << "not std::get's heavier path, which never leaves the library";
}

TEST(ThreadCallable, TheRoutineItselfWhenRecorded) { EXPECT_EQ(callable("crunch;step 1000\n", "crunch"), "crunch"); }

TEST(ThreadCallable, TheHeaviestWhenNoPathLeavesTheLibrary) {
  EXPECT_EQ(callable("std::thread::_State_impl::_M_run;std::a 10\nstd::thread::_State_impl::_M_run;std::b 30\n",
                     "libstdc++.so.6+0xd4490"),
            "std::b");
}

TEST(ThreadCallable, LibraryWrappers) {
  EXPECT_TRUE(
      library_wrapper("void std::__invoke_impl<void, main::{lambda()#1}>(std::__invoke_other, main::{lambda()#1}&&)"));
  EXPECT_TRUE(library_wrapper("__gnu_cxx::__normal_iterator<int*>::operator++()"));
  EXPECT_FALSE(library_wrapper("ns::f<std::string>(int)"));
  EXPECT_FALSE(library_wrapper("main::{lambda()#1}::operator()() const"));
  EXPECT_FALSE(library_wrapper("crunch"));
  EXPECT_FALSE(library_wrapper("libstdc++.so.6+0xd4490"));
  EXPECT_FALSE(library_wrapper("main::{lambda()#1}"));
  EXPECT_TRUE(library_wrapper("std::function<void ()>::operator bool() const"));
  EXPECT_TRUE(
      library_wrapper("std::thread::_State_impl<std::thread::_Invoker<std::tuple<void (*)(int), int> > >::_M_run()"));
}

// A return type with parentheses of its own: the lambda std::get returns (CI's failure,
// where this getter was taken for the program's code and named the thread).
TEST(ThreadCallable, ALibraryWrapperReturningALambda) {
  EXPECT_TRUE(library_wrapper(
      "main::{lambda()#1}& std::__get_helper<0ul, main::{lambda()#1}>(std::_Tuple_impl<0ul, main::{lambda()#1}>&)"));
  EXPECT_TRUE(
      library_wrapper("main::{lambda()#1}&& std::get<0ul, main::{lambda()#1}>(std::tuple<main::{lambda()#1}>&&)"));
}

}  // namespace
}  // namespace callprof
