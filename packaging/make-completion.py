#!/usr/bin/env python3
"""Usage: make-completion.py CALLPROF OUTPUT

Writes callprof's bash completion from `callprof --help` and `callprof COMMAND --help`
(CLI11's layout), so that it offers exactly the commands and options the program accepts:
commands, each command's options, the values of options that name their choices
(`MODE:{a,b}`, a description that starts `a | b | c`, or one with `...: a | b | c`), files
elsewhere, and after `record ... --` the program to run."""
import re
import shlex
import subprocess
import sys

# An option line of CLI11's help: "  -f,--format FORMAT=pprof REQUIRED  description": the
# names; the value's type, in capitals, with IsMember's ":{a,b}" and "=DEFAULT"; CLI11's
# markers (" ...", " x 2", " REQUIRED", " Needs: --a", " Excludes: --b"), which are not
# part of the description; then the description, after at least one space, or on the next
# lines (indented to the description column) when the names are long. A description with
# line breaks continues on such lines too.
OPTION_LINE = re.compile(
    r"^  (-\S+)"
    r"(?: ([A-Z][A-Z0-9_]*(?::\{[^}]*\}|:[^ =]+)*(?:=\S*)?))?"
    r"(?: \.\.\.| x \d+| REQUIRED| \(Env:[^)]*\)| (?:Needs|Excludes):(?: -\S+)+)*"
    r"(?: +(\S.*))?$")
CONTINUATION = re.compile(r"^ {10,}(\S.*)$")
TOKEN = r"[\w][\w.%+-]*"  # a value: tree, callers-of, self%, syscall.write
CONTEXT_CHOICE = re.compile(rf"^[\w-]+: ({TOKEN})$")  # "collapsed: self | cpu": the values follow
# A choice at the start of a part of "a (what a is) | b: what b is | c".
CHOICE_WORD = re.compile(rf"^({TOKEN})(?:$| \(|: )")
# "Sort by this column: a | b | c; threads view: d | e": lists of two or more after ": ".
LISTED_CHOICES = re.compile(rf"(?:^|: )({TOKEN}(?: \| {TOKEN})+)(?=$|[;,.)]| )")


def help_text(callprof, *args):
    return subprocess.run([callprof, *args, "--help"], check=True, capture_output=True, text=True).stdout


def commands(top_help):
    section = top_help.split("Subcommands:", 1)[1]
    return [line.split()[0] for line in section.splitlines() if line.startswith("  ") and line.strip()]


def choices_of(value_type, description):
    braces = re.search(r":\{([^}]*)\}", value_type or "")
    if braces:
        return braces.group(1).split(",")
    if " | " not in description:
        return None
    return leading_choices(description) or listed_choices(description)


def leading_choices(description):
    """A description made of choices: "a | b (what b is) | c: what c is", or "ctx: a | b"."""
    parts = description.split(" | ")
    first = CONTEXT_CHOICE.match(parts[0])
    words = [first.group(1)] if first else []
    for part in parts[len(words):]:
        word = CHOICE_WORD.match(part)
        if not word:
            return None
        words.append(word.group(1))
    return words


def listed_choices(description):
    """The choices listed in prose: every "...: a | b | c" list, in order, once each."""
    words = []
    for listed in LISTED_CHOICES.findall(description):
        words += [w for w in listed.split(" | ") if w not in words]
    return words or None


def options(command_help):
    """(names, takes_value, choices) per option line; a description may be on the next lines."""
    lines = command_help.splitlines()
    found = []
    for i, line in enumerate(lines):
        match = OPTION_LINE.match(line)
        if not match:
            continue
        names = match.group(1).split(",")
        value_type = match.group(2)
        description = [match.group(3)] if match.group(3) else []
        for following in lines[i + 1:]:
            more = CONTINUATION.match(following)
            if not more:
                break
            description.append(more.group(1))
        description = " ".join(description)
        choices = choices_of(value_type, description) if value_type else None
        found.append((names, value_type is not None, choices))
    return found


def bash_words(words):
    return shlex.quote(" ".join(words))


def command_case(command, opts):
    names = [n for names, _, _ in opts for n in names]
    valued = [n for names, takes, _ in opts if takes for n in names]
    lines = [f"    {command})", f"      opts={bash_words(names)}", f"      valued={bash_words(valued)}"]
    choice_cases = [f"        {'|'.join(names)}) choices={bash_words(choices)} ;;" for names, _, choices in opts if choices]
    if choice_cases:
        lines += ['      case $prev in', *choice_cases, "      esac"]
    lines.append("      ;;")
    return "\n".join(lines)


SCRIPT = r"""# bash completion for callprof. Generated from `callprof --help` by packaging/make-completion.py:
# do not edit, rebuild. (mapfile: one candidate per line, so file names may contain spaces.)
_callprof() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  # "--mode=ex" arrives as "--mode" "=" "ex" ('=' is in COMP_WORDBREAKS)
  if [[ $cur == = ]]; then
    cur=""
  elif [[ $prev == = ]]; then
    prev=${COMP_WORDS[COMP_CWORD-2]}
  fi
  local command="" at i
  for ((i = 1; i < COMP_CWORD; i++)); do
    if [[ ${COMP_WORDS[i]} != -* ]]; then command=${COMP_WORDS[i]}; at=$i; break; fi
  done
  if [[ -z $command ]]; then
    mapfile -t COMPREPLY < <(compgen -W %(commands)s -- "$cur")
    return
  fi
  # record -- PROGRAM ARGS: complete as a command line of its own.
  if [[ $command == record ]]; then
    for ((i = at + 1; i < COMP_CWORD; i++)); do
      [[ ${COMP_WORDS[i]} == -- ]] || continue
      if declare -F _command_offset >/dev/null; then
        _command_offset $((i + 1))
      elif ((COMP_CWORD == i + 1)); then
        mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
      else
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      fi
      return
    done
  fi
  local opts="" valued="" choices=""
  case $command in
%(cases)s
    *) return ;;
  esac
  if [[ -n $choices ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$choices" -- "$cur")
  elif [[ $cur == -* && " $valued " != *" $prev "* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
  else
    # an option's value or a positional argument: mostly files (profiles, outputs, programs)
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
}
complete -F _callprof callprof
"""


def main():
    callprof, output = sys.argv[1], sys.argv[2]
    top = help_text(callprof)
    names = commands(top)
    if not names:
        sys.exit("make-completion.py: no commands in callprof --help")
    cases = "\n".join(command_case(c, options(help_text(callprof, c))) for c in names)
    top_words = names + [n for opt_names, _, _ in options(top) for n in opt_names]
    with open(output, "w") as out:
        out.write(SCRIPT % {"commands": bash_words(top_words), "cases": cases})


if __name__ == "__main__":
    main()
