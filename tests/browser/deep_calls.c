/* A call tree deeper than the web report's flame panel is tall, with recursion through two
 * functions and helpers called from several places, for browser.pictures: the flame graph
 * must open with its roots in view, the call graph's recursion must not turn the layout
 * upside down, and focus/hide in the page must match `callprof report --focus/--hide`.
 *   main -> descend(100) x3: a chain of 101 descend frames, each calling spin; the last
 *     calls parse_block.
 *   main -> is_even(30): is_even -> is_odd -> is_even ... (mutual recursion), each calling
 *     spin; the last calls parse_block.
 *   main -> parse_block x20 -> parse_line x4 -> spin, lookup. */
static volatile unsigned long sink;

void spin(int n) {
  for (int i = 0; i < n; i++) sink += (unsigned long)i * 7u;
}

void lookup(int n) { spin(n * 3); }

void parse_line(int n) {
  spin(n);
  lookup(n);
}

void parse_block(int lines) {
  for (int i = 0; i < lines; i++) parse_line(2000 + 500 * i);
}

int descend(int depth) {
  spin(3000);
  if (depth == 0) {
    parse_block(4);
    return 0;
  }
  return descend(depth - 1) + 1; /* not a tail call: the result is used */
}

int is_odd(int n);

int is_even(int n) {
  spin(2000);
  if (n == 0) {
    parse_block(2);
    return 1;
  }
  return is_odd(n - 1) + 0 * (int)sink;
}

int is_odd(int n) {
  spin(1000);
  if (n == 0) return 0;
  return is_even(n - 1) + 0 * (int)sink;
}

int main(void) {
  int r = 0;
  for (int i = 0; i < 3; i++) r += descend(100);
  r += is_even(30);
  for (int i = 0; i < 20; i++) parse_block(4);
  return r == 301 ? 0 : 1;
}
