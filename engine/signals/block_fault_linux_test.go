package signals

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestAppendBlockWriteFailsHalfway makes the block's one write fail after
// part of it reached the file: a child process (this test binary) lowers
// its file-size limit (RLIMIT_FSIZE) to a few bytes past the file's end, so
// the kernel takes the first bytes of the block and then refuses the rest
// with EFBIG, as a full disk or a quota would. AppendBlock must fail and
// leave the file as it was: no part of a block stays, and the previous
// block is still the latest.
func TestAppendBlockWriteFailsHalfway(t *testing.T) {
	if path := os.Getenv("RECITE_TEST_FSIZE_PATH"); path != "" {
		appendUnderLimit(path)
		return
	}
	path := filepath.Join(t.TempDir(), "context-preserved.md")
	first := sampleBlock()
	if err := AppendBlock(context.Background(), path, first); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAppendBlockWriteFailsHalfway$", "-test.count=1")
	cmd.Env = append(os.Environ(), "RECITE_TEST_FSIZE_PATH="+path, "RECITE_TEST_FSIZE_LIMIT="+strconv.Itoa(len(before)+64))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "append failed:") || !strings.Contains(string(out), "file too large") {
		t.Fatalf("the append did not fail on the size limit:\n%s", out)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Fatalf("a failed append changed the file: %d bytes before, %d after:\n%s", len(before), len(after), after[len(before):])
	}
	blocks, diags := ParseBlocks(path, after)
	got, ok := Latest(blocks)
	if !ok || len(blocks) != 1 || len(diags) != 0 || !got.Timestamp.Equal(first.Timestamp) {
		t.Fatalf("blocks after the failed append: %d, latest %+v, diagnostics %v", len(blocks), got, diags)
	}
}

// appendUnderLimit is the child's side: with RLIMIT_FSIZE lowered it
// appends a block larger than the room left and prints the error.
func appendUnderLimit(path string) {
	limit, _ := strconv.ParseUint(os.Getenv("RECITE_TEST_FSIZE_LIMIT"), 10, 64)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		println("setrlimit:", err.Error())
		os.Exit(3)
	}
	big := Block{Trigger: TriggerManual, Signals: []Signal{{Kind: KindError, Text: "E1 " + strings.Repeat("x", 4096)}}}
	err := AppendBlock(context.Background(), path, big)
	if err == nil {
		println("append succeeded")
		os.Exit(4)
	}
	println("append failed:", err.Error(), errors.Is(err, syscall.EFBIG))
	os.Exit(0)
}
