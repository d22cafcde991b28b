# SPDX-License-Identifier: MIT
# Batch part of the gdb helpers test: stops in the GPL module's call of invalidate_mmap_range(), runs the kernel's own
# lx- helpers between markers the test reads, loads the module's symbols with lx-symbols, then runs to power-off.
# The module folder comes from UMLBED_LX_MODDIR, since a gdb script has no arguments of its own. The probes that
# read the module's symbols catch their error, so that a kernel whose symbols go wrong still runs to its power-off.
break invalidate_mmap_range
run
echo \numlbed-lx-begin version\n
lx-version
echo umlbed-lx-end\n
echo umlbed-lx-begin cmdline\n
lx-cmdline
echo umlbed-lx-end\n
echo umlbed-lx-begin dmesg\n
lx-dmesg
echo umlbed-lx-end\n
echo umlbed-lx-begin ps\n
lx-ps
echo umlbed-lx-end\n
echo umlbed-lx-begin lsmod\n
lx-lsmod
echo umlbed-lx-end\n
echo umlbed-lx-begin symbols\n
python import os; gdb.execute("lx-symbols " + os.environ["UMLBED_LX_MODDIR"])
echo umlbed-lx-end\n
echo umlbed-lx-begin offset\n
python
try:
    gdb.execute("print 'umlbed_gpl.c'::offset")
except gdb.error as e:
    print("error: %s" % e)
end
echo umlbed-lx-end\n
echo umlbed-lx-begin text\n
python
try:
    gdb.execute("info line umlbed_leak")
except gdb.error as e:
    print("error: %s" % e)
end
echo umlbed-lx-end\n
echo umlbed-lx-begin init\n
python
try:
    gdb.execute("info line umlbed_init")
    gdb.execute('print/x $lx_module("umlbed_gpl")->init')
except gdb.error as e:
    print("error: %s" % e)
end
echo umlbed-lx-end\n
# lx-symbols leaves a breakpoint on do_init_module whose handler never lets the next module load finish under UML
# (docs/gdb.md): remove it before the kernel goes on.
python import gc, linux.symbols; [b.delete() for b in gc.get_objects() if isinstance(b, linux.symbols.LoadModuleBreakpoint) and b.is_valid()]
delete
continue
