#!/bin/sh
# A program bot that moves processes out of its process group: one in a session of
# its own that stays its child, one orphaned at once (a daemon's double fork).
setsid sleep 302 &
(setsid sleep 303 &)
while IFS= read -r line; do
  case "$line" in
    *'"type": "hello"'*) printf '%s\n' '{"name": "escaper-sh", "version": "1"}' ;;
    *'"type": "act"'*) printf '%s\n' "$line" | sed -n 's/.*"legal_actions": \["\([^"]*\)".*/\1/p' ;;
    *'"type": "quit"'*) exit 0 ;;
  esac
done
