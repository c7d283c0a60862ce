#!/bin/sh
# Stops the process that runs it (the worker) at its fifth decision, then answers.
n=0
while IFS= read -r line; do
  case "$line" in
    *'"type": "hello"'*) printf '%s\n' '{"name": "stopper-sh", "version": "1"}' ;;
    *'"type": "act"'*) n=$((n + 1)); [ "$n" -eq 5 ] && kill -STOP "$PPID"
      action=${line#*'"legal_actions": ["'}; printf '%s\n' "${action%%'"'*}" ;;
    *'"type": "quit"'*) exit 0 ;;
  esac
done
