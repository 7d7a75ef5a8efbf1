#!/usr/bin/env python3
"""cache-facts.py - creation facts of named slab caches, read from a kernel
source tree, as the C table policies/cache_facts_6_1.c.

A SLAB capture has no /sys/kernel/slab: its /proc/slabinfo shows each
cache's stride and slab geometry, not the flags, constructor or alignment
kmem_cache_create() was given. Those facts are in the source, and most do not
depend on the configuration. This script finds every call of
kmem_cache_create(), kmem_cache_create_usercopy(), KMEM_CACHE() and
KMEM_CACHE_USERCOPY() whose cache name is a string literal (for the macros:
the struct's name, as the macro's #__struct gives it) and records:

  - the flags SLAB_HWCACHE_ALIGN, SLAB_RECLAIM_ACCOUNT, SLAB_TYPESAFE_BY_RCU,
    SLAB_ACCOUNT and SLAB_CACHE_DMA named outright in the flags argument;
    "partial" when the argument also holds something else (a variable, a
    conditional), whose bits the script cannot know;
  - whether a constructor is passed (anything but NULL/0);
  - the alignment argument when it is an integer literal (0 = none); any
    other expression (__alignof__, cache_line_size(), a macro) is left
    unknown (-1), since its value depends on the build;
  - the size expression and where the call is, as comments.

Sizes are not facts: sizeof(struct ...) depends on the configuration.
A name created at several places with different facts is left out (listed
in a comment), as is a call whose name is not a literal.

Regenerate (Debian's linux-source-6.1 unpacked at SRC):
    python3 scripts/cache-facts.py SRC > policies/cache_facts_6_1.c
    clang-format -i policies/cache_facts_6_1.c
"""
import os
import re
import sys

CALLS = {
    "kmem_cache_create": ("name", "size", "align", "flags", "ctor"),
    "kmem_cache_create_usercopy": ("name", "size", "align", "flags", "useroffset",
                                   "usersize", "ctor"),
    "KMEM_CACHE": ("struct", "flags"),
    "KMEM_CACHE_USERCOPY": ("struct", "flags", "field"),
}
FLAGS = {
    "SLAB_HWCACHE_ALIGN": "POLICY_F_HWCACHE_ALIGN",
    "SLAB_RECLAIM_ACCOUNT": "POLICY_F_RECLAIM_ACCOUNT",
    "SLAB_TYPESAFE_BY_RCU": "POLICY_F_TYPESAFE_BY_RCU",
    "SLAB_ACCOUNT": "POLICY_F_ACCOUNT",
    "SLAB_CACHE_DMA": "POLICY_F_CACHE_DMA",
}
CALL_RE = re.compile(r"\b(" + "|".join(sorted(CALLS, key=len, reverse=True)) + r")\s*\(")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: " " * len(m.group(0)) if "\n" not in m.group(0)
                  else "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def split_args(text, start):
    """Arguments of the call whose '(' is at start; None if unbalanced."""
    depth, args, cur, i, n = 0, [], [], start, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            cur.append(text[i:j + 1])
            i = j + 1
            continue
        if ch in "([{":
            depth += 1
            if depth > 1:
                cur.append(ch)
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                args.append("".join(cur).strip())
                return args
            cur.append(ch)
        elif ch == "," and depth == 1:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
        i += 1
    return None


def parse_flags(expr):
    """(set of POLICY_F_ names, partial)"""
    toks = [t.strip() for t in expr.strip("() \t\n").split("|")]
    bits, partial = set(), False
    for t in toks:
        t = t.strip("() \t\n")
        if t in FLAGS:
            bits.add(FLAGS[t])
        elif not re.fullmatch(r"SLAB_[A-Z0-9_]+|0", t):
            partial = True
    return bits, partial


def facts_of(kind, args, where):
    spec = CALLS[kind]
    if len(args) != len(spec):
        return None
    a = dict(zip(spec, args))
    if kind.startswith("KMEM_CACHE"):
        if not re.fullmatch(r"\w+", a["struct"]):
            return None
        name, size = a["struct"], "sizeof(struct %s)" % a["struct"]
        align, ctor = "__alignof__(struct %s)" % a["struct"], "NULL"
    else:
        m = re.fullmatch(r'"([^"\\]*)"', a["name"])
        if not m:
            return None
        name, size, align, ctor = m.group(1), a["size"], a["align"], a["ctor"]
    bits, partial = parse_flags(a["flags"])
    align_v = int(align, 0) if re.fullmatch(r"0|[1-9][0-9]*|0x[0-9a-fA-F]+", align) else -1
    return {
        "name": name,
        "bits": tuple(sorted(bits)),
        "partial": partial,
        "ctor": ctor not in ("NULL", "0"),
        "align": align_v,
        "size": " ".join(size.split()),
        "where": where,
    }


def scan(src):
    found = []
    for root, dirs, files in os.walk(src):
        skip = {".git", "tools", "Documentation", "samples", "scripts"}
        if os.path.relpath(root, src) == "arch":
            skip |= {d for d in dirs if d != "x86"}  # the models are x86_64's
        dirs[:] = sorted(d for d in dirs if d not in skip)
        for f in sorted(files):
            if not f.endswith(".c"):
                continue
            path = os.path.join(root, f)
            with open(path, errors="replace") as fh:
                text = strip_comments(fh.read())
            for m in CALL_RE.finditer(text):
                args = split_args(text, m.end() - 1)
                if args is None:
                    continue
                line = text.count("\n", 0, m.start()) + 1
                fa = facts_of(m.group(1), args, "%s:%d" % (os.path.relpath(path, src), line))
                if fa:
                    found.append(fa)
    return found


def key(fa):
    return (fa["bits"], fa["partial"], fa["ctor"], fa["align"])


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: cache-facts.py KERNEL-SOURCE-DIR > policies/cache_facts_6_1.c")
    src = sys.argv[1]
    by_name = {}
    for fa in scan(src):
        by_name.setdefault(fa["name"], []).append(fa)
    rows, dropped = [], []
    for name in sorted(by_name, key=lambda s: s.encode()):
        l = by_name[name]
        if len({key(f) for f in l}) != 1:
            dropped.append((name, [f["where"] for f in l]))
            continue
        rows.append(l[0])
    out = sys.stdout
    out.write("/* cache_facts_6_1.c - GENERATED by scripts/cache-facts.py from the Linux 6.1\n"
              " * source (Debian linux-source-6.1, 6.1.192); do not edit. Creation facts of\n"
              " * the named caches that do not depend on the configuration: see\n"
              " * cache_facts.h and the script's header for what each field means. */\n")
    out.write('#include "cache_facts.h"\n\n')
    for name, wheres in dropped:
        out.write("/* left out, created differently at %s: %s */\n" % (", ".join(wheres), name))
    out.write("\nconst struct policy_cache_facts policy_cache_facts_6_1[] = {\n")
    for r in rows:
        flags = " | ".join(r["bits"]) if r["bits"] else "0"
        out.write("\t/* %s, size %s */\n" % (r["where"], r["size"].replace("*/", "* /")))
        out.write('\t{"%s", %s, %d, %s, %s},\n' % (
            r["name"], flags, r["align"], "true" if r["ctor"] else "false",
            "true" if r["partial"] else "false"))
    out.write("};\n\nconst unsigned policy_cache_facts_6_1_n =\n"
              "\tsizeof(policy_cache_facts_6_1) / sizeof(policy_cache_facts_6_1[0]);\n")


if __name__ == "__main__":
    main()
