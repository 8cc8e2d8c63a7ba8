// flame_hostile: a program whose functions have hostile symbol names (markup, a script
// element, an event handler in quotes, a CDATA end), given with asm labels, so the names
// travel the whole way: ELF symbols, callprof record's symbolization, the profile, the flame
// graph SVG (browser.flame, flame.test.mjs). Each name's marker (window.__pwned = N) would show
// if it ever ran as code. (GNU as takes quoted symbol names but no '"' inside them.)
#include <stdio.h>
__attribute__((noinline)) void f_script(int n) __asm__("\"<script>window.__pwned=1;alert(1)</script>\"");
__attribute__((noinline)) void f_attr(int n) __asm__("\"' onmouseover='window.__pwned=2' x='\"");
__attribute__((noinline)) void f_img(int n) __asm__("\"<img src=x onerror=window.__pwned=3>\"");
__attribute__((noinline)) void f_cdata(int n) __asm__("\"]]></text></svg><svg onload=window.__pwned=4>\"");
volatile long sink;
void f_script(int n) {
  for (int i = 0; i < n; i++) sink += i;
}
void f_attr(int n) {
  for (int i = 0; i < n; i++) sink += i;
  f_script(n / 2);
}
void f_img(int n) {
  for (int i = 0; i < n; i++) sink += i;
}
void f_cdata(int n) {
  for (int i = 0; i < n; i++) sink += i;
  f_img(n / 3);
}
int main(void) {
  for (int k = 0; k < 20; k++) {
    f_script(200000);
    f_attr(300000);
    f_img(100000);
    f_cdata(400000);
  }
  printf("%ld\n", sink);
  return 0;
}
