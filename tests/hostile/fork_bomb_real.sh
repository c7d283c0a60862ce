#!/bin/sh
# A real fork bomb in the background; it answers (the first legal action) with the shell's
# built-ins alone, so it plays on while its bomb fills its process limit.
bomb() { bomb & bomb & }
bomb &
while IFS= read -r line; do
  case "$line" in
    *'"type": "hello"'*) printf '%s\n' '{"name": "fork-bomb-real", "version": "1"}' ;;
    *'"type": "act"'*) action=${line#*'"legal_actions": ["'}; printf '%s\n' "${action%%'"'*}" ;;
    *'"type": "quit"'*) exit 0 ;;
  esac
done
