// demangle(): Itanium names become readable, everything else passes through.
#include <gtest/gtest.h>

#include "symbols/symbolizer.h"

namespace callprof {
namespace {

TEST(Demangle, NamespacesAndTemplates) {
  EXPECT_EQ(demangle("_ZN4demo5inner7computeEd"), "demo::inner::compute(double)");
  EXPECT_EQ(demangle("_ZN4demo5twiceIlEET_S1_"), "long demo::twice<long>(long)");
  EXPECT_EQ(demangle("_ZNK6libfix6Scaler5scaleEi"), "libfix::Scaler::scale(int) const");
  EXPECT_EQ(demangle("_ZL14inlined_helperi"), "inlined_helper(int)");
}

TEST(Demangle, GccCloneSuffixes) {
  EXPECT_EQ(demangle("_Z3foov.constprop.0"), "foo() [clone .constprop.0]");
  EXPECT_EQ(demangle("_Z3barv.cold"), "bar() [clone .cold]");
}

TEST(Demangle, PlainNamesPassThrough) {
  EXPECT_EQ(demangle("main"), "main");
  EXPECT_EQ(demangle("f"), "f");  // would be "float" if taken as a type encoding
  EXPECT_EQ(demangle("i"), "i");
  EXPECT_EQ(demangle(""), "");
  EXPECT_EQ(demangle("_start"), "_start");
}

TEST(Demangle, PltStubsKeepTheirSuffix) {
  EXPECT_EQ(demangle("_ZdlPv@plt"), "operator delete(void*)@plt");
  EXPECT_EQ(demangle("sin@plt"), "sin@plt");
}

TEST(Demangle, MalformedNamesPassThrough) {
  EXPECT_EQ(demangle("_Z"), "_Z");
  EXPECT_EQ(demangle("_Zx"), "_Zx");
  EXPECT_EQ(demangle("_ZN4demo"), "_ZN4demo");
}

}  // namespace
}  // namespace callprof
