#!/bin/sh
# A program bot that starts background processes, then plays the first legal action.
for i in 1 2 3 4 5 6 7 8 9 10; do sleep 300 & done
while IFS= read -r line; do
  case "$line" in
    *'"type": "hello"'*) printf '%s\n' '{"name": "fork-bomb-sh", "version": "1"}' ;;
    *'"type": "act"'*) printf '%s\n' "$line" | sed -n 's/.*"legal_actions": \["\([^"]*\)".*/\1/p' ;;
    *'"type": "quit"'*) exit 0 ;;
  esac
done
