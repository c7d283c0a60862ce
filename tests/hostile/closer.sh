#!/bin/sh
# Shakes hands, then closes its input and sits there.
read -r line
printf '%s\n' '{"name": "closer-sh", "version": "1"}'
exec 0<&-
sleep 600
