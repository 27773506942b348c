package conversation

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The helper process: when RECITE_CONV_HELPER is set, the test binary runs
// TestHelperProcess as an appender instead of the tests (the os/exec
// pattern). It appends to RECITE_CONV_DIR/RECITE_CONV_ID:
//
//	append: RECITE_CONV_N records, content "WORKER-i", then exits;
//	loop:   records of varied size forever, printing each id after Append
//	        (hence after fsync) returned.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv("RECITE_CONV_HELPER")
	if mode == "" {
		t.Skip("helper process only")
	}
	s, err := Open(os.Getenv("RECITE_CONV_DIR"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	s.NoSync = os.Getenv("RECITE_CONV_NOSYNC") == "1"
	id := os.Getenv("RECITE_CONV_ID")
	worker := os.Getenv("RECITE_CONV_WORKER")
	ctx := context.Background()
	switch mode {
	case "append":
		n, _ := strconv.Atoi(os.Getenv("RECITE_CONV_N"))
		for i := range n {
			if err := s.Append(ctx, id, Record{Role: RoleUser, Content: worker + "-" + strconv.Itoa(i)}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(4)
			}
		}
	case "loop":
		out := bufio.NewWriter(os.Stdout)
		for i := 0; ; i++ {
			size := []int{10, 1000, 70 << 10, 300 << 10}[i%4]
			r := Record{Role: RoleAssistant, Content: worker + "-" + strconv.Itoa(i) + " " + strings.Repeat("x", size)}
			if err := s.stamp(id, &r); err != nil {
				os.Exit(5)
			}
			if err := s.Append(ctx, id, r); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(4)
			}
			fmt.Fprintln(out, r.ID)
			_ = out.Flush()
		}
	}
	os.Exit(0)
}

func helper(t *testing.T, mode, dir, id, worker string, extra ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(),
		"RECITE_CONV_HELPER="+mode, "RECITE_CONV_DIR="+dir, "RECITE_CONV_ID="+id, "RECITE_CONV_WORKER="+worker)
	cmd.Env = append(cmd.Env, extra...)
	return cmd
}

// TestConcurrentProcesses: 8 processes × 500 appends at once give exactly 4000
// records, all parseable, none interleaved
// (docs/architecture.md#concurrent-appends-and-merges). fsync is skipped in
// the writers to keep the test fast; it does not take part in the lock or the
// O_APPEND write.
func TestConcurrentProcesses(t *testing.T) {
	const procs, per = 8, 500
	s := newStore(t)
	ctx := context.Background()
	if err := s.Create(ctx, "shared", Meta{}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, procs)
	outs := make([][]byte, procs)
	for w := range procs {
		cmd := helper(t, "append", s.Dir, "shared", "w"+strconv.Itoa(w), "RECITE_CONV_N="+strconv.Itoa(per), "RECITE_CONV_NOSYNC=1")
		wg.Go(func() { outs[w], errs[w] = cmd.CombinedOutput() })
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Fatalf("worker %d: %v\n%s", w, err, outs[w])
		}
	}
	data, err := os.ReadFile(filepath.Join(s.Dir, "shared.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	recs, diags := ParseLog("shared.jsonl", data)
	if len(diags) != 0 {
		t.Fatalf("%d bad lines, first %v", len(diags), diags[0])
	}
	if got := strings.Count(string(data), "\n"); got != procs*per+1 {
		t.Errorf("%d lines, want %d", got, procs*per+1)
	}
	next := map[string]int{} // per worker, records appear in the order written
	ids := map[string]bool{}
	for _, r := range recs[1:] {
		w, i, _ := strings.Cut(r.Content, "-")
		n, _ := strconv.Atoi(i)
		if next[w] != n {
			t.Fatalf("worker %s: record %d where %d was due", w, n, next[w])
		}
		next[w]++
		if ids[r.ID] {
			t.Fatalf("duplicate id %s", r.ID)
		}
		ids[r.ID] = true
	}
	c, _, err := s.Read("shared")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Messages) != procs*per || len(ids) != procs*per {
		t.Errorf("%d messages, %d ids, want %d", len(c.Messages), len(ids), procs*per)
	}
}

// TestKilledWriter kills an appending process with SIGKILL 50 times at
// random moments: no acknowledged record is lost, each kill leaves at most
// one torn line, each is reported, and later appends read back.
func TestKilledWriter(t *testing.T) {
	const kills = 50
	s := newStore(t)
	s.Now = time.Now // the helpers stamp with the real clock too
	ctx := context.Background()
	if err := s.Create(ctx, "k", Meta{}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	acked := map[string]bool{}
	for round := range kills {
		cmd := helper(t, "loop", s.Dir, "k", "r"+strconv.Itoa(round))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// Wait for the first acknowledgement, so the writer is in its loop,
		// then kill it after a random 0–15 ms.
		first, ok := <-lines
		if !ok {
			_ = cmd.Wait()
			t.Fatalf("round %d: helper printed nothing", round)
		}
		acked[first] = true
		timer := time.After(time.Duration(rng.IntN(15000)) * time.Microsecond)
	wait:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break wait
				}
				acked[l] = true
			case <-timer:
				_ = cmd.Process.Signal(syscall.SIGKILL)
				timer = nil
			}
		}
		_ = cmd.Wait()
	}
	c, diags, err := s.Read("k")
	if err != nil {
		t.Fatal(err)
	}
	if len(diags) > kills {
		t.Errorf("%d torn lines after %d kills", len(diags), kills)
	}
	have := map[string]bool{}
	for _, m := range c.Messages {
		have[m.ID] = true
	}
	lost := 0
	for id := range acked {
		if !have[id] {
			lost++
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d acknowledged records lost", lost, len(acked))
	}
	if err := s.Append(ctx, "k", msg(RoleUser, "after")); err != nil {
		t.Fatal(err)
	}
	c2, diags2, err := s.Read("k")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c2.Messages); n != len(c.Messages)+1 || c2.Messages[n-1].Content != "after" || len(diags2) != len(diags) {
		t.Errorf("after the kills: %d messages (had %d), %d diagnostics (had %d)", n, len(c.Messages), len(diags2), len(diags))
	}
	t.Logf("%d kills: %d acknowledged, %d records read, %d torn lines reported", kills, len(acked), len(c.Messages), len(diags))
}
