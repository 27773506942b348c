package ignore

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	gogit "github.com/go-git/go-git/v5/plumbing/format/gitignore"
	sabhiram "github.com/sabhiram/go-gitignore"

	"github.com/recite-dev/recite/internal/sharedtest"
)

// oracleRow is one line of the shared gitignore oracle table (sharedtest): the verdict real
// `git check-ignore` gave for path under a root .gitignore holding patterns.
type oracleRow struct {
	lineno   int
	caseID   string
	patterns string
	path     string
	isDir    bool
	ignored  bool
}

// unescapeOracle decodes the oracle's field escapes: \n \r \t \\ \uFEFF.
func unescapeOracle(t testing.TB, s string) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) {
			t.Fatalf("dangling backslash in %q", s)
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case '\\':
			b.WriteByte('\\')
		case 'u':
			if !strings.HasPrefix(s[i:], "uFEFF") {
				t.Fatalf("unknown escape in %q", s)
			}
			b.WriteString("\uFEFF")
			i += 4
		default:
			t.Fatalf("unknown escape \\%c in %q", s[i], s)
		}
	}
	return b.String()
}

func readOracle(t testing.TB) []oracleRow {
	t.Helper()
	f, err := os.Open(filepath.Join(sharedtest.Dir(t), "ignore-oracle.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []oracleRow
	sc := bufio.NewScanner(f)
	lineno := 0
	for sc.Scan() {
		lineno++
		if lineno == 1 {
			continue // header
		}
		fields := strings.Split(sc.Text(), "\t") // never trim: one path ends with a space
		if len(fields) != 5 {
			t.Fatalf("ignore-oracle.tsv:%d: %d fields, want 5", lineno, len(fields))
		}
		rows = append(rows, oracleRow{
			lineno:   lineno,
			caseID:   fields[0],
			patterns: unescapeOracle(t, fields[1]),
			path:     unescapeOracle(t, fields[2]),
			isDir:    fields[3] == "1",
			ignored:  fields[4] == "ignored",
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("ignore-oracle.tsv has no rows")
	}
	return rows
}

// TestOracle checks our matcher against every row of the oracle, with the
// patterns placed in each of the three files it reads.
func TestOracle(t *testing.T) {
	rows := readOracle(t)
	for _, where := range []string{GitignoreFile, PowerignoreFile, ExcludeFile} {
		t.Run(where, func(t *testing.T) {
			byCase := map[string]*Matcher{}
			for _, r := range rows {
				m := byCase[r.caseID]
				if m == nil {
					root := t.TempDir()
					if err := os.MkdirAll(filepath.Join(root, ".git", "info"), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(where)), []byte(r.patterns), 0o644); err != nil {
						t.Fatal(err)
					}
					var err error
					if m, err = Load(root); err != nil {
						t.Fatal(err)
					}
					byCase[r.caseID] = m
				}
				if got := m.Match(r.path, r.isDir); got.Ignored != r.ignored {
					t.Errorf("ignore-oracle.tsv:%d %s patterns %q path %q dir=%v: ignored=%v (source %v via %q), git says %v",
						r.lineno, r.caseID, r.patterns, r.path, r.isDir, got.Ignored, got.Source, got.Via, r.ignored)
				}
			}
		})
	}
}

// splitLines splits a pattern file into lines for the candidate libraries,
// which take lines, not files: CR and BOM are left for them to handle.
func splitLines(s string) []string {
	lines := strings.Split(s, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// TestOracleCandidates checks the reason this package exists ("Why not a
// library" in doc.go): against git's verdicts, recite's matcher has no
// disagreement, and each library we could have used disagrees, on the
// rows doc.go counts and on the cases it names: C24 ("dir/*" + "!dir/"
// must not re-include dir/xyz), C19 ("[!0-9]", which path.Match and
// regexps do not know) and C41 ("src/" + "!src/main.go": a file inside an
// excluded directory stays excluded). A library that stops disagreeing
// fails this test: then it may replace the port. go test -run
// TestOracleCandidates -v prints each one's disagreements.
func TestOracleCandidates(t *testing.T) {
	rows := readOracle(t)
	type candidate struct {
		name  string
		match func(patterns, path string, isDir bool) (ignored bool, panicked bool)
		// wrong is the number of oracle rows it gets wrong (a panic
		// counts): 0 for recite, the count doc.go gives for a library.
		// cases are the oracle cases it must get wrong.
		wrong int
		cases []string
	}
	safe := func(f func() bool) (v bool, panicked bool) {
		defer func() {
			if recover() != nil {
				panicked = true
			}
		}()
		return f(), false
	}
	candidates := []candidate{
		{"sabhiram/go-gitignore (CompileIgnoreLines + MatchesPath, dirs with trailing /)", func(patterns, p string, isDir bool) (bool, bool) {
			return safe(func() bool {
				gi := sabhiram.CompileIgnoreLines(splitLines(patterns)...)
				if isDir {
					p += "/"
				}
				return gi.MatchesPath(p)
			})
		}, 54, []string{"C19", "C24", "C41"}},
		{"go-git/v5 plumbing/format/gitignore (ParsePattern + NewMatcher, comment lines dropped as its ReadPatterns does)", func(patterns, p string, isDir bool) (bool, bool) {
			return safe(func() bool {
				var ps []gogit.Pattern
				for _, l := range splitLines(patterns) {
					if strings.HasPrefix(l, "#") || len(strings.TrimSpace(l)) == 0 {
						continue
					}
					ps = append(ps, gogit.ParsePattern(l, nil))
				}
				return gogit.NewMatcher(ps).Match(strings.Split(p, "/"), isDir)
			})
		}, 43, []string{"C19", "C24", "C41"}},
		{"recite engine/internal/ignore", func(patterns, p string, isDir bool) (bool, bool) {
			return safe(func() bool {
				return Parse(t.TempDir(), nil, []byte(patterns), nil).Match(p, isDir).Ignored
			})
		}, 0, nil},
	}
	allCases := map[string]bool{}
	for _, r := range rows {
		allCases[r.caseID] = true
	}
	for _, c := range candidates {
		wrong, panics := 0, 0
		cases := map[string]int{}
		for _, r := range rows {
			got, panicked := c.match(r.patterns, r.path, r.isDir)
			if panicked {
				panics++
			}
			if panicked || got != r.ignored {
				wrong++
				cases[r.caseID]++
			}
		}
		ids := make([]string, 0, len(cases))
		for id := range cases {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		t.Logf("%s: disagreements %d / %d rows (%d panics) in %d of %d cases %v", c.name, wrong, len(rows), panics, len(cases), len(allCases), ids)
		if wrong != c.wrong {
			t.Errorf("%s: %d rows disagree with git, doc.go says %d (%d panics; cases %v): re-check the package's reason to exist and update doc.go",
				c.name, wrong, c.wrong, panics, ids)
		}
		for _, id := range c.cases {
			if cases[id] == 0 {
				t.Errorf("%s now agrees with git on %s, a case doc.go names against it", c.name, id)
			}
		}
	}
}
