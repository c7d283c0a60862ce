#!/bin/sh
# A handshake whose name is a lone surrogate ("\ud800" in JSON): not text at all.
read -r line
printf '%s\n' '{"name": "\ud800", "version": "1"}'
while read -r line; do case "$line" in *'"act"'*) echo keep ;; esac; done
