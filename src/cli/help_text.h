// What `callprof COMMAND --help` shows besides the options: the usage line's operands, and
// choice lists laid out so that the help stays readable and packaging/make-completion.py
// (which generates the bash completion from --help) reads the choices.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace callprof::cli {

// "Usage: callprof COMMAND [OPTIONS] <operands>" instead of CLI11's names of the positionals
// ("record [OPTIONS] -- PROG [ARGS...]"); help2man's SYNOPSIS comes from this line.
void set_usage(CLI::App& app, std::string operands);

// "a | b | c | ..." in lines of at most about `width` characters, each line but the last
// ending in " |": CLI11 indents the lines after the first to the description column.
std::string choice_lines(const std::vector<std::string>& choices, size_t width = 64);

}  // namespace callprof::cli
