#!/bin/sh
# Answers "keep" to everything without ever reading what arena sends it.
echo '{"name": "deaf-sh", "version": "1"}'
exec yes keep
