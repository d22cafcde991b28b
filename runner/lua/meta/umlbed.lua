---@meta
-- SPDX-License-Identifier: MIT
-- umlbed.lua: LuaLS definitions of the umlbed module and its objects (vm, proc, mapping, file, loopctl); t.lua has t.
--
-- A definition file for editors (lua-language-server reads it; README.md says how), never loaded by the runner.
-- The source of truth is runner/lua/*.c and docs/lua-*.md; tests/runner/meta.t compares this file with both.
-- Conventions that test reads: a class is "---@class NAME" followed by "local VAR = {}"; a method is
-- "function VAR:NAME(ARGS) end" after a block of one description line, a @param per argument and @return lines;
-- a field is "---@field NAME[?] TYPE description" ("?": it may read nil). Types hold no blank outside brackets.
-- Guest calls return nil, "ENAME: message", "ENAME" on a guest error: the @return lines say so once per call.
-- luacheck: no unused

---@alias umlbed.access "r"|"w"
---@alias umlbed.impl "seed"|"unmap"|"unmap-keep-cows"
---@alias umlbed.cache_policy "keep"|"drop"
---@alias umlbed.mode "shared"|"private"
---@alias umlbed.prot "r"|"rw"
---@alias umlbed.path umlbed.file|string

---Boot options of t:vm and umlbed.boot.
---@class umlbed.vm_opts
---@field mem? string guest memory, 32M to 64G (default --mem, else 64M)
---@field cmdline? string extra kernel command line, split at blanks, after --cmdline: only the allowed options (docs/lua-vm.md)
---@field time_travel? boolean boot with time-travel=inf-cpu (default --time-travel)
---@field probe? boolean boot the run's probe kernel (umlbed run --probe-variant), else the run's own

---The table of vm:invalidate and proc:invalidate.
---@class umlbed.invalidate_args
---@field file umlbed.path the file object or guest path to invalidate
---@field offset? integer first byte (default 0; rounded down to a page)
---@field length? integer bytes (default the rest of a file object; required with a path; rounded up)
---@field impl? umlbed.impl the implementation (omitted: the kernel's default, seed)
---@field cache? umlbed.cache_policy keep or drop the page cache of the range (needs impl)

---The options of proc:mmap.
---@class umlbed.mmap_opts
---@field offset? integer file offset of the mapping (default 0)
---@field length? integer bytes (default the rest of a file object; required with a path)
---@field mode? umlbed.mode shared (default) or private
---@field prot? umlbed.prot rw (default) or r
---@field addr? integer map at this address with MAP_FIXED_NOREPLACE

---The options of vm:run and proc:run.
---@class umlbed.run_opts
---@field path string the guest program (required)
---@field args? string[] its arguments after argv[0]
---@field cwd? string working directory
---@field env? table<string,string> environment entries, added to PATH and HOME or replacing them
---@field uid? integer user (and group) to run as, supplementary groups dropped
---@field timeout? number seconds before the program's process group is killed (status "timeout")

---The options of proc:exit.
---@class umlbed.exit_opts
---@field wait? boolean return only once the agent reported the worker reaped (its mm gone)

---One finding of umlbed.findings.
---@class umlbed.finding
---@field kind string "kernel WARNING", "lockdep report", "kernel BUG", "kernel Oops" or "kernel panic"
---@field line string the log line, without its "<N>" level

---The table a scenario file returns (docs/scenarios.md).
---@class umlbed.scenario
---@field name? string display name (default the file name); matrix runs append [key=value, ...]
---@field run fun(t:umlbed.t,p:table<string,any>) the scenario; returning normally ends it
---@field matrix? table<string,any[]> one run per combination, keys in sorted order, the last varying fastest
---@field allow_warnings? boolean a kernel WARNING or lockdep report does not make the run CRASHED
---@field skip? string reported ok ... # SKIP with this reason, nothing booted
---@field timeout? number|fun(p:table<string,any>):number seconds (boot included) when --timeout is not given

---The module: require "umlbed".
---@class umlbed
---@field protocol integer the line protocol's version
local umlbed = {}

---Boots a vm for the running scenario and yields until its agent is ready, like t:vm.
---@param opts? umlbed.vm_opts boot options
---@return umlbed.vm|nil vm the booted instance
---@return string|nil err "ENAME: message" if it could not start
---@return string|nil ename the errno name
function umlbed.boot(opts) end

---Percent-encodes s as one protocol field, for vm:request.
---@param s string any bytes
---@return string field the encoded field
function umlbed.encode(s) end

---Decodes a percent-encoded protocol field, such as a raw vm:request reply field.
---@param field string the encoded field
---@return string|nil s the bytes, or nil if the encoding is malformed
---@return string|nil err "EINVAL: malformed percent-encoding"
---@return string|nil ename the errno name
function umlbed.decode(field) end

---The lines of a kernel log that the runner's console scanner counts as findings.
---@param text string a console log, or vm:klog()'s text with its "<N>" levels
---@return umlbed.finding[] findings in log order; empty if there is none
function umlbed.findings(text) end

---One booted UML instance whose agent (PID 1) answers requests.
---@class umlbed.vm
---@field pagesize integer guest page size (from the agent's ready event)
---@field release string uname -r of the guest
---@field index integer 0 for the scenario's first vm, 1 for the second, ...
---@field dir string host folder of this instance (console.log, uml/, tmp/)
---@field console string host path of the console log
---@field shared string host path of the shared folder (the guest's /shared)
---@field cpu integer host CPU the instance is pinned to
---@field pid integer host pid of the UML process (its process group id)
---@field kernel string absolute host path of the UML binary
---@field agent string absolute host path of the guest agent (umlbed-explore is beside it)
---@field variant? string the kernel variant ("full", "gpl-only", ...), nil when unknown
---@field probe boolean whether it runs a probe kernel other than the run's (boot option probe)
---@field boot_ms number milliseconds from spawn to the agent's ready event
local vm = {}

---Starts a fresh worker process with its own mm.
---@return umlbed.proc|nil proc the worker
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function vm:spawn() end

---Creates (or truncates) /shared/NAME of size zero bytes, or opens an existing one when size is nil.
---@param name string a plain file name: no '/', blank or control character, under 250 bytes
---@param size? integer bytes to create; nil opens the existing file without a guest call
---@return umlbed.file|nil file the file
---@return string|nil err "ENAME: message" on failure
---@return string|nil ename the errno name
function vm:file(name, size) end

---Writes the invalidate_mmap_range trigger from PID 1's helper, one call at a time.
---@param args umlbed.invalidate_args file, offset, length, impl and cache
---@return true|nil ok true once the write returned
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function vm:invalidate(args) end

---Writes text to the trigger as it is, for malformed input tests.
---@param text string the raw trigger line
---@return integer|nil written bytes written
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function vm:trigger(text) end

---Reads the trigger's stats file as a table, e.g. {calls = 3, seed_calls = 2}.
---@return table<string,number|string>|nil stats the counters by name
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function vm:stats() end

---Reads /proc/sys/kernel/tainted.
---@return integer|nil tainted the taint mask
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function vm:tainted() end

---Reads the kernel log.
---@return string|nil log the log, each line with its "<N>" level
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function vm:klog() end

---Reads a whole guest file in the agent.
---@param path string guest path
---@param max? integer at most this many bytes (default 1 MiB)
---@return string|nil data the contents
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function vm:readfile(path, max) end

---Writes data to a guest file with one write().
---@param path string guest path
---@param data string the bytes
---@return integer|nil written bytes written
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function vm:writefile(path, data) end

---Runs a static guest program as root from /, output (stdout and stderr) kept to the first MiB.
---@param path string guest path of the program
---@param ... string its arguments
---@return string|nil status "exit:N" or "signal:N", with "+escaped" if an escaped process held the output
---@return string output the output, or "ENAME: message" on failure
---@return string|nil ename the errno name on failure
function vm:exec(path, ...) end

---Runs a guest program with a working directory, environment, user and timeout, in PID 1.
---@param opts umlbed.run_opts path, args, cwd, env, uid and timeout
---@return string|nil status "exit:N", "signal:N" or "timeout", with "+escaped" as for exec
---@return string output the output, or "ENAME: message" on failure
---@return string|nil ename the errno name on failure
function vm:run(opts) end

---Copies a host program into the guest's root, mode 0555, making the folders and following no guest link.
---@param host_path string the host file
---@param guest_path? string absolute guest path without . or .. (default /bin/NAME)
---@return string|nil path the guest path
---@return string|nil err "ENAME: message" on failure
---@return string|nil ename the errno name
function vm:install(host_path, guest_path) end

---Stages a static busybox as /bin/busybox with its applets linked in /bin.
---@param host_busybox? string a static busybox on the host (default $UMLBED_BUSYBOX, else /bin/busybox)
---@return string|nil sh "/bin/sh"
---@return string|nil err "ENAME: message", naming busybox-static when it is missing or dynamic
---@return string|nil ename the errno name
function vm:shell(host_busybox) end

---Loads a kernel module with finit_module.
---@param path string guest path of the .ko file
---@param params? string module parameters
---@return true|nil ok true once loaded
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function vm:insmod(path, params) end

---Unloads a kernel module with delete_module.
---@param name string the module's name
---@return true|nil ok true once unloaded
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function vm:rmmod(name) end

---Shuts the instance down in order; its exit is then not a crash.
---@return true|nil ok true once the agent acknowledged
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function vm:poweroff() end

---Sends any protocol verb; each field must be a non-empty protocol word (umlbed.encode it).
---@param pid integer the guest PID the request is for (1: the agent)
---@param verb string the protocol verb
---@param ... string the request's fields
---@return string|true|nil field the first raw reply field, still encoded (true if none), nil on an error
---@return string ... the other fields, or "ENAME: message" and "ENAME" on an error
function vm:request(pid, verb, ...) end

---Kills the instance now; also what __gc and __close do (local vm <close> = t:vm()).
---@return nil
function vm:kill() end

---Creates a loop control: a one-page file in the guest's /tmp that starts and stops m:loop passes.
---@return umlbed.loopctl|nil ctl the control
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function vm:loopctl() end

---A guest worker process with its own mm (vm:spawn, proc:fork); == compares vm and pid.
---@class umlbed.proc
---@field pid integer guest pid (what the protocol addresses)
---@field vm umlbed.vm the vm it runs on
local proc = {}

---Forks n children (1..256) that inherit this process's mappings.
---@param n? integer how many (default 1)
---@return umlbed.proc[]|nil children the children, in order
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function proc:fork(n) end

---Makes the worker exit after its reply; with {wait = true}, returns once it is reaped.
---@param code? integer exit code
---@param opts? umlbed.exit_opts wait = true waits for the agent's exited event
---@return true|nil ok true
---@return string|nil status with wait: "exit:N" or "signal:N"; on failure "ENAME: message"
---@return string|nil ename the errno name on failure
---@overload fun(self:umlbed.proc,opts:umlbed.exit_opts):true|nil,string|nil,string|nil
function proc:exit(code, opts) end

---Maps a file (or guest path) into this process.
---@param file umlbed.path the file object or guest path
---@param opts? umlbed.mmap_opts offset, length, mode, prot, addr
---@return umlbed.mapping|nil m the mapping
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function proc:mmap(file, opts) end

---Drops root in this process.
---@param uid integer the user id
---@return true|nil ok true
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function proc:setuid(uid) end

---Runs a static program as a child of this process.
---@param path string guest path of the program
---@param ... string its arguments
---@return string|nil status "exit:N" or "signal:N", with "+escaped" as for vm:exec
---@return string output the output, or "ENAME: message" on failure
---@return string|nil ename the errno name on failure
function proc:exec(path, ...) end

---Runs a program with options as a child of this process, as vm:run does.
---@param opts umlbed.run_opts path, args, cwd, env, uid and timeout
---@return string|nil status "exit:N", "signal:N" or "timeout", with "+escaped" as for vm:exec
---@return string output the output, or "ENAME: message" on failure
---@return string|nil ename the errno name on failure
function proc:run(opts) end

---Reads bytes of a file with pread in this process.
---@param path umlbed.path the file object or guest path
---@param offset integer file offset
---@param length integer bytes
---@return string|nil data the bytes read
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function proc:pread(path, offset, length) end

---Writes bytes to a file with pwrite in this process.
---@param path umlbed.path the file object or guest path
---@param offset integer file offset
---@param data string the bytes
---@return integer|nil written bytes written
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function proc:pwrite(path, offset, data) end

---Unlinks a file in this process.
---@param path umlbed.path the file object or guest path
---@return true|nil ok true
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function proc:unlink(path) end

---Calls fsync on a file in this process.
---@param path umlbed.path the file object or guest path
---@return true|nil ok true
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function proc:fsync(path) end

---Punches a hole in a guest file (fallocate PUNCH_HOLE, KEEP_SIZE): on tmpfs its pages leave the page cache.
---@param path umlbed.path the file object or guest path
---@param offset integer the first byte
---@param length integer how many bytes
---@return true|nil ok true
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function proc:punch(path, offset, length) end

---Moves a range of this process's mappings to a free address (mremap); mapping objects keep theirs.
---@param addr integer the range's address
---@param length integer its length in bytes
---@param newaddr integer the free, page-aligned address to move it to
---@return integer|nil addr the new address
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function proc:mremap(addr, length, newaddr) end

---Writes the trigger from this process, so that several processes can invalidate at once.
---@param args umlbed.invalidate_args file, offset, length, impl and cache, as for vm:invalidate
---@return true|nil ok true once the write returned
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function proc:invalidate(args) end

---Writes data to a file in one write() with this process's n-th fault armed (fail-nth).
---@param n integer which allocation of the write fails (1 to 2^32-1)
---@param path umlbed.path the file object or guest path
---@param data string the bytes
---@return integer|nil written bytes written; nil if write() failed or the verb did
---@return boolean|string|nil injected true if the fault was injected; on failure "ENAME: message"
---@return string|nil ename the errno name on failure
---@return boolean|nil injected after a failed write: true if the fault was injected
function proc:failwrite(n, path, data) end

---An mmap in one guest process; page arguments are 0-based page indexes within it.
---@class umlbed.mapping
---@field addr integer start address in the guest process
---@field length integer length in bytes
---@field offset integer file offset of the first byte
---@field npages integer pages covered
---@field mode umlbed.mode "shared" or "private"
---@field prot umlbed.prot "r" or "rw"
---@field proc umlbed.proc the process whose address space this is
---@field file? umlbed.file the file object (nil if mapped by path)
local mapping = {}

---Accesses each page of the range once; "w" writes back the byte it read.
---@param access? umlbed.access "r" (default) or "w"
---@param first? integer first page (default 0)
---@param count? integer pages (default to the end of the mapping)
---@return true|nil ok true
---@return string|nil err "ENAME: message" on a guest error (EFAULT for a faulting access)
---@return string|nil ename the errno name
function mapping:touch(access, first, count) end

---Accesses each page like touch and returns the process's fault counter deltas and the access's time.
---@param access? umlbed.access "r" (default) or "w"
---@param first? integer first page (default 0)
---@param count? integer pages (default to the end of the mapping)
---@return integer|nil minor minor faults
---@return integer|string major major faults, or "ENAME: message" on a guest error
---@return integer|string total minor + major (the count scenarios check), or the errno name
---@return integer ns the access's own guest CLOCK_MONOTONIC time, for benchmarks only
function mapping:faults(access, first, count) end

---One page state per page from pagemap: - not present, F file-backed, A anonymous (COW copy), S swapped.
---@param first? integer first page (default 0)
---@param count? integer pages (default to the end of the mapping)
---@return string|nil states one character per page, page first first
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function mapping:pages(first, count) end

---Raw 64-bit pagemap entries in page order (at most 131072 pages per call).
---@param first? integer first page (default 0)
---@param count? integer pages (default to the end of the mapping)
---@return integer[]|nil entries entry k is page first + k - 1
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function mapping:pagemap(first, count) end

---Residency from mincore(): 1 or 0 per page.
---@param first? integer first page (default 0)
---@param count? integer pages (default to the end of the mapping)
---@return string|nil resident one character per page
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function mapping:mincore(first, count) end

---Reads user memory of the mapping.
---@param offset integer byte offset within the mapping
---@param length integer bytes
---@return string|nil data the bytes
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function mapping:peek(offset, length) end

---Writes user memory of the mapping; on a private page this makes the COW copy.
---@param offset integer byte offset within the mapping
---@param data string the bytes
---@return true|nil ok true
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function mapping:poke(offset, data) end

---Unmaps the whole range.
---@return true|nil ok true
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function mapping:munmap() end

---Calls msync(MS_SYNC) on the whole range.
---@return true|nil ok true
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function mapping:msync() end

---Touches the whole range count times, or until ctl:stop() when given a loop control.
---@param access umlbed.access "r" or "w"
---@param count_or_ctl integer|umlbed.loopctl a pass count, or a loop control on the mapping's vm
---@return integer|nil iterations passes made
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function mapping:loop(access, count_or_ctl) end

---The same range as seen by another process of the same vm (a forked sharer).
---@param other umlbed.proc the other process
---@return umlbed.mapping m the mapping in other
function mapping:on(other) end

---A file in the run's shared folder: /shared/NAME in every guest, a plain file on the host.
---@class umlbed.file
---@field name string the name in the shared folder
---@field path string the guest path, /shared/NAME
---@field hostpath string the host path
---@field length integer the size the runner knows (creation, f:write, f:size())
---@field vm umlbed.vm the vm that created or opened it
local file = {}

---Reads the file on the host (behind the guests' page caches).
---@param offset? integer file offset (default 0)
---@param length? integer bytes (default the rest of the known length)
---@return string|nil data the bytes
---@return string|nil err "ENAME: path" on failure
---@return string|nil ename the errno name
function file:read(offset, length) end

---Writes the file on the host, as another cluster node changing the disk.
---@param offset integer file offset
---@param data string the bytes
---@return integer|nil written bytes written
---@return string|nil err "ENAME: path" on failure
---@return string|nil ename the errno name
function file:write(offset, data) end

---Truncates the file on the host.
---@param size integer the new size
---@return true|nil ok true
---@return string|nil err "ENAME: path" on failure
---@return string|nil ename the errno name
function file:truncate(size) end

---The file's size on the host (stat), which also updates f.length.
---@return integer|nil size bytes
---@return string|nil err "ENAME: path" on failure
---@return string|nil ename the errno name
function file:size() end

---Page-cache residency of a range in the file's vm (the agent's fmincore): 1 or 0 per page.
---@param offset? integer file offset (default 0)
---@param length? integer bytes (default the rest of the known length)
---@return string|nil cached one character per page
---@return string|nil err "ENAME: message" on a guest error
---@return string|nil ename the errno name
function file:cached(offset, length) end

---A loop control (vm:loopctl): starts and stops m:loop passes on events, never on an iteration count.
---@class umlbed.loopctl
---@field path string the guest path of the control file
---@field vm umlbed.vm its vm
local loopctl = {}

---Yields until n loops on this control have made their first pass, or ended before one.
---@param n integer loops to wait for (1..65536)
---@return integer|nil started loops that made a first pass
---@return integer|string unstarted loops that ended before one, or "ENAME: message" on a guest error
function loopctl:wait(n) end

---Sets the stop word: every loop on this control returns after the pass it is in.
---@return integer|nil started loops that made a first pass
---@return integer|string unstarted loops that ended before one, or "ENAME: message" on a guest error
function loopctl:stop() end

return umlbed
