#!/bin/sh
# A bot in POSIX shell, for any arena game: it always plays the first legal action.
# It speaks arena's JSON-lines protocol on stdin/stdout (see the README):
#   hello -> one JSON line with name and version
#   act   -> one line: an action string from the observation's legal_actions
#   start, end -> nothing;  quit -> exit
# Run it with:  arena play seasons command:bots/examples/first_legal.sh bots/seasons/random_bot.py
while IFS= read -r line; do
  case "$line" in
    *'"type": "hello"'*)
      printf '%s\n' '{"name": "first-legal-sh", "version": "1.0"}' ;;
    *'"type": "act"'*)
      first=${line#*'"legal_actions": ["'}
      printf '%s\n' "${first%%'"'*}" ;;
    *'"type": "quit"'*)
      exit 0 ;;
  esac
done
