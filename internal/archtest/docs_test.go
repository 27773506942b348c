package archtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// citationRE finds a citation of the repository's docs in source text:
// `docs/<file>.md#<anchor>`. The character before it must not continue a path or a
// word, so "https://host/docs/x.md#a" and "mydocs/x.md#a" are not citations; a
// path without an anchor ("docs/notes.md" in a test tree) is not one either.
var citationRE = regexp.MustCompile(`(?:^|[^\w/.-])(docs/[\w.-]+\.md)#([\p{L}\p{N}_-]+)`)

// anchorDropRE is what GitHub removes from a heading's text to make its
// anchor: everything but letters, marks, decimal and letter numbers, connector
// punctuation (the underscore), hyphens and spaces. The rule is GitHub's
// html-pipeline TableOfContentsFilter
// (https://github.com/gjtorikian/html-pipeline, toc_filter.rb:
// `text.downcase.gsub(/[^\p{Word}\- ]/u, ”).tr(' ', '-')`).
var anchorDropRE = regexp.MustCompile(`[^\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc}\- ]`)

// outsideDocs returns the names of design documents that live outside the
// repository; no file of the module may cite them. The names are put
// together here so that this file, which must know them, does not carry
// them as citations itself.
func outsideDocs() []string {
	var out []string
	for _, stem := range []string{"FORMATS", "TRAPS", "PROVIDERS", "DESIGN", "STYLE"} {
		out = append(out, stem+".md")
	}
	return append(out, "/work/"+"shared", "seeds"+"/0")
}

// anchor returns the anchor GitHub gives a heading whose rendered text is
// heading (inline markup already removed): lower-cased, punctuation other than
// hyphens and underscores dropped, each space a hyphen. Duplicates are
// numbered by headingAnchors, not here.
func anchor(heading string) string {
	return strings.ReplaceAll(anchorDropRE.ReplaceAllString(strings.ToLower(heading), ""), " ", "-")
}

// mdParser parses the docs as GitHub renders them (GFM), so a `#` line in a
// fenced block is not a heading and table cells are not paragraphs.
func mdParser() goldmark.Markdown {
	return goldmark.New(goldmark.WithExtensions(extension.GFM))
}

// plainText is the rendered text of n's inline content: text, code spans
// without their backticks, link and emphasis text without their markup.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// mdDoc is what the checks need of one markdown file: the anchors of its
// headings (with GitHub's -1, -2 suffixes for repeated ones) and its links
// with the line each starts on.
type mdDoc struct {
	anchors map[string]bool
	links   []mdLink
}

type mdLink struct {
	dest string
	line int
}

// parseMD reads the headings and links of one markdown file.
func parseMD(src []byte) mdDoc {
	doc := mdDoc{anchors: map[string]bool{}}
	seen := map[string]int{}
	root := mdParser().Parser().Parse(text.NewReader(src))
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			a := anchor(plainText(n, src))
			if k := seen[a]; k > 0 {
				doc.anchors[fmt.Sprintf("%s-%d", a, k)] = true
			} else {
				doc.anchors[a] = true
			}
			seen[a]++
		case *ast.Link:
			doc.links = append(doc.links, mdLink{dest: string(n.Destination), line: lineOf(n, src)})
		}
		return ast.WalkContinue, nil
	})
	return doc
}

// lineOf is the 1-based line of the first text below n, 0 when n has none.
func lineOf(n ast.Node, src []byte) int {
	line := 0
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			line = bytes.Count(src[:t.Segment.Start], []byte("\n")) + 1
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return line
}

// moduleRoot is the directory of the go.mod above the working directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// selfFile is this file, skipped by the checks: its tests and tables hold bad
// citations and outside names on purpose.
const selfFile = "internal/archtest/docs_test.go"

// sourceFiles lists, relative to root and slash-separated, the files whose
// text may cite documents: every .go and .txtar file, and the markdown files
// at the root and in docs/ (markdown under testdata is input data, where a
// planning file may well carry one of those names). Hidden directories, nested
// modules and selfFile are skipped.
func sourceFiles(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "." {
				return nil
			}
			if strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		dir := path.Dir(rel)
		switch {
		case rel == selfFile:
			// The checker's own examples of bad citations.
		case strings.HasSuffix(rel, ".go"), strings.HasSuffix(rel, ".txtar"):
			files = append(files, rel)
		case strings.HasSuffix(rel, ".md") && (dir == "." || dir == "docs"):
			files = append(files, rel)
		}
		return nil
	})
	return files, err
}

// checkCitations returns one problem per citation under root that names a docs
// file that does not exist or an anchor that none of its headings has, and per
// link between docs/*.md files that does the same. Each problem starts with
// the citing file and line.
func checkCitations(root string) ([]string, error) {
	files, err := sourceFiles(root)
	if err != nil {
		return nil, err
	}
	docs := map[string]*mdDoc{} // "docs/x.md" → parsed; nil when absent
	docOf := func(name string) (*mdDoc, error) {
		if d, ok := docs[name]; ok {
			return d, nil
		}
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if errors.Is(err, fs.ErrNotExist) {
			docs[name] = nil
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		d := parseMD(src)
		docs[name] = &d
		return &d, nil
	}
	var problems []string
	check := func(at, name, frag string) error {
		d, err := docOf(name)
		if err != nil {
			return err
		}
		switch {
		case d == nil:
			problems = append(problems, fmt.Sprintf("%s: %s does not exist", at, name))
		case frag != "" && !d.anchors[frag]:
			problems = append(problems, fmt.Sprintf("%s: %s has no heading with anchor #%s", at, name, frag))
		}
		return nil
	}
	for _, rel := range files {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		for i, line := range strings.Split(string(src), "\n") {
			for _, m := range citationRE.FindAllStringSubmatch(line, -1) {
				if err := check(fmt.Sprintf("%s:%d", rel, i+1), m[1], m[2]); err != nil {
					return nil, err
				}
			}
		}
		if path.Dir(rel) != "docs" {
			continue
		}
		d, err := docOf(rel)
		if err != nil {
			return nil, err
		}
		for _, l := range d.links {
			target, frag, _ := strings.Cut(l.dest, "#")
			if strings.Contains(target, ":") || !strings.HasSuffix(target, ".md") && target != "" {
				continue // a URL, or a link to something other than a doc
			}
			name := rel
			if target != "" {
				name = path.Join("docs", target)
			}
			if err := check(fmt.Sprintf("%s:%d", rel, l.line), name, frag); err != nil {
				return nil, err
			}
		}
	}
	return problems, nil
}

// outsideCitations returns "file:line" for every line under root that names
// one of the documents outside the repository.
func outsideCitations(root string) (map[string][]int, error) {
	files, err := sourceFiles(root)
	if err != nil {
		return nil, err
	}
	outside := outsideDocs()
	found := map[string][]int{}
	for _, rel := range files {
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			if slices.ContainsFunc(outside, func(s string) bool { return strings.Contains(sc.Text(), s) }) {
				found[rel] = append(found[rel], n)
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
	}
	return found, nil
}

// TestDocCitations: every `docs/<file>.md#<anchor>` a source file cites, and every
// link between the docs, names a file and a heading that exist
// (docs/architecture.md#import-rules).
func TestDocCitations(t *testing.T) {
	problems, err := checkCitations(moduleRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestNoOutsideDocuments: no source file cites the design documents kept
// outside the repository; a reader of the code could not follow them. Code
// cites docs/*.md or the upstream source instead.
func TestNoOutsideDocuments(t *testing.T) {
	found, err := outsideCitations(moduleRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(found) == 0 {
		return
	}
	var b strings.Builder
	files := make([]string, 0, len(found))
	for f := range found {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, f := range files {
		fmt.Fprintf(&b, "\n  %s: lines %v", f, found[f])
	}
	t.Errorf("%d files cite documents outside the repository (%s); cite docs/<file>.md#<anchor> or the upstream source:%s",
		len(files), strings.Join(outsideDocs(), ", "), b.String())
}

// TestAnchor checks anchor on headings of the docs and on the shapes GitHub
// treats specially; the expected anchors follow the html-pipeline rule quoted
// at anchorDropRE.
func TestAnchor(t *testing.T) {
	tests := []struct{ heading, want string }{
		{"Reading pipeline", "reading-pipeline"},
		{"Loop health and the circuit breaker", "loop-health-and-the-circuit-breaker"},
		{"Commit only recite's paths", "commit-only-recites-paths"},
		{"Never-excluded files", "never-excluded-files"},
		{"GSD's project code", "gsds-project-code"},
		{"Errors (verbatim, do NOT paraphrase)", "errors-verbatim-do-not-paraphrase"},
		{"Context Preservation Block (auto-generated)", "context-preservation-block-auto-generated"},
		{"Gemini generateContent", "gemini-generatecontent"},
		{"recite.yaml keys", "reciteyaml-keys"}, // the dot is dropped, not made a hyphen
		{"snake_case keys", "snake_case-keys"},  // the underscore is a connector, kept
		{"Posição Atual", "posição-atual"},      // letters beyond ASCII are kept
		{"✅ Done", "-done"},                     // the emoji goes, its space stays
		{"A  B", "a--b"},                        // spaces are not collapsed
		{"Phase 2.1 — gaps", "phase-21--gaps"},
	}
	for _, tt := range tests {
		if got := anchor(tt.heading); got != tt.want {
			t.Errorf("anchor(%q) = %q, want %q", tt.heading, got, tt.want)
		}
	}
}

// TestParseMDHeadings: anchors come from the rendered heading (backticks,
// emphasis and link markup removed), repeated headings are numbered, and a
// heading-like line inside a fence is not a heading.
func TestParseMDHeadings(t *testing.T) {
	src := "# Top\n\n### `recite.yaml` keys\n\n## *Errors*\n\n## Errors\n\n## [Link](x.md) text\n\n" +
		"Setext heading\n--------------\n\n```markdown\n## Not a heading\n```\n"
	got := slices.Sorted(func(yield func(string) bool) {
		for a := range parseMD([]byte(src)).anchors {
			if !yield(a) {
				return
			}
		}
	})
	want := []string{"errors", "errors-1", "link-text", "reciteyaml-keys", "setext-heading", "top"}
	if !slices.Equal(got, want) {
		t.Errorf("anchors = %q, want %q", got, want)
	}
}

// TestCheckCitationsFindsBad runs the citation check on a small module in a
// temp dir: a good citation passes, a bad anchor, a missing docs file and a
// broken link inside the docs are each reported with file and line, and an
// outside document is found.
func TestCheckCitationsFindsBad(t *testing.T) {
	root := t.TempDir()
	write := func(name, content string) {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n")
	write("docs/formats.md", "# Formats\n\n## Real heading\n\nSee [x](#real-heading), [y](#gone) and [z](other.md#a).\n")
	write("a/a.go", "package a\n\n// Good (docs/formats.md#real-heading).\n// Bad anchor (docs/formats.md#no-such-heading).\n"+
		"// Missing file: docs/nothere.md#x. Not a citation: https://example.com/docs/x.md#y.\n// Old: "+outsideDocs()[0]+" §2.1.\n")
	write("cmd/testdata/script/s.txtar", "# docs/formats.md#real-heading\nexec true\n")
	write(".hidden/b.go", "// docs/formats.md#hidden\n")

	problems, err := checkCitations(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"a/a.go:4: docs/formats.md has no heading with anchor #no-such-heading",
		"a/a.go:5: docs/nothere.md does not exist",
		"docs/formats.md:5: docs/formats.md has no heading with anchor #gone",
		"docs/formats.md:5: docs/other.md does not exist",
	}
	if !slices.Equal(problems, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
	found, err := outsideCitations(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || !slices.Equal(found["a/a.go"], []int{6}) {
		t.Errorf("outside citations = %v, want a/a.go line 6", found)
	}
}
