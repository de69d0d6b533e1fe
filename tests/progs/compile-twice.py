# The same varied work twice with N small allocations between: compiling
# the first F modules of the standard library, whose parser and compiler
# take thousands of distinct stacks.  A circular trace that keeps only the
# second round has those stacks from frames it dropped.
#   python3 compile-twice.py F N
import json
import os
import sys

lib = os.path.dirname(os.path.dirname(json.__file__))
names = sorted(f for f in os.listdir(lib) if f.endswith(".py"))[:int(sys.argv[1])]
srcs = [open(os.path.join(lib, f)).read() for f in names]


def work():
    for s in srcs:
        compile(s, "x", "exec")


work()
x = [str(i) * 3 for i in range(int(sys.argv[2]))]
del x
work()
