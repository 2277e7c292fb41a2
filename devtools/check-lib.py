#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
"""Check the library's structure: the rules of the programmer's guide,
"Internals", that a compiler alone does not enforce.

    devtools/check-lib.py [--cc CC] [--cxx CXX] [SRCDIR]

1. No file of lib/pcpu_mempool includes a .c file.
2. Every library source compiles alone (-fsyntax-only, warnings as errors).
3. Every installed header compiles alone as C11 and as C++11 with
   -Wall -Wextra -Wpedantic, warnings as errors (DPDK's own headers are
   included as system headers: their warnings are DPDK's business; the C11
   unit defines _POSIX_C_SOURCE, which DPDK's headers need).
4. Every function an internal header declares is defined in a source file
   of the module the header names (pcpu_alloc.h, pcpu_alloc_private.h:
   pcpu_alloc*.c).
5. Layers call one way: a source file includes only the internal headers
   of its own module and of the modules below it (LAYERS, top first).

Exit 0 when everything holds, 1 with one line per violation otherwise.
"""

import argparse
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

# Modules from the top of the library to the bottom. A module may include
# the headers of the modules after it, never of those before it.
LAYERS = [
    "pcpu_telemetry",   # telemetry commands
    "pcpu_stats",       # rte_pcpu_stats_get(), dump, audit
    "pcpu_mempool",     # pools
    "pcpu_front",       # rte_pcpu_alloc(), rte_pcpu_free(), ...
    "pcpu_init",        # rte_pcpu_init(), rte_pcpu_cleanup()
    "pcpu_proc",        # secondary processes: attach, remote reads
    "pcpu_cache",       # size-class caches
    "pcpu_objcache",    # the cache engine
    "pcpu_alloc",       # the allocator
    "pcpu_owner",       # owners and their charges
    "pcpu_fence",       # asymmetric fences (membarrier)
    "pcpu_chunk",       # the chunk bitmap (no EAL)
    "pcpu_arena",       # the reserved area
]
# Helpers any module may include (pcpu_fault.h: the failure points, whose
# fault-injection half is pcpu_fault.c; pcpu_compat.h: the DPDK releases'
# differences).
HELPERS = {"pcpu_log.h", "pcpu_util.h", "pcpu_asan.h", "pcpu_fault.h",
           "pcpu_compat.h"}


def module_of(name):
    """The longest module name that prefixes a file name."""
    base = os.path.basename(name)
    best = None
    for m in LAYERS:
        if base.startswith(m) and (best is None or len(m) > len(best)):
            best = m
    return best


def dpdk_cflags(system):
    out = subprocess.run(["pkg-config", "--cflags", "libdpdk"],
                         capture_output=True, text=True, check=True)
    flags = shlex.split(out.stdout)
    if system:
        flags = [("-isystem" + f[2:]) if f.startswith("-I") else f
                 for f in flags]
    return flags


def check_no_c_includes(lib, errors):
    for f in sorted(glob.glob(os.path.join(lib, "*.[ch]"))):
        for i, line in enumerate(open(f), 1):
            if re.match(r'\s*#\s*include\s*[<"][^>"]*\.c[>"]', line):
                errors.append("%s:%d: includes a .c file" % (f, i))


def check_sources_alone(lib, cc, errors):
    flags = dpdk_cflags(False) + [
        "-std=gnu11", "-Wall", "-Wextra", "-Werror",
        "-Wno-unused-parameter", "-Wno-missing-field-initializers",
        "-DALLOW_EXPERIMENTAL_API",
        "-DRTE_LOG_DEFAULT_LOGTYPE=lib.pcpu_mempool", "-I" + lib]
    for f in sorted(glob.glob(os.path.join(lib, "*.c"))):
        r = subprocess.run(cc + ["-fsyntax-only"] + flags + [f],
                           capture_output=True, text=True)
        if r.returncode != 0:
            errors.append("%s: does not compile alone:\n%s" %
                          (f, r.stderr.strip()))


def check_headers_alone(lib, cc, cxx, errors):
    flags = dpdk_cflags(True) + [
        "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-I" + lib]
    exp = ["-DALLOW_EXPERIMENTAL_API"]
    # Strict C11 declares no POSIX function, and DPDK's headers call some
    # (rte_string_fns.h: strnlen() in 24.11 and later): a consumer that
    # compiles as C11 defines _POSIX_C_SOURCE, as DPDK builds with
    # _GNU_SOURCE. The headers must not define it for their user.
    posix = ["-D_POSIX_C_SOURCE=200809L"]
    with tempfile.TemporaryDirectory() as tmp:
        for h in sorted(glob.glob(os.path.join(lib, "rte_*.h"))):
            src = os.path.join(tmp, "h.c")
            with open(src, "w") as f:
                f.write("#include <%s>\n" % os.path.basename(h))
            # without ALLOW_EXPERIMENTAL_API only calls may warn, not
            # the inline functions a header defines
            for comp, lang in ((cc + ["-std=c11"] + posix + exp, "C11"),
                               (cxx + ["-x", "c++", "-std=c++11"] + exp,
                                "C++11"),
                               (cc + ["-std=c11"] + posix,
                                "C11 without ALLOW_EXPERIMENTAL_API")):
                r = subprocess.run(comp + ["-c", "-o", os.devnull] +
                                   flags + [src], capture_output=True,
                                   text=True)
                if r.returncode != 0:
                    errors.append("%s: not clean alone as %s:\n%s" %
                                  (h, lang, r.stderr.strip()))


DECL = re.compile(r"^(?!static\b)[A-Za-z_][\w \*]*?\b(pcpu_\w+)\(", re.M)
DEF = re.compile(r"^(pcpu_\w+)\(", re.M)


def check_definitions(lib, errors):
    defined = {}
    for f in glob.glob(os.path.join(lib, "*.c")):
        for m in DEF.finditer(open(f).read()):
            defined[m.group(1)] = os.path.basename(f)
    for h in sorted(glob.glob(os.path.join(lib, "pcpu_*.h"))):
        mod = module_of(h)
        if mod is None:
            continue
        text = re.sub(r"/\*.*?\*/", "", open(h).read(), flags=re.S)
        for m in DECL.finditer(text):
            name = m.group(1)
            where = defined.get(name)
            if where is None:
                errors.append("%s: %s is declared but defined nowhere" %
                              (h, name))
            elif module_of(where) != mod:
                errors.append("%s: %s is defined in %s, outside module %s"
                              % (h, name, where, mod))


def check_layers(lib, errors):
    rank = {m: i for i, m in enumerate(LAYERS)}
    for f in sorted(glob.glob(os.path.join(lib, "pcpu_*.[ch]"))):
        mod = module_of(f)
        if mod is None:
            continue
        for i, line in enumerate(open(f), 1):
            m = re.match(r'\s*#\s*include\s*"(pcpu_\w+\.h)"', line)
            if not m or m.group(1) in HELPERS:
                continue
            dep = module_of(m.group(1))
            if dep is None:
                errors.append("%s:%d: %s belongs to no module" %
                              (f, i, m.group(1)))
            elif rank[dep] < rank[mod]:
                errors.append("%s:%d: %s (module %s) includes %s, a "
                              "layer above it" % (f, i, mod, mod,
                                                  m.group(1)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--cxx", default="c++")
    ap.add_argument("srcdir", nargs="?", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), ".."))
    a = ap.parse_args()
    lib = os.path.join(os.path.abspath(a.srcdir), "lib", "pcpu_mempool")
    cc, cxx = shlex.split(a.cc), shlex.split(a.cxx)
    errors = []
    check_no_c_includes(lib, errors)
    check_sources_alone(lib, cc, errors)
    check_headers_alone(lib, cc, cxx, errors)
    check_definitions(lib, errors)
    check_layers(lib, errors)
    for e in errors:
        print("check-lib: " + e)
    nsrc = len(glob.glob(os.path.join(lib, "*.c")))
    nhdr = len(glob.glob(os.path.join(lib, "rte_*.h")))
    print("check-lib: %d sources, %d installed headers, %d layers: %s" %
          (nsrc, nhdr, len(LAYERS),
           "%d problems" % len(errors) if errors else "all rules hold"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
