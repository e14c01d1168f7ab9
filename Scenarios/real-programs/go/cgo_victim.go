// A Go program with cgo for the real-programs.go-cgo-* scenarios: Go's runtime
// installs its own handler on every real-time signal, the agent's sample
// signal (SIGRTMIN+8) included.
package main

/*
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

static atomic_int held;

// Names the calling thread cgo-held-N and keeps it in C for good.
static void cgo_held_in_c(int n) {
    char name[16];
    snprintf(name, sizeof name, "cgo-held-%d", n);
    pthread_setname_np(pthread_self(), name);
    atomic_fetch_add(&held, 1);
    for (;;) pause();
}

static int cgo_held_count(void) { return atomic_load(&held); }

static void cgo_store_through_null(void) {
    fprintf(stderr, "victim: storing through NULL in C\n");
    *(volatile int *)0 = 1;
}
*/
import "C"

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// sigrtmin8 is glibc's SIGRTMIN+8, the agent's default sample signal.
const sigrtmin8 = syscall.Signal(42)

// notifyReachesGo checks that a SIGRTMIN+8 sent to the process still reaches
// the program's own handler (os/signal) with Faultline's handler kept there.
func notifyReachesGo() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigrtmin8)
	syscall.Kill(os.Getpid(), sigrtmin8)
	select {
	case s := <-ch:
		fmt.Printf("os/signal got %d\n", s.(syscall.Signal))
	case <-time.After(5 * time.Second):
		fmt.Println("os/signal got nothing")
	}
}

// crashBesideHeldThreads holds three threads in C, then stores through
// NULL in C code called from Go: a real crash, which the Go runtime passes
// to the handler installed before it (the agent's).
func crashBesideHeldThreads() {
	notifyReachesGo()
	for i := 0; i < 3; i++ {
		go C.cgo_held_in_c(C.int(i))
	}
	for C.cgo_held_count() < 3 {
		time.Sleep(10 * time.Millisecond)
	}
	C.cgo_store_through_null()
}

// setuidNobody drops to uid 65534 with syscall.Setuid (glibc's setuid
// through cgo, applied to every thread) and prints how many threads still
// hold an effective capability.
func setuidNobody() {
	notifyReachesGo()
	if err := syscall.Setuid(65534); err != nil {
		fmt.Println("Setuid:", err)
		return
	}
	paths, _ := filepath.Glob("/proc/self/task/*/status")
	withCaps := 0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "CapEff:") && strings.TrimSpace(line[7:]) != "0000000000000000" {
				withCaps++
			}
		}
	}
	fmt.Printf("uid %d euid %d; threads with capabilities: %d of %d\n", syscall.Getuid(), syscall.Geteuid(), withCaps, len(paths))
}

type node struct{ next *node }

// nilDerefsThenPanic recovers a nil-pointer dereference in each of 50
// goroutines (Go turns the SIGSEGV into a panic), then lets one in main
// end the program as Go does: "panic: runtime error", exit status 2.
func nilDerefsThenPanic() {
	var wg sync.WaitGroup
	var recovered atomic.Int32
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if recover() != nil {
					recovered.Add(1)
				}
			}()
			var n *node
			_ = n.next
		}()
	}
	wg.Wait()
	fmt.Printf("%d nil dereferences recovered\n", recovered.Load())
	var n *node
	fmt.Println(n.next)
}

func main() {
	switch os.Args[1] {
	case "nil-derefs-then-panic":
		nilDerefsThenPanic()
	case "crash-beside-held-threads":
		crashBesideHeldThreads()
	case "setuid-nobody":
		setuidNobody()
	}
}
