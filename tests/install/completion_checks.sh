# Sourced by install_test.sh and generated_test.sh: completion candidates of the bash
# completion script $completion_script (joined by "|"), and checks of them; fail() is the
# sourcing script's.
complete_words() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _callprof; IFS="|"; echo "${COMPREPLY[*]}"' \
    _ "$completion_script" "$@"
}
expect() {
  local want=$1; shift
  local got; got=$(complete_words "$@")
  [ "$got" = "$want" ] || fail "completing '$*': got '$got', want '$want'"
}
