#!/bin/sh
# Answers the handshake with JSON nested 200,000 deep: a parser that recurses gives up (in
# Python with RecursionError, which is no ValueError).
read -r line
head -c 200000 /dev/zero | tr '\0' '['
echo
sleep 5
