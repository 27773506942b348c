package engine

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/recite-dev/recite/internal/sharedtest"
)

// unreadableChildEnv names the project a re-executed test binary builds as
// an unprivileged user (TestUnreadableChild).
const unreadableChildEnv = "RECITE_TEST_UNREADABLE_CHILD"

// nobody is the unprivileged user the root run of the test builds as.
const nobody = 65534

// TestBuildKeepsLastGoodOnUnreadableFolder: with mode 000 on the current
// phase's folder, build keeps the last good prompt files and names the
// folder and the reason, instead of writing a smaller prompt without the
// current plan (docs/formats.md#unreadable-files). Mode 000 does not stop
// root, so as root the build runs in a copy of this test binary started
// as an unprivileged user; the fault itself is the real one either way.
func TestBuildKeepsLastGoodOnUnreadableFolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("mode 000 does not make a folder unreadable on Windows")
	}
	dir := copyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd"))
	if _, err := New(dir).Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	prompts := filepath.Join(dir, ".planning", "prompts")
	good := readAll(t, prompts)
	locked := filepath.Join(dir, ".planning", "phases", "02-http-api")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)

	got := buildUnprivileged(t, dir)
	const want = "kept the last good render: .planning/phases/02-http-api: cannot read the folder: permission denied"
	if len(got.Kept) != 1 || got.Kept[0] != want {
		t.Fatalf("kept = %q, want [%q]", got.Kept, want)
	}
	found := false
	for _, d := range got.Diagnostics {
		found = found || d == ".planning/phases/02-http-api: cannot read the folder: permission denied"
	}
	if !found {
		t.Errorf("diagnostics %q do not name the folder and the reason", got.Diagnostics)
	}
	if err := os.Chmod(locked, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range readAll(t, prompts) {
		if string(b) != string(good[name]) {
			t.Errorf("%s changed: the build wrote a render without the unreadable folder", name)
		}
	}
}

// buildOutcome is what a build says of keeping the last good render: each
// target's reason and every diagnostic, as printed.
type buildOutcome struct {
	Kept, Diagnostics []string
}

func outcomeOf(rep *Report) buildOutcome {
	var o buildOutcome
	for _, tr := range rep.Targets {
		o.Kept = append(o.Kept, tr.Kept)
	}
	for _, d := range rep.Diagnostics {
		o.Diagnostics = append(o.Diagnostics, d.String())
	}
	return o
}

// buildUnprivileged builds the project at dir as a user that mode 000
// stops: the test itself when it is not root, else a copy of the test
// binary run as nobody (TestUnreadableChild), after giving it the project.
func buildUnprivileged(t *testing.T, dir string) buildOutcome {
	t.Helper()
	if os.Geteuid() != 0 {
		rep, err := New(dir).Build(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return outcomeOf(rep)
	}
	// The child must reach the binary and the project: a copy of the
	// binary in a folder anyone may enter, the project given to nobody.
	bin := filepath.Join(t.TempDir(), "engine.test")
	copyFile(t, os.Args[0], bin, 0o755)
	for d := filepath.Dir(bin); d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		chmodAdd(t, d, 0o755)
	}
	for d := filepath.Dir(dir); d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		chmodAdd(t, d, 0o755)
	}
	if err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody)
	}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestUnreadableChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), unreadableChildEnv+"="+dir, "HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the build as uid %d: %v\n%s", nobody, err, out)
	}
	_, body, ok := strings.Cut(string(out), "REPORT ")
	if !ok {
		t.Fatalf("the build as uid %d printed no report:\n%s", nobody, out)
	}
	body, _, _ = strings.Cut(body, "\n")
	var o buildOutcome
	if err := json.Unmarshal([]byte(body), &o); err != nil {
		t.Fatalf("report of the child: %v\n%s", err, out)
	}
	return o
}

// TestUnreadableChild is the unprivileged half of
// TestBuildKeepsLastGoodOnUnreadableFolder: run only by it, in a copy of
// the test binary started as nobody, it builds the project it names and
// prints the report.
func TestUnreadableChild(t *testing.T) {
	dir := os.Getenv(unreadableChildEnv)
	if dir == "" {
		t.Skip("run by TestBuildKeepsLastGoodOnUnreadableFolder as an unprivileged user")
	}
	if os.Geteuid() == 0 {
		t.Fatal("the child runs as root: mode 000 would not stop it")
	}
	rep, err := New(dir).Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(outcomeOf(rep))
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("REPORT " + string(b) + "\n")
}

func readAll(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range ents {
		if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil && !e.IsDir() {
			out[e.Name()] = b
		}
	}
	return out
}

func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// chmodAdd adds the permission bits add to the folder d.
func chmodAdd(t *testing.T, d string, add os.FileMode) {
	t.Helper()
	fi, err := os.Stat(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, fi.Mode().Perm()|add); err != nil {
		t.Fatal(err)
	}
}
