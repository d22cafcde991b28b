#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fake-id0.sh: a fake UML for regress.t's ID-0 error reply test: it boots, then answers every request with "0 error err
# EINVAL -", the error reply an agent sends when it cannot tell which request a line was.
if [ "$1" = --version ]; then
  echo 6.1.0-fake
  exit 0
fi
echo "Linux version 6.1.0-fake (regress fake-id0.sh)"
printf '0 ready ok 1 4096 6.1.0-fake\n' >&4
echo "Run /umlbed-agent as init process"
while read -r _ <&3; do
  printf '0 error err EINVAL -\n' >&4
done
