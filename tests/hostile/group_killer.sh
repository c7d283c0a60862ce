#!/bin/sh
# At its fifth decision, SIGKILL to the process that runs it and to that one's group.
n=0
while IFS= read -r line; do
  case "$line" in
    *'"type": "hello"'*) printf '%s\n' '{"name": "group-killer-sh", "version": "1"}' ;;
    *'"type": "act"'*) n=$((n + 1))
      if [ "$n" -eq 5 ]; then kill -KILL -- "-$(ps -o pgid= "$PPID" | tr -d ' ')"; kill -KILL "$PPID"; fi
      action=${line#*'"legal_actions": ["'}; printf '%s\n' "${action%%'"'*}" ;;
    *'"type": "quit"'*) exit 0 ;;
  esac
done
