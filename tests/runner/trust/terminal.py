# SPDX-License-Identifier: MIT
# terminal.py PREFIX [UID]: a terminal with a line typed into it, as a user's shell has one (trust.t F, kmod-walls.t):
# its name goes to PREFIX.name (its owner UID, when given, as root), then, once the test has opened PREFIX.ready and
# PREFIX.go for writing (common.sh's ready_wait), whatever reached it from elsewhere goes to PREFIX.got.
import os
import pty
import sys
import tty

prefix = sys.argv[1]
m, s = pty.openpty()
# Raw: no echo of the typed line back to this side, where only others' writes may then show.
tty.setraw(s)
name = os.ttyname(s)
if len(sys.argv) > 2:
    os.chown(name, int(sys.argv[2]), -1)
os.write(m, b"typed by a user\n")
with open(prefix + ".name", "w") as f:
    f.write(name)
open(prefix + ".ready").close()
open(prefix + ".go").close()
os.set_blocking(m, False)
try:
    got = os.read(m, 4096)
except BlockingIOError:
    got = b""
with open(prefix + ".got", "wb") as f:
    f.write(got)
