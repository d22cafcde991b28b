# SPDX-License-Identifier: MIT
# Batch part of the gdb test: print the arguments of every call of invalidate_mmap_range() (the exported function,
# called by the modules) and of __invalidate_mmap_range() (its body, which the sysfs trigger calls), then run.
break invalidate_mmap_range
commands
silent
printf "umlbed-hit invalidate_mmap_range holebegin=%llu holelen=%llu\n", holebegin, holelen
continue
end
break __invalidate_mmap_range
commands
silent
printf "umlbed-hit __invalidate_mmap_range holebegin=%llu holelen=%llu\n", holebegin, holelen
continue
end
run
