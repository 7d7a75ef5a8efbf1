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

From 6.12, kmem_cache_create() also takes (name, size, ARGS, flags), ARGS a
pointer to a struct kmem_cache_args (NULL, a local variable initialised in
the same file, or a compound literal); its designated fields give the
alignment (.align), the constructor (.ctor) and freeptr_offset
(.use_freeptr_offset = true: with SLAB_TYPESAFE_BY_RCU the free pointer stays
inside the object, calculate_sizes() of 6.12). The table's last field says
so. A variable assigned again between its initialiser and the call (e.g.
args.freeptr_offset = ...) is read from its initialiser only.

Regenerate (Debian's linux-source-6.1 / linux-source-6.12 unpacked at SRC):
    python3 scripts/cache-facts.py SRC 6.1 > policies/cache_facts_6_1.c
    python3 scripts/cache-facts.py SRC 6.12 > policies/cache_facts_6_12.c
    python3 scripts/cache-facts.py SRC 6.18 > policies/cache_facts_6_18.c
    clang-format -i policies/cache_facts_6_*.c
6.18 is the 6.12 tree with the creations that changed by 6.18 applied from
OVERRIDES_6_18 below, each read in torvalds/linux at the commit it names (no
6.18 source package was at hand); the generated file's header says so.
"""
import os
import re
import sys

CALLS = {
    "kmem_cache_create": ("name", "size", "align", "flags", "ctor"),
    # 6.12+: kmem_cache_create(name, size, args, flags) (a _Generic macro)
    "kmem_cache_create4": ("name", "size", "args", "flags"),
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
CALL_RE = re.compile(r"\b(" + "|".join(sorted((c for c in CALLS if c[-1] != "4"), key=len,
                                               reverse=True)) + r")\s*\(")


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


ARGS_FIELD_RE = re.compile(r"\.(\w+)\s*=\s*([^,]+?)\s*(?:,|$)")


def args_fields(text, expr, before):
    """The designated fields of the struct kmem_cache_args ARGS names: a
    compound literal, or &VAR with VAR initialised in text before offset
    before. None when they cannot be read."""
    expr = expr.strip()
    if expr in ("NULL", "0"):
        return {}
    m = re.fullmatch(r"&\s*\(\s*struct\s+kmem_cache_args\s*\)\s*\{(.*)\}", expr, re.S)
    if not m:
        v = re.fullmatch(r"&\s*(\w+)", expr)
        if not v:
            return None
        inits = list(re.finditer(r"struct\s+kmem_cache_args\s+" + v.group(1) +
                                 r"\s*=\s*\{(.*?)\}\s*;", text[:before], re.S))
        if not inits:
            return None
        body = inits[-1].group(1)
    else:
        body = m.group(1)
    return {k: " ".join(val.split()) for k, val in ARGS_FIELD_RE.findall(body)}


def facts_of(kind, args, where, text="", at=0):
    if kind == "kmem_cache_create" and len(args) == 4:
        kind = "kmem_cache_create4"
    spec = CALLS[kind]
    if len(args) != len(spec):
        return None
    a = dict(zip(spec, args))
    freeptr = False
    if kind == "kmem_cache_create4":
        f = args_fields(text, a["args"], at)
        if f is None:
            return None
        a["align"] = f.get("align", "0")
        a["ctor"] = f.get("ctor", "NULL")
        freeptr = f.get("use_freeptr_offset", "false") == "true"
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
        "freeptr": freeptr,
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
                fa = facts_of(m.group(1), args, "%s:%d" % (os.path.relpath(path, src), line),
                              text, m.start())
                if fa:
                    found.append(fa)
    return found


def key(fa):
    return (fa["bits"], fa["partial"], fa["ctor"], fa["align"], fa["freeptr"])


# Creations that changed between 6.12 and 6.18, read in torvalds/linux at
# commit a4a508df2aa3 (v6.18-era mm/vma_init.c, vma_state_init()):
# vm_area_struct moved from KMEM_CACHE(vm_area_struct, SLAB_HWCACHE_ALIGN |
# SLAB_NO_MERGE | SLAB_PANIC | SLAB_ACCOUNT) in kernel/fork.c to
# kmem_cache_create with args {.use_freeptr_offset = true, .freeptr_offset =
# offsetof(struct vm_area_struct, vm_freeptr), .sheaf_capacity = 32} and
# SLAB_HWCACHE_ALIGN | SLAB_PANIC | SLAB_TYPESAFE_BY_RCU | SLAB_ACCOUNT.
OVERRIDES_6_18 = {
    "vm_area_struct": {
        "name": "vm_area_struct",
        "bits": ("POLICY_F_ACCOUNT", "POLICY_F_HWCACHE_ALIGN", "POLICY_F_TYPESAFE_BY_RCU"),
        "partial": False, "ctor": False, "align": 0, "freeptr": True,
        "size": "sizeof(struct vm_area_struct)",
        "where": "mm/vma_init.c:21 (torvalds/linux a4a508df2aa3)",
    },
}
TABLE_HEADER = {
    "6.1": "the Linux 6.1\n * source (Debian linux-source-6.1, 6.1.192)",
    "6.12": "the Linux 6.12\n * source (Debian linux-source-6.12, 6.12.118)",
    "6.18": "the Linux 6.12\n * source (Debian linux-source-6.12, 6.12.118) with the creations that\n"
            " * changed by 6.18 (vm_area_struct) read in torvalds/linux at commit\n"
            " * a4a508df2aa34f8650afde54ea804321c618f45f (mm/vma_init.c)",
}


def main():
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] not in TABLE_HEADER):
        sys.exit("usage: cache-facts.py KERNEL-SOURCE-DIR [6.1|6.12|6.18] > "
                 "policies/cache_facts_VERSION.c")
    src = sys.argv[1]
    ver = sys.argv[2] if len(sys.argv) == 3 else "6.1"
    sym = "policy_cache_facts_" + ver.replace(".", "_")
    by_name = {}
    for fa in scan(src):
        by_name.setdefault(fa["name"], []).append(fa)
    if ver == "6.18":
        for name, fa in OVERRIDES_6_18.items():
            by_name[name] = [fa]
    rows, dropped = [], []
    for name in sorted(by_name, key=lambda s: s.encode()):
        l = by_name[name]
        if len({key(f) for f in l}) != 1:
            dropped.append((name, [f["where"] for f in l]))
            continue
        rows.append(l[0])
    out = sys.stdout
    out.write("/* cache_facts_%s.c - GENERATED by scripts/cache-facts.py from %s;\n"
              " * do not edit. Creation facts of\n"
              " * the named caches that do not depend on the configuration: see\n"
              " * cache_facts.h and the script's header for what each field means. */\n"
              % (ver.replace(".", "_"), TABLE_HEADER[ver]))
    out.write('#include "cache_facts.h"\n\n')
    for name, wheres in dropped:
        out.write("/* left out, created differently at %s: %s */\n" % (", ".join(wheres), name))
    out.write("\nconst struct policy_cache_facts %s[] = {\n" % sym)
    for r in rows:
        flags = " | ".join(r["bits"]) if r["bits"] else "0"
        out.write("\t/* %s, size %s */\n" % (r["where"], r["size"].replace("*/", "* /")))
        out.write('\t{"%s", %s, %d, %s, %s, %s},\n' % (
            r["name"], flags, r["align"], "true" if r["ctor"] else "false",
            "true" if r["partial"] else "false", "true" if r["freeptr"] else "false"))
    out.write("};\n\nconst unsigned %s_n =\n\tsizeof(%s) / sizeof(%s[0]);\n" % (sym, sym, sym))


if __name__ == "__main__":
    main()
