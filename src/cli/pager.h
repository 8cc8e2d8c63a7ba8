// Output for people at a terminal: long reports go through a pager, as git and perf do.
#pragma once

#include <string_view>

namespace callprof::cli {

// The width of the terminal on stdout, 0 when stdout is not a terminal.
size_t terminal_width();

// Writes `text` to stdout, through $PAGER (default "less -FRSX") when stdout is a terminal
// and `use_pager`; without a usable pager, directly. Returns false when writing failed.
bool write_paged(std::string_view text, bool use_pager);

}  // namespace callprof::cli
