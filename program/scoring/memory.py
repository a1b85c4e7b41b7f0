"""How much memory this process may still take, and a guard for what would not fit.

Readers decide from headers and sizes, before decoding or decompressing, whether an
array fits: the machine's free memory (/proc/meminfo) is not enough inside a platform's
container, whose memory limit (cgroup v1 or v2) kills the process without a message when
crossed; an address-space limit (ulimit -v) makes allocations fail instead. The smallest
of the three is what is available.
"""

import contextlib
import mmap
import os
import sys

import numpy as np

try:
    import resource
except ImportError:  # not on Linux: no address-space limit to read
    resource = None

#: glibc's mallopt parameters, and the largest mmap threshold it accepts (64-bit).
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_MMAP_THRESHOLD_MAX = 32 << 20

#: A cgroup v1 limit at or above this means "no limit" (the kernel writes 2^63 rounded down to a page).
_UNLIMITED = 1 << 60


def _read_int(path):
    try:
        with open(path) as stream:
            text = stream.read().strip()
    except (OSError, IOError):
        return None
    if not text.isdigit():  # cgroup v2 writes 'max' for no limit
        return None
    return int(text)


def meminfo_available(path="/proc/meminfo"):
    """MemAvailable of the machine in bytes, or None."""
    try:
        with open(path) as stream:
            for line in stream:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, IOError, ValueError, IndexError):
        pass
    return None


def _cgroup_paths(proc_cgroup):
    """(v2 path, v1 memory path) of this process from /proc/self/cgroup, each or None."""
    v2 = v1 = None
    try:
        with open(proc_cgroup) as stream:
            for line in stream:
                parts = line.rstrip("\n").split(":", 2)
                if len(parts) != 3:
                    continue
                if parts[0] == "0" and parts[1] == "":
                    v2 = parts[2]
                elif "memory" in parts[1].split(","):
                    v1 = parts[2]
    except (OSError, IOError):
        pass
    return v2, v1


def _ancestors(root, path):
    """root/path, then each of its parents up to root itself (a limit may sit on any)."""
    parts = [p for p in (path or "").split("/") if p and p != ".."]
    out = []
    while True:
        out.append(os.path.join(root, *parts))
        if not parts:
            return out
        parts.pop()


def cgroup_available(proc_cgroup="/proc/self/cgroup", root="/sys/fs/cgroup"):
    """Bytes left under this process's cgroup memory limit (v2 or v1), or None if unlimited.

    Inside a container the cgroup named in /proc/self/cgroup may not exist under the
    mount (another namespace's path); the mount's own root is then the container's
    cgroup, so every ancestor down to the root is read and the tightest limit wins.
    """
    v2, v1 = _cgroup_paths(proc_cgroup)
    left = []
    if v2 is not None:
        for directory in _ancestors(root, v2):
            limit = _read_int(os.path.join(directory, "memory.max"))
            used = _read_int(os.path.join(directory, "memory.current"))
            if limit is not None:
                left.append(limit - (used or 0))
    if v1 is not None or os.path.isdir(os.path.join(root, "memory")):
        for directory in _ancestors(os.path.join(root, "memory"), v1):
            limit = _read_int(os.path.join(directory, "memory.limit_in_bytes"))
            used = _read_int(os.path.join(directory, "memory.usage_in_bytes"))
            if limit is not None and limit < _UNLIMITED:
                left.append(limit - (used or 0))
    return max(0, min(left)) if left else None


def address_space_available():
    """Bytes left under the address-space limit (ulimit -v), or None if unlimited."""
    if resource is None:
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        with open("/proc/self/statm") as stream:
            pages = int(stream.read().split()[0])
    except (OSError, IOError, ValueError, IndexError):
        return None
    return max(0, soft - pages * os.sysconf("SC_PAGE_SIZE"))


def available_memory():
    """Bytes this process can still allocate: the smallest of the machine's available
    memory, its cgroup's and its address-space limit's; None if none can be read."""
    known = [v for v in (meminfo_available(), cgroup_available(), address_space_available()) if v is not None]
    return min(known) if known else None


#: Needs below this many bytes are not checked against the machine (every worker has them
#: free): reading /proc, the cgroup and the limits for each of thousands of small subsets or
#: pages would cost more than scoring them.
ALWAYS_FITS = 64 << 20


def fits(needed, share=0.8):
    """Whether `needed` bytes fit in `share` of the available memory (True if unknown)."""
    if needed < ALWAYS_FITS:
        return True
    available = available_memory()
    return available is None or needed <= available * share


@contextlib.contextmanager
def memory_guard(sentence, error):
    """Turn a MemoryError in the block into `error(sentence)`: one line naming the file
    being decoded instead of a run that ends without saying what it was reading."""
    try:
        yield
    except MemoryError:
        raise error(sentence)


#: Arrays from this size on get a memory map of their own (see large_empty).
_MAPPED_FROM = 1 << 22

#: Linux's MAP_POPULATE: the kernel gives the map all its pages when it makes it. Python
#: names it from 3.10; before, its value where the platforms' workers run (x86-64 and
#: ARM64: 0x8000; other Linux machines, and other systems, go without).
_POPULATE = getattr(mmap, "MAP_POPULATE", 0x8000 if sys.platform.startswith("linux")
                    and os.uname().machine in ("x86_64", "aarch64") else 0)


def large_empty(shape, dtype):
    """numpy.empty(shape, dtype), but a large array gets a private anonymous memory map of
    its own, its pages all given at once (MAP_POPULATE, on Linux). numpy asks the kernel
    for huge pages on large arrays (madvise), and on a busy machine the kernel then
    compacts memory while the array is first written; a shared map (mmap's default) is
    backed by shmem; and a page given at its first write costs a fault of its own (the
    distances CSV's matrix is written several times faster this way: docs/speed-history.md).
    The caller writes every cell (the peak memory is the same). A map that cannot be made is a
    MemoryError, as numpy's would be."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if size < _MAPPED_FROM:
        return np.empty(shape, dtype=dtype)
    try:
        if hasattr(mmap, "MAP_PRIVATE"):
            buffer = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | _POPULATE)
        else:  # Windows: a map of the paging file
            buffer = mmap.mmap(-1, size)
    except (OSError, ValueError, OverflowError):
        raise MemoryError("cannot map %d bytes" % size)
    return np.frombuffer(buffer, dtype=dtype).reshape(shape)


def keep_freed_memory():
    """Where the C library is glibc, arrays up to 32 MB, once freed, are reused by the next
    ones instead of being unmapped and mapped again: glibc otherwise gives such blocks back
    to the system, and every page touched anew costs a page fault (most of a phase's
    faults otherwise). The heap is
    trimmed only when more than 128 MB of it is free. The peak memory is the same, since
    freed blocks are taken again before new ones. Forked page workers inherit the setting.
    Elsewhere, nothing."""
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
        if os.confstr("CS_GNU_LIBC_VERSION") and mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD_MAX):
            mallopt(_M_TRIM_THRESHOLD, 4 * _MMAP_THRESHOLD_MAX)
    except (ImportError, OSError, AttributeError, ValueError, TypeError):
        pass
