package planning

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/internal/sharedtest"
	"github.com/recite-dev/recite/markdown"
)

var updateDerived = flag.Bool("update-derived", false, "record the digest of the derived results under derivedVersion")

// projectJSON is the whole model as JSON (the documents left out).
func projectJSON(t testing.TB, p *Project) string {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// derivedTree copies src's planning tree as diskTree does.
func derivedTree(t *testing.T, src string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".planning")
	if err := sharedtest.CopyTree(src, dir); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	_ = filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			_ = os.Chtimes(p, old, old)
		}
		return err
	})
	return dir
}

// TestDerivedResultsSaved: a new process takes every file's derived
// results (the roadmap's phases, each plan's tasks) from the parsed-file
// cache and derives none; after a one-file edit it derives that file
// alone; and its model is always a fresh load's. On the bundled example
// and, when present, on norish.
func TestDerivedResultsSaved(t *testing.T) {
	trees := map[string]string{"gsd": filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd", ".planning")}
	if root := filepath.Join(filepath.Dir(sharedtest.ModuleRoot()), "shared", "realdata", "23492__norish", ".planning"); dirExists(root) {
		trees["norish"] = root
	}
	for name, src := range trees {
		t.Run(name, func(t *testing.T) {
			dir := derivedTree(t, src)
			path := filepath.Join(t.TempDir(), DiskCacheFile)
			warmBase(t, dir, path)
			fresh := func() string {
				p, err := Load(os.DirFS(dir))
				if err != nil {
					t.Fatal(err)
				}
				return projectJSON(t, p)
			}
			c, p, _, _ := loadProcess(t, dir, path)
			if c.derivations != 0 {
				t.Errorf("a warm start derived %d results", c.derivations)
			}
			if projectJSON(t, p) != fresh() {
				t.Fatal("the warm model differs from a fresh load's")
			}
			var plan string
			_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && plan == "" && strings.HasSuffix(p, "-PLAN.md") {
					plan = p
				}
				return err
			})
			for _, f := range []string{plan, filepath.Join(dir, "ROADMAP.md")} {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(f, append(b, "\n- [ ] A task added by the test\n"...), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := c.SaveFile(path); err != nil {
					t.Fatal(err)
				}
				c, p, _, _ = loadProcess(t, dir, path)
				if c.derivations != 1 {
					t.Errorf("after an edit of %s, %d results derived, want 1", filepath.Base(f), c.derivations)
				}
				if projectJSON(t, p) != fresh() {
					t.Fatalf("after an edit of %s the warm model differs from a fresh load's", filepath.Base(f))
				}
			}
		})
	}
}

// TestDerivedResultsOfAnotherModel: results saved under another model key
// (another derivedVersion, another shape of the types) are not used: the
// files are derived again.
func TestDerivedResultsOfAnotherModel(t *testing.T) {
	dir := diskTree(t)
	path := filepath.Join(t.TempDir(), DiskCacheFile)
	warmBase(t, dir, path)
	f := readDiskFile(t, path)
	var keys []cacheKey
	var ents []*cacheEntry
	saved := 0
	for _, de := range f.entries {
		if len(de.entry.saved) > 0 {
			de.entry.savedModel = "0000000000000000"
			saved++
		}
		keys, ents = append(keys, de.key), append(ents, de.entry)
	}
	if saved == 0 {
		t.Fatal("no derived result was saved")
	}
	if err := os.WriteFile(path, encodeDiskCache(keys, ents), 0o644); err != nil {
		t.Fatal(err)
	}
	c, p, _, _ := loadProcess(t, dir, path)
	if c.derivations != saved {
		t.Errorf("%d results derived, want %d", c.derivations, saved)
	}
	if summaryJSON(t, p) != freshModel(t, dir) {
		t.Error("the model differs from a fresh load's")
	}
}

// TestRoadmapPhaseJSON: roadmapPhaseJSON, the saved form of roadmapPhase,
// has one field of the same name and type for each of roadmapPhase's (a
// field added there and not here fails).
func TestRoadmapPhaseJSON(t *testing.T) {
	shape := func(rt reflect.Type) []string {
		var out []string
		for i := range rt.NumField() {
			f := rt.Field(i)
			out = append(out, strings.ToLower(f.Name)+" "+f.Type.String())
		}
		slices.Sort(out)
		return out
	}
	if a, b := shape(reflect.TypeFor[roadmapPhase]()), shape(reflect.TypeFor[roadmapPhaseJSON]()); !slices.Equal(a, b) {
		t.Errorf("roadmapPhase has %v, its saved form %v", a, b)
	}
}

// TestDerivedVersion: the results parseRoadmap and parsePlan derive from
// the example and real trees are those recorded in
// testdata/derived.sum under derivedVersion. When a change to the
// derivation changes them, bump derivedVersion (derivedcache.go) so that
// no process takes results of the old code from a parsed-file cache, and
// record the new digest: go test -run TestDerivedVersion ./planning/
// -update-derived.
func TestDerivedVersion(t *testing.T) {
	examples := filepath.Join(sharedtest.ModuleRoot(), "examples")
	sets := map[string][]string{"examples": {examples}}
	if rd := filepath.Join(filepath.Dir(sharedtest.ModuleRoot()), "shared", "realdata"); dirExists(rd) {
		sets["examples+realdata"] = []string{examples, rd}
	}
	sumFile := filepath.Join("testdata", "derived.sum")
	b, _ := os.ReadFile(sumFile)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, name := range slices.Sorted(maps.Keys(sets)) {
		got := fmt.Sprintf("%s version %d digest %s", name, derivedVersion, derivedDigest(t, sets[name]))
		i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, name+" ") })
		same := i >= 0 && strings.Contains(lines[i], fmt.Sprintf(" version %d ", derivedVersion))
		switch {
		case i >= 0 && lines[i] == got:
		case same:
			t.Errorf("parseRoadmap or parsePlan derives other results than under derivedVersion %d:\n got  %s\n want %s\nbump derivedVersion in planning/derivedcache.go, then go test -run TestDerivedVersion ./planning/ -update-derived", derivedVersion, got, lines[i])
		case !*updateDerived:
			t.Errorf("%s records no digest for %s under derivedVersion %d: go test -run TestDerivedVersion ./planning/ -update-derived", sumFile, name, derivedVersion)
		case i >= 0:
			lines[i] = got
		default:
			lines = append(lines, got)
		}
	}
	if *updateDerived && !t.Failed() {
		lines = slices.DeleteFunc(lines, func(l string) bool { return l == "" })
		slices.Sort(lines)
		if err := os.WriteFile(sumFile, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// derivedDigest is the digest of what parseRoadmap and parsePlan (open and
// done) derive from the roadmaps and plans under roots, as JSON.
func derivedDigest(t *testing.T, roots []string) string {
	t.Helper()
	h := sha256.New()
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			rel, base := filepath.ToSlash(rel), filepath.Base(p)
			switch {
			case base == "ROADMAP.md" || base == "VISION.md":
				var out []roadmapPhaseJSON
				for _, r := range parseRoadmap(base, parseFile(t, p)) {
					out = append(out, roadmapPhaseJSON{Number: r.number, Name: r.name, Goal: r.goal, Status: r.status, Line: r.line, Archived: r.archived})
				}
				s, _ := json.Marshal(out)
				fmt.Fprintf(h, "%s %s\n", rel, s)
			case strings.Contains(rel, "/phases/") && fileRole("phases/x/"+base) == "plan":
				for _, done := range []bool{false, true} {
					q := &Plan{Done: done}
					parsePlan(q, parseFile(t, p))
					s, _ := json.Marshal(q)
					fmt.Fprintf(h, "%s %v %s\n", rel, done, s)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// parseFile parses the markdown file at p.
func parseFile(t *testing.T, p string) *markdown.Document {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return markdown.Parse(filepath.Base(p), b)
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// TestDerivedRoundTrip: the saved form of every roadmap's and plan's
// results in the example (and real) trees decodes into equal results, nil
// and empty slices told apart.
func TestDerivedRoundTrip(t *testing.T) {
	roots := []string{filepath.Join(sharedtest.ModuleRoot(), "examples")}
	if rd := filepath.Join(filepath.Dir(sharedtest.ModuleRoot()), "shared", "realdata"); dirExists(rd) {
		roots = append(roots, rd)
	}
	n := 0
	check := func(kind string, v any) {
		s, ok := encodeDerived(kind, v)
		if !ok {
			t.Fatalf("%s: not encoded", kind)
		}
		back, ok := decodeDerived(kind, s)
		if !ok {
			t.Fatalf("%s: does not decode", kind)
		}
		if !reflect.DeepEqual(back, v) {
			t.Fatalf("%s: round trip differs:\n%#v\n%#v", kind, back, v)
		}
		n++
	}
	for _, root := range roots {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			base := filepath.Base(p)
			switch {
			case base == "ROADMAP.md":
				check("roadmap", parseRoadmap(base, parseFile(t, p)))
			case strings.Contains(filepath.ToSlash(p), "/phases/") && fileRole("phases/x/"+base) == "plan":
				q := &Plan{}
				parsePlan(q, parseFile(t, p))
				q.Markdown = nil
				check("plan", q)
			}
			return nil
		})
	}
	check("plan", &Plan{Tasks: []Task{}, FilesModified: nil, Failure: &Diagnostic{Path: "x", Line: 2, Message: "m"}})
	if n < 3 {
		t.Fatalf("only %d results checked", n)
	}
}

// FuzzDecodeDerived: no saved form makes the decoder panic.
func FuzzDecodeDerived(f *testing.F) {
	for _, v := range []any{
		&Plan{Title: "t", Tasks: []Task{{Text: "a", Attrs: map[string]string{"k": "v"}, Files: []string{"f"}}}},
		[]roadmapPhase{{number: "1", name: "n", line: 3, archived: true}},
	} {
		kind := "plan"
		if _, ok := v.([]roadmapPhase); ok {
			kind = "roadmap"
		}
		s, _ := encodeDerived(kind, v)
		f.Add(kind, s)
	}
	f.Fuzz(func(t *testing.T, kind, saved string) {
		_, _ = decodeDerived(kind, saved)
	})
}
