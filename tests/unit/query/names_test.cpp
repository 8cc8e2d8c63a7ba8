// Display names: real symbols of GCC 12 / libstdc++ through the demangler and the text pass,
// operators, synthetic and malformed names, huge names, and the uniqueness rule.
#include "query/names.h"

#include <cxxabi.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <random>

namespace callprof {
namespace {

using Clock = std::chrono::steady_clock;

// What the profile stores as `name`: the C++ runtime's demangling of the symbol.
std::string demangled(const std::string& mangled) {
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                                        &std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

std::string short_name(std::string_view name) { return styled_name(name, "", NameStyle::Short); }
std::string templates_name(std::string_view name) { return styled_name(name, "", NameStyle::Templates); }

const std::string kString = "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >";

// Symbols taken with nm from objects g++ 12 -O0/-O2 built on this machine.
struct RealSymbol {
  std::string mangled;
  std::string templates;
  std::string short_form;
};

const RealSymbol kRealSymbols[] = {
    {"_ZSt4sortIPiEvT_S1_", "std::sort<int*>", "std::sort<…>"},
    {"_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector<int, std::allocator<int> >::push_back",
     "std::vector<…>::push_back"},
    {"_ZNSt6vectorINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEESaIS5_EE17_M_realloc_insertIJS5_EEEvN9__gnu_"
     "cxx17__normal_iteratorIPS5_S7_EEDpOT_",
     "std::vector<" + kString + ", std::allocator<" + kString + " > >::_M_realloc_insert<" + kString + " >",
     "std::vector<…>::_M_realloc_insert<…>"},
    {"_ZNSt3mapINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEiSt4lessIS5_ESaISt4pairIKS5_iEEEixEOS5_",
     "std::map<" + kString + ", int, std::less<" + kString + " >, std::allocator<std::pair<" + kString +
         " const, int> > >::operator[]",
     "std::map<…>::operator[]"},
    {"_ZNSt8__detail9_Map_baseIiSt4pairIKiiESaIS3_ENS_10_Select1stESt8equal_toIiESt4hashIiENS_18_Mod_range_"
     "hashingENS_20_Default_ranged_hashENS_20_Prime_rehash_policyENS_17_Hashtable_traitsILb0ELb0ELb1EEELb1EEixEOi",
     "std::__detail::_Map_base<int, std::pair<int const, int>, std::allocator<std::pair<int const, int> >, "
     "std::__detail::_Select1st, std::equal_to<int>, std::hash<int>, std::__detail::_Mod_range_hashing, "
     "std::__detail::_Default_ranged_hash, std::__detail::_Prime_rehash_policy, "
     "std::__detail::_Hashtable_traits<false, false, true>, true>::operator[]",
     "std::__detail::_Map_base<…>::operator[]"},
    {"_ZNSt8__detail16_Hashtable_allocISaINS_10_Hash_nodeISt4pairIKiiELb0EEEEE19_M_allocate_bucketsEm",
     "std::__detail::_Hashtable_alloc<std::allocator<std::__detail::_Hash_node<std::pair<int const, int>, false> > "
     ">::_M_allocate_buckets",
     "std::__detail::_Hashtable_alloc<…>::_M_allocate_buckets"},
    {"_ZNSt16_Sp_counted_baseILN9__gnu_cxx12_Lock_policyE2EE24_M_release_last_use_coldEv",
     "std::_Sp_counted_base<(__gnu_cxx::_Lock_policy)2>::_M_release_last_use_cold",
     "std::_Sp_counted_base<…>::_M_release_last_use_cold"},
    {"_ZNSt4pairIKiiEC1IJOiEJLm0EEJEJEEERSt5tupleIJDpT_EERS4_IJDpT1_EESt12_Index_tupleIJXspT0_EEESD_IJXspT2_EEE",
     "std::pair<int const, int>::pair<int&&, 0ul>", "std::pair<…>::pair<…>"},
    // Five levels of class templates, the innermost argument itself nested five deep.
    {"_ZN2L1IiE2L2IcE2L3IlE2L4IsE2L5ISt6vectorISt3mapIiS8_IiSaIiEESt4lessIiESaISt4pairIKiSB_EEESaISI_EEE4deepEv",
     "L1<int>::L2<char>::L3<long>::L4<short>::L5<std::vector<std::map<int, std::vector<int, std::allocator<int> >, "
     "std::less<int>, std::allocator<std::pair<int const, std::vector<int, std::allocator<int> > > > >, "
     "std::allocator<std::map<int, std::vector<int, std::allocator<int> >, std::less<int>, "
     "std::allocator<std::pair<int const, std::vector<int, std::allocator<int> > > > > > > >::deep",
     "L1<…>::L2<…>::L3<…>::L4<…>::L5<…>::deep"},
    {"_ZNK5IndexISt6vectorIiSaIiEEE4findERKS2_", "Index<std::vector<int, std::allocator<int> > >::find",
     "Index<…>::find"},
    // Lambdas, also inside templates and as template arguments.
    {"_ZZ5twiceIiET_S0_ENKUliE0_clEi", "twice<int>(int)::{lambda(int)#2}::operator()",
     "twice<…>::{lambda#2}::operator()"},
    {"_ZZ5twiceIiET_S0_ENKUliiE_clEii", "twice<int>(int)::{lambda(int, int)#1}::operator()",
     "twice<…>::{lambda#1}::operator()"},
    {"_ZZ4mainENKUlT_E_clIiEEDaS_", "main::{lambda(auto:1)#1}::operator()<int>", "main::{lambda#1}::operator()<…>"},
    {"_Z5applyIZ5twiceIiET_S1_EUliE0_EiS1_i", "apply<twice<int>(int)::{lambda(int)#2}>", "apply<…>"},
    {"_ZNSt14_Function_base13_Base_managerIZ4mainEUliE_E10_M_destroyERSt9_Any_dataSt17integral_constantIbLb1EE",
     "std::_Function_base::_Base_manager<main::{lambda(int)#1}>::_M_destroy",
     "std::_Function_base::_Base_manager<…>::_M_destroy"},
    {"_ZNKSt9_Any_data9_M_accessIZ4mainEUliE_EERKT_v", "std::_Any_data::_M_access<main::{lambda(int)#1}>",
     "std::_Any_data::_M_access<…>"},
    // Local classes: the enclosing function's parameters go in the short form.
    {"_ZZ10local_hostiEN5Local1mEi", "local_host(int)::Local::m", "local_host::Local::m"},
    {"_ZZ10local_tmplIdEiT_EN5Local1mEi", "local_tmpl<double>(double)::Local::m", "local_tmpl<…>::Local::m"},
    // Anonymous namespaces, ABI tags, const and ref-qualified methods.
    {"_ZN12_GLOBAL__N_17anon_fnEi", "(anonymous namespace)::anon_fn", "(anon)::anon_fn"},
    {"_ZNK12_GLOBAL__N_15AnonS1mEi", "(anonymous namespace)::AnonS::m", "(anon)::AnonS::m"},
    {"_ZN12_GLOBAL__N_11SIiE1fIlEEvT_", "(anonymous namespace)::S<int>::f<long>", "(anon)::S<…>::f<…>"},
    {"_Z6abi_fnB5cxx11i", "abi_fn[abi:cxx11]", "abi_fn"},
    {"_ZNK2ns1S4nameB5cxx11Ev", "ns::S::name[abi:cxx11]", "ns::S::name"},
    {"_Z1fB5cxx11IiEvv", "f[abi:cxx11]<int>", "f<…>"},
    {"_ZNO4Conv4rrefEv", "Conv::rref", "Conv::rref"},
    {"_ZNR4Conv3refEv", "Conv::ref", "Conv::ref"},
    // Clones keep their suffixes.
    {"_Z3hoti.cold", "hot [clone .cold]", "hot [clone .cold]"},
    {"_ZN1D1fEv.cold", "D::f [clone .cold]", "D::f [clone .cold]"},
    {"_Z3fooi.constprop.0.isra.0", "foo [clone .constprop.0] [clone .isra.0]",
     "foo [clone .constprop.0] [clone .isra.0]"},
    {"_ZSt16__insertion_sortIPiN9__gnu_cxx5__ops15_Iter_less_iterEEvT_S4_T0_.isra.0",
     "std::__insertion_sort<int*, __gnu_cxx::__ops::_Iter_less_iter> [clone .isra.0]",
     "std::__insertion_sort<…> [clone .isra.0]"},
    // Thunks keep their prefix.
    {"_ZThn8_N1D1fEv", "non-virtual thunk to D::f", "non-virtual thunk to D::f"},
    {"_ZTv0_n24_N1D1gEv", "virtual thunk to D::g", "virtual thunk to D::g"},
    // Return types that are hard to tell from the name.
    {"_Z6fn_retIiESt8functionIFviEET_PS1_", "fn_ret<int>", "fn_ret<…>"},
    {"_Z8fptr_retIiEPFvdET_", "fptr_ret<int>", "fptr_ret<…>"},
    {"_Z4condILi5EENSt9enable_ifIXgtT_Li3EEiE4typeEv", "cond<5>", "cond<…>"},
    {"_Z2ltILi1EENSt9enable_ifIXltT_Li3EEiE4typeEv", "lt<1>", "lt<…>"},
    {"_Z2miILi5EE1BIXmiT_Li1EEES0_IXT_EE", "mi<5>", "mi<…>"},
    {"_ZN9__gnu_cxxssIPiSt6vectorIiSaIiEEEEDTclL_ZNSt8__detail11__synth3wayEEcl7declvalIRT_EEcl7declvalIS7_"
     "EEEERKNS_17__normal_iteratorIS6_T0_EESD_",
     "__gnu_cxx::operator<=><int*, std::vector<int, std::allocator<int> > >", "__gnu_cxx::operator<=><…>"},
    // Operators.
    {"_ZN4ConvclEi", "Conv::operator()", "Conv::operator()"},
    {"_ZN4ConvixEi", "Conv::operator[]", "Conv::operator[]"},
    {"_ZN4ConvlsEi", "Conv::operator<<", "Conv::operator<<"},
    {"_ZN4ConvrsEi", "Conv::operator>>", "Conv::operator>>"},
    {"_ZN4ConvptEv", "Conv::operator->", "Conv::operator->"},
    {"_ZNK4ConvltERKS_", "Conv::operator<", "Conv::operator<"},
    {"_ZNK4ConvleERKS_", "Conv::operator<=", "Conv::operator<="},
    {"_ZNK4ConvgtERKS_", "Conv::operator>", "Conv::operator>"},
    {"_ZN4ConvnaEm", "Conv::operator new[]", "Conv::operator new[]"},
    {"_ZNK4ConvcvbEv", "Conv::operator bool", "Conv::operator bool"},
    {"_ZNK4ConvcvPKcEv", "Conv::operator char const*", "Conv::operator char const*"},
    {"_ZNK4ConvcvSt6vectorIiSaIiEEEv", "Conv::operator std::vector<int, std::allocator<int> >",
     "Conv::operator std::vector<…>"},
    {"_ZltIiEbRK5IndexIT_ES4_", "operator< <int>", "operator< <…>"},
};

TEST(StyledName, RealSymbolsThroughTheDemangler) {
  for (const RealSymbol& s : kRealSymbols) {
    const std::string name = demangled(s.mangled);
    ASSERT_NE(name, s.mangled) << "not a valid symbol";
    EXPECT_EQ(styled_name(name, s.mangled, NameStyle::Templates), s.templates) << name;
    EXPECT_EQ(styled_name(name, s.mangled, NameStyle::Short), s.short_form) << name;
    EXPECT_EQ(styled_name(name, s.mangled, NameStyle::Full), name);
  }
}

TEST(StyledName, RealSymbolsThroughTheTextPass) {
  for (const RealSymbol& s : kRealSymbols) {
    const std::string name = demangled(s.mangled);
    EXPECT_EQ(templates_name(name), s.templates) << name;
    EXPECT_EQ(short_name(name), s.short_form) << name;
  }
}

TEST(StyledName, DemanglerKnowsReturnTypesTheTextPassCannotPlace) {
  // A function returning a reference to an array: "int (&arr<int>()) [3]".
  const std::string mangled = "_Z3arrIiERA3_iv";
  const std::string name = demangled(mangled);
  EXPECT_EQ(styled_name(name, mangled, NameStyle::Templates), "arr<int>");
  EXPECT_EQ(styled_name(name, mangled, NameStyle::Short), "arr<…>");
  // Without the symbol the text pass keeps what it cannot take apart.
  EXPECT_EQ(templates_name(name), name);
}

TEST(StyledName, LinkageNameOfAnotherFunctionIsIgnored) {
  EXPECT_EQ(styled_name("foo(int)", "_Z3barv", NameStyle::Short), "foo");
  EXPECT_EQ(styled_name("ns::foo<int>(int)", "_Zgarbage", NameStyle::Templates), "ns::foo<int>");
  EXPECT_EQ(styled_name("ns::foo<int>(int)", "not mangled", NameStyle::Short), "ns::foo<…>");
}

TEST(StyledName, TextPassOnHandWrittenNames) {
  EXPECT_EQ(short_name("std::vector<int, std::allocator<int> >::push_back(int&&)"), "std::vector<…>::push_back");
  EXPECT_EQ(templates_name("std::function<void (int)> make<void (*)(int)>(void (*)(int))"), "make<void (*)(int)>");
  EXPECT_EQ(short_name("std::function<void (int)> make<void (*)(int)>(void (*)(int))"), "make<…>");
  EXPECT_EQ(short_name("unsigned long const& std::max<unsigned long>(unsigned long const&, unsigned long const&)"),
            "std::max<…>");
  EXPECT_EQ(short_name("std::vector<int, std::allocator<int> > const& get<0ul>()"), "get<…>");
  EXPECT_EQ(short_name("ns::A<int>::B<char>::m() const &&"), "ns::A<…>::B<…>::m");
  EXPECT_EQ(short_name("void (S::*pmf<int>())()"), "pmf<…>");
  EXPECT_EQ(short_name("{lambda(int)#1}::operator()(int) const"), "{lambda#1}::operator()");
  EXPECT_EQ(short_name("f()::{unnamed type#1}::g()"), "f::{unnamed type#1}::g");
  EXPECT_EQ(short_name("guard variable for ns::x"), "guard variable for ns::x");
  EXPECT_EQ(short_name("(anonymous namespace)::counter"), "(anon)::counter");
  EXPECT_EQ(short_name("decltype ((x)->y) ns::get<X>(X*)"), "ns::get<…>");
  EXPECT_EQ(short_name("B<((5)>(3))> gt<5>(B<5>)"), "gt<…>");
}

TEST(StyledName, OperatorsWithTemplateArguments) {
  EXPECT_EQ(short_name("X& operator<< <char>(X&, char)"), "operator<< <…>");
  EXPECT_EQ(short_name("bool operator> <int>(X<int>, X<int>)"), "operator> <…>");
  EXPECT_EQ(short_name("bool operator>= <int>(X<int>, X<int>)"), "operator>= <…>");
  EXPECT_EQ(short_name("X& X::operator>>= <int>(int)"), "X::operator>>= <…>");
  EXPECT_EQ(short_name("auto ns::F<int>::operator()<long>(long) const"), "ns::F<…>::operator()<…>");
  EXPECT_EQ(short_name("Y* ns::P<Y>::operator->() const"), "ns::P<…>::operator->");
  EXPECT_EQ(short_name("ns::P<Y>::operator->*(int)"), "ns::P<…>::operator->*");
  EXPECT_EQ(short_name("operator new[](unsigned long)"), "operator new[]");
  EXPECT_EQ(short_name("operator delete(void*, unsigned long)"), "operator delete");
  EXPECT_EQ(short_name("ns::S<int>::operator std::map<int, int> const&() const"),
            "ns::S<…>::operator std::map<…> const&");
  EXPECT_EQ(templates_name("ns::S<int>::operator unsigned long() const"), "ns::S<int>::operator unsigned long");
  EXPECT_EQ(short_name("std::less<void>::operator()<int&, int&>(int&, int&) const"), "std::less<…>::operator()<…>");
  EXPECT_EQ(short_name("cmp<&S::operator< >()"), "cmp<…>");
}

TEST(StyledName, SyntheticAndCNamesPassThrough) {
  const std::string names[] = {
      "[syscall] write",   "[pruned]", "[kernel]",  "[3 threads] worker", "<spontaneous>", "memcpy@plt",
      "foo [clone .cold]", "main",     "main.cold", "__libc_start_main",  "_start",        ""};
  for (const std::string& n : names) {
    for (NameStyle style : {NameStyle::Short, NameStyle::Templates, NameStyle::Full}) {
      EXPECT_EQ(styled_name(n, "", style), n);
      EXPECT_EQ(styled_name(n, n, style), n);
    }
  }
  EXPECT_EQ(short_name("[3 threads] std::vector<int>::push_back(int&&)"),
            "[3 threads] std::vector<int>::push_back(int&&)");
}

TEST(StyledName, MalformedNamesComeBackUnchanged) {
  const std::string names[] = {"foo<int(",
                               "std::vector<int>>::x()",
                               ")))",
                               "(((",
                               "<<<<",
                               ">>>>",
                               "a<b",
                               "a>b::c()",
                               "foo(",
                               "foo)",
                               "{lambda(",
                               "[abi:",
                               "(anonymous namespace",
                               "x::operator",
                               "x::operator<",
                               "f(int]",
                               "f<int)",
                               "::",
                               "operator()(",
                               "a::b(c)d",
                               "void (",
                               "x::y(int) [clone"};
  for (const std::string& n : names) {
    for (NameStyle style : {NameStyle::Short, NameStyle::Templates}) {
      const std::string out = styled_name(n, "", style);
      EXPECT_LE(out.size(), n.size() + 8) << n;  // something sane, no runaway output
    }
  }
  EXPECT_EQ(short_name("foo<int("), "foo<int(");
  EXPECT_EQ(short_name("std::vector<int>>::x()"), "std::vector<int>>::x()");
  EXPECT_EQ(short_name("f(int]"), "f(int]");
  EXPECT_EQ(short_name("a::b(c)d"), "a::b(c)d");  // not followed by qualifiers: no parameter list
  EXPECT_EQ(short_name("x::operator"), "x::operator");
}

TEST(StyledName, RandomTextNeverBreaksIt) {
  // Pieces that steer the parser into its corners; a fixed seed keeps failures reproducible.
  static constexpr std::string_view kPieces[] = {"<",           ">",
                                                 "(",           ")",
                                                 "[",           "]",
                                                 "{",           "}",
                                                 " ",           "::",
                                                 "operator",    "operator<",
                                                 "operator()",  "->",
                                                 "*",           "&",
                                                 "const",       "a",
                                                 "f",           "#1",
                                                 "{lambda(",    "(anonymous namespace)",
                                                 "[abi:cxx11]", " [clone .cold]",
                                                 ",",           "…"};
  std::mt19937 random(42);
  std::vector<std::string> names;
  for (int i = 0; i < 20000; ++i) {
    std::string name;
    const size_t pieces = random() % 24;
    for (size_t k = 0; k < pieces; ++k) name += kPieces[random() % std::size(kPieces)];
    for (NameStyle style : {NameStyle::Short, NameStyle::Templates}) {
      const std::string out = styled_name(name, "", style);
      EXPECT_LE(out.size(), name.size() * 3 + 8) << name;
    }
    names.push_back(std::move(name));
  }
  std::vector<NameSource> table;
  for (const std::string& n : names) table.push_back({n, ""});
  EXPECT_EQ(display_names(table, NameStyle::Short).size(), names.size());
}

// Time-boxed: everything is linear, so a generous bound still catches quadratic behaviour.
constexpr auto kTimeBox = std::chrono::seconds(2);

TEST(StyledName, HundredThousandCharacterNamesInLinearTime) {
  std::string deep = "void ns::f<";  // template arguments nested 10,000 deep
  for (int i = 0; i < 10000; ++i) deep += "A<";
  deep += "int";
  for (int i = 0; i < 10000; ++i) deep += ">";
  deep += ">(";
  for (int i = 0; i < 15000; ++i) deep += "int, ";
  deep += "int) const";
  ASSERT_GE(deep.size(), 100000u);
  const std::string flat = "ns::" + std::string(100000, 'x') + "()";
  const std::string parens = std::string(50000, '(') + std::string(50000, ')');
  const std::string unbalanced(100000, '<');
  std::string lambdas;
  for (int i = 0; i < 7000; ++i) lambdas += "{lambda(int)#1}::";
  lambdas += "f()";
  const std::string braces = "f()::" + std::string(50000, '{') + std::string(50000, '}');
  std::string nested_lambdas = "f()::";
  for (int i = 0; i < 12000; ++i) nested_lambdas += "{lambda(";
  for (int i = 0; i < 12000; ++i) nested_lambdas += ")#1}";
  std::string declarators = "void ";  // a function pointer returning a function pointer ...
  for (int i = 0; i < 25000; ++i) declarators += "(*";
  declarators += "f<int>()";
  for (int i = 0; i < 25000; ++i) declarators += ")()";

  const auto start = Clock::now();
  EXPECT_EQ(short_name(deep), "ns::f<…>");
  EXPECT_EQ(styled_name(deep, "_Z" + std::string(100000, 'N'), NameStyle::Short), "ns::f<…>");
  EXPECT_EQ(short_name(flat), "ns::" + std::string(100000, 'x'));
  EXPECT_EQ(short_name(parens), parens);
  EXPECT_EQ(short_name(unbalanced), unbalanced);
  EXPECT_EQ(short_name(lambdas).size(), 7000 * std::string("{lambda#1}::").size() + 1);
  EXPECT_EQ(short_name(braces), "f::" + std::string(50000, '{') + std::string(50000, '}'));
  EXPECT_EQ(short_name(nested_lambdas), "f::{lambda#1}");
  EXPECT_EQ(short_name(declarators), "f<…>");
  const std::string deep_ref = deep + " &";
  const std::vector<NameSource> table = {{deep, ""}, {deep_ref, ""}, {flat, ""}, {parens, ""}};
  const std::vector<std::string> shown = display_names(table, NameStyle::Short);
  EXPECT_EQ(shown[2], "ns::" + std::string(100000, 'x'));
  EXPECT_NE(shown[0], shown[1]);
  EXPECT_LT(Clock::now() - start, kTimeBox);
}

// Issue 29.2: libc's symbol versions are noise in the short and template names (perf shows
// none); "@plt" and non-version text after "@" stay, the full name keeps everything.
TEST(StyledName, SymbolVersionsOnlyInTheFullName) {
  EXPECT_EQ(styled_name("memcpy@@GLIBC_2.14", "", NameStyle::Short), "memcpy");
  EXPECT_EQ(styled_name("stat@GLIBC_2.2.5", "", NameStyle::Templates), "stat");
  EXPECT_EQ(styled_name("stat@GLIBC_2.2.5@plt", "", NameStyle::Short), "stat@plt");
  EXPECT_EQ(styled_name("memcpy@@GLIBC_2.14", "", NameStyle::Full), "memcpy@@GLIBC_2.14");
  EXPECT_EQ(styled_name("odd@lower", "", NameStyle::Short), "odd@lower");
  EXPECT_EQ(styled_name("trailing@", "", NameStyle::Short), "trailing@");
  // Two versions of one symbol stay apart: each is shown in full.
  const NameSource two[] = {{"memcpy@@GLIBC_2.14", ""}, {"memcpy@GLIBC_2.2.5", ""}, {"free@@GLIBC_2.2.5", ""}};
  EXPECT_EQ(display_names(two, NameStyle::Short),
            (std::vector<std::string>{"memcpy@@GLIBC_2.14", "memcpy@GLIBC_2.2.5", "free"}));
}

TEST(DisplayNames, OverloadsGetTheirParameters) {
  const std::vector<NameSource> table = {{"Ov::f(int)", "_ZN2Ov1fEi"},
                                         {"Ov::f(double)", "_ZN2Ov1fEd"},
                                         {"Ov::g(std::vector<int, std::allocator<int> >)", ""},
                                         {"Ov::g(std::map<int, int>)", ""}};
  EXPECT_EQ(display_names(table, NameStyle::Short),
            (std::vector<std::string>{"Ov::f(int)", "Ov::f(double)", "Ov::g(std::vector<…>)", "Ov::g(std::map<…>)"}));
  EXPECT_EQ(display_names(table, NameStyle::Templates),
            (std::vector<std::string>{"Ov::f(int)", "Ov::f(double)", "Ov::g(std::vector<int, std::allocator<int> >)",
                                      "Ov::g(std::map<int, int>)"}));
}

TEST(DisplayNames, TemplatesDifferingOnlyInArgumentsGetThem) {
  const std::vector<NameSource> table = {{"S<int>::g()", ""}, {"S<long>::g()", ""}, {"T<int>::h()", ""}};
  EXPECT_EQ(display_names(table, NameStyle::Short), (std::vector<std::string>{"S<int>::g", "S<long>::g", "T<…>::h"}));
}

TEST(DisplayNames, EachLevelInTurn) {
  // Short and short-with-parameters collide, templates too: templates with parameters.
  const std::vector<NameSource> params = {{"S<int>::g(T<int>)", ""}, {"S<int>::g(T<long>)", ""}};
  EXPECT_EQ(display_names(params, NameStyle::Short),
            (std::vector<std::string>{"S<int>::g(T<int>)", "S<int>::g(T<long>)"}));
  // Only the return type differs: the full name.
  const std::vector<NameSource> full = {{"int f<int>()", ""}, {"long f<int>()", ""}};
  EXPECT_EQ(display_names(full, NameStyle::Short), (std::vector<std::string>{"int f<int>()", "long f<int>()"}));
  // Const and non-const overloads differ by their qualifiers.
  const std::vector<NameSource> cv = {{"std::vector<int>::begin()", ""}, {"std::vector<int>::begin() const", ""}};
  EXPECT_EQ(display_names(cv, NameStyle::Short),
            (std::vector<std::string>{"std::vector<…>::begin()", "std::vector<…>::begin() const"}));
  // The templates style starts at its own level.
  const std::vector<NameSource> templates = {{"S<int>::g()", ""}, {"S<int>::g(int)", ""}, {"S<long>::g()", ""}};
  EXPECT_EQ(display_names(templates, NameStyle::Templates),
            (std::vector<std::string>{"S<int>::g()", "S<int>::g(int)", "S<long>::g"}));
}

TEST(DisplayNames, OnlyTheCollidingGroupGetsMoreDetail) {
  const std::vector<NameSource> table = {{"void std::sort<int*>(int*, int*)", "_ZSt4sortIPiEvT_S1_"},
                                         {"Ov::f(int)", ""},
                                         {"Ov::f(double)", ""},
                                         {"Ov::f(int) [clone .cold]", ""},
                                         {"[pruned]", ""},
                                         {"foo", ""},
                                         {"foo()", ""}};
  EXPECT_EQ(display_names(table, NameStyle::Short),
            (std::vector<std::string>{"std::sort<…>", "Ov::f(int)", "Ov::f(double)", "Ov::f [clone .cold]", "[pruned]",
                                      "foo", "foo()"}));
}

TEST(DisplayNames, IdenticalFullNamesStayIdentical) {
  const std::vector<NameSource> table = {{"Ov::f(int)", "_ZN2Ov1fEi"},    {"Ov::f(int)", ""}, {"Ov::f(int)", "_Z3barv"},
                                         {"Ov::f(double)", "_ZN2Ov1fEd"}, {"x::y()", ""},     {"x::y()", ""}};
  EXPECT_EQ(display_names(table, NameStyle::Short),
            (std::vector<std::string>{"Ov::f(int)", "Ov::f(int)", "Ov::f(int)", "Ov::f(double)", "x::y", "x::y"}));
  EXPECT_TRUE(display_names({}, NameStyle::Short).empty());
}

TEST(DisplayNames, FullStyleIsTheNamesThemselves) {
  const std::vector<NameSource> table = {{"void std::sort<int*>(int*, int*)", ""}, {"[pruned]", ""}};
  EXPECT_EQ(display_names(table, NameStyle::Full),
            (std::vector<std::string>{"void std::sort<int*>(int*, int*)", "[pruned]"}));
}

TEST(DisplayNames, LargeTablesInLinearTime) {
  // 30,000 functions whose short names all collide, settled at the templates level.
  std::vector<std::string> names;
  for (int i = 0; i < 30000; ++i) names.push_back("ns::C<" + std::to_string(i) + ">::m(int)");
  std::vector<NameSource> table;
  for (const std::string& n : names) table.push_back({n, ""});
  const auto start = Clock::now();
  const std::vector<std::string> shown = display_names(table, NameStyle::Short);
  EXPECT_LT(Clock::now() - start, kTimeBox);
  ASSERT_EQ(shown.size(), names.size());
  EXPECT_EQ(shown[0], "ns::C<0>::m");
  EXPECT_EQ(shown[29999], "ns::C<29999>::m");
}

TEST(ParseNameStyle, KnownWordsOnly) {
  EXPECT_EQ(parse_name_style("short"), NameStyle::Short);
  EXPECT_EQ(parse_name_style("templates"), NameStyle::Templates);
  EXPECT_EQ(parse_name_style("full"), NameStyle::Full);
  EXPECT_EQ(parse_name_style("Short"), std::nullopt);
  EXPECT_EQ(parse_name_style(""), std::nullopt);
  EXPECT_EQ(parse_name_style("template"), std::nullopt);
}

TEST(FitWidth, CutsAtCodePoints) {
  EXPECT_EQ(fit_width("abcdef", 0), "abcdef");
  EXPECT_EQ(fit_width("abcdef", 6), "abcdef");
  EXPECT_EQ(fit_width("abcdef", 5), "abcd…");
  EXPECT_EQ(fit_width("abcdef", 1), "…");
  EXPECT_EQ(fit_width("", 3), "");
  EXPECT_EQ(fit_width("日本語テキスト", 7), "日本語テキスト");
  EXPECT_EQ(fit_width("日本語テキスト", 4), "日本語…");
  EXPECT_EQ(fit_width("1.00µs total", 5), "1.00…");
  EXPECT_EQ(fit_width("std::vector<…>::push_back", 14), "std::vector<……");
  EXPECT_EQ(fit_width("a\\x1bb", 4), "a\\x…");  // escapes count as the columns they show
}

}  // namespace
}  // namespace callprof
