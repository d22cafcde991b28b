# SPDX-License-Identifier: MIT
# gdb settings for running a UML kernel binary: pass UML's own signals through silently and stay on the kernel process.
set pagination off
set confirm off
# UML turns host SIGSEGV into guest page faults, and uses SIGIO, SIGALRM and SIGWINCH for its interrupts and timers.
handle SIGSEGV nostop noprint pass
handle SIGIO nostop noprint pass
handle SIGALRM nostop noprint pass
handle SIGVTALRM nostop noprint pass
handle SIGWINCH nostop noprint pass
handle SIGUSR1 nostop noprint pass
handle SIGUSR2 nostop noprint pass
handle SIGCHLD nostop noprint pass
handle SIGPIPE nostop noprint pass
# UML forks helper processes (the userspace stubs it ptraces itself); gdb must stay with the kernel and let them go.
set follow-fork-mode parent
set detach-on-fork on
