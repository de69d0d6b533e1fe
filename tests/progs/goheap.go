// goheap: a Go program (built static, CGO_ENABLED=0) that grows its heap
// to 64 MiB kept, then prints its anonymous mappings as /proc has them
// ("LO-HI PERMS"), what mt-record --uprobes's trace of its runtime's
// mmap calls is checked against.
package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
)

var keep [][]byte

//go:noinline
func grow(n int) {
	for i := 0; i < n; i++ {
		keep = append(keep, make([]byte, 1<<20))
	}
}

func main() {
	grow(64)
	runtime.GC()
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		os.Exit(1)
	}
	s := bufio.NewScanner(f)
	for s.Scan() {
		// "lo-hi perms offset dev inode [path]": no path, anonymous.
		if fields := strings.Fields(s.Text()); len(fields) == 5 {
			fmt.Println(fields[0], fields[1])
		}
	}
	fmt.Println("kept", len(keep))
}
