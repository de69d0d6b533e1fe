#!/usr/bin/env bats
# Real programs under mt-record: the same output and exit status as
# without it, no event lost, and a trace mt-lifetime reads without a
# warning (a free before its allocation, a block allocated twice).  A
# program that is not installed is skipped, and says so.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# alike CMD...: runs CMD plainly and under mt-record and compares.
alike() {
	local st0=0 st1=0
	"$@" >plain.out 2>plain.err </dev/null || st0=$?
	mt-record -o rw.mtr -- "$@" >traced.out 2>traced.err </dev/null || st1=$?
	echo "status $st0 plain, $st1 traced"
	[ "$st0" = "$st1" ]
	diff plain.out traced.out
	# What the program itself said on stderr (mt-record's own lines apart).
	diff plain.err <(grep -v '^mt-record: ' traced.err)
	mt-decode rw.mtr >rw.txt
	run -1 grep -m 3 $'^lost\t' rw.txt
	# Every process's end seen, with its status.
	run -1 grep -m 3 $'^exit\t.*\t-$' rw.txt
	run -0 --separate-stderr mt-lifetime rw.mtr
	echo "$stderr"
	[ "$(wc -l <<<"$stderr")" = 1 ]
	[[ "$stderr" == "mt-lifetime: "*" lifetimes; "* ]]
}

need() {
	command -v "$1" >/dev/null || skip "$1 is not installed"
}

multiprocessing() {
	need python3
	cat >mp.py <<'PY'
import multiprocessing as mp
import sys

def work(n):
    return sum(i * i for i in range(n))

if __name__ == "__main__":
    mp.set_start_method(sys.argv[1])
    with mp.Pool(2) as pool:
        print(sum(pool.map(work, range(300))))
    p = mp.Process(target=work, args=(1000,))
    p.start()
    p.join()
    print(p.exitcode)
PY
	alike python3 mp.py "$1"
	[ "$(cat traced.out)" = $'666037450\n0' ]
	# The pool's workers are there, each with its own exit.
	[ "$(grep -c $'^exit\t' rw.txt)" -ge 4 ]
}

@test "python3 multiprocessing, fork" {
	multiprocessing fork
}

@test "python3 multiprocessing, spawn" {
	multiprocessing spawn
}

@test "python3 multiprocessing, forkserver" {
	multiprocessing forkserver
}

@test "node worker_threads" {
	need node
	cat >w.js <<'JS'
const { Worker, isMainThread, parentPort, workerData } = require('worker_threads');
if (isMainThread) {
  let done = 0, total = 0;
  for (let i = 0; i < 4; i++) {
    const w = new Worker(__filename, { workerData: i });
    w.on('message', (v) => { total += v; if (++done === 4) console.log(total); });
  }
} else {
  let a = [];
  for (let i = 0; i < 100000; i++) a.push({ i, s: 'x' + i });
  parentPort.postMessage(a.length + workerData);
}
JS
	alike node w.js
	[ "$(cat traced.out)" = 400006 ]
}

@test "java with 128 threads" {
	need javac
	need java
	cat >T.java <<'JAVA'
public class T {
    public static void main(String[] a) throws Exception {
        Thread[] t = new Thread[128];
        long[] sums = new long[128];
        for (int i = 0; i < 128; i++) {
            final int k = i;
            t[i] = new Thread(() -> {
                StringBuilder b = new StringBuilder();
                for (int j = 0; j < 2000; j++) b.append(j % 10);
                sums[k] = b.length();
            });
            t[i].start();
        }
        long s = 0;
        for (int i = 0; i < 128; i++) { t[i].join(); s += sums[i]; }
        System.out.println(s);
    }
}
JAVA
	javac T.java
	alike java -Xss512k -cp . T
	[ "$(cat traced.out)" = 256000 ]
}

@test "git clone of a local repository, and git gc" {
	need git
	git init -q src
	for i in $(seq 20); do
		echo "$i" >"src/f$i"
		git -C src add "f$i"
		git -C src -c user.name=t -c user.email=t@t commit -q -m "c$i"
	done
	alike sh -c 'rm -rf dst; git clone -q src dst && git -C dst log --format=%s | wc -l'
	[ "$(cat traced.out)" = 20 ]
	alike sh -c 'rm -rf dst; git clone -q src dst && git -C dst gc -q && git -C dst rev-list --count HEAD'
	[ "$(cat traced.out)" = 20 ]
}

@test "make -j2 building a few C files" {
	need make
	need cc
	for i in 1 2 3 4; do echo "int f$i(void) { return $i; }" >"f$i.c"; done
	echo 'int f1(void), f2(void), f3(void), f4(void); int main(void) { return f1() + f2() + f3() + f4() - 10; }' >main.c
	printf 'p: main.o f1.o f2.o f3.o f4.o\n\t$(CC) -o $@ $^\n%%.o: %%.c\n\t$(CC) -c -o $@ $<\nclean:\n\trm -f *.o p\n' >Makefile
	alike sh -c 'make -s clean && make -s -j2 p && ./p && echo built'
	[ "$(cat traced.out)" = built ]
	# At the last sample of the series no process that has exited holds
	# memory (30 exited processes once held 46 MiB at the end of a build).
	mt-lifetime -q rw.mtr | mt-window --series 10ms >s.txt
	last=$(awk -F'\t' '{ if ($2 + 0 > m) m = $2 + 0 } END { print m }' s.txt)
	awk -F'\t' -v last="$last" '$1 == "exit" && $2 + 0 <= last { print $3 }' rw.txt | sort -u >exited
	[ "$(wc -l <exited)" -ge 15 ]
	awk -F'\t' -v last="$last" 'NR == FNR { gone[$1] = 1; next }
		$2 == last && ($3 in gone) && $5 != 0 { print "held at the end:", $0; bad++ }
		END { exit bad > 0 }' exited s.txt
}

@test "sqlite3 making and querying a table" {
	need sqlite3
	cat >q.sql <<'SQL'
CREATE TABLE t(a INTEGER, b TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000)
INSERT INTO t SELECT x, printf('row %d', x) FROM c;
CREATE INDEX tb ON t(b);
SELECT count(*), sum(a), max(b) FROM t WHERE b LIKE 'row 1%';
SQL
	alike sh -c 'rm -f d.db; sqlite3 d.db <q.sql'
	[ "$(cat traced.out)" = "11111|151509596|row 19999" ]
}
