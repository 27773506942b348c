package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// modulePath is the module whose packages the rules speak of; patterns in
// the rules are relative to it.
const modulePath = "github.com/recite-dev/recite"

// importRule says which project packages the packages matching pkgs may
// import. A pattern is a package path relative to the module ("engine"), or
// a path followed by "/..." for it and every package below it
// ("engine/internal/...").
type importRule struct {
	pkgs []string
	may  []string
	// testOnly marks packages of test support: they may import what rule
	// may lists, and only other test-support packages (or test files, which
	// are not checked) may import them.
	testOnly bool
}

// moduleRule says which project packages may import the packages of a
// third-party module.
type moduleRule struct {
	module string
	only   []string
}

// importRules is the direction of docs/architecture.md#import-rules, top
// layer first: cmd → engine/mcp → engine → engine/{claudecode, scope,
// agent, layers, conversations, health, economics, secrets} → engine/{prompt,
// signals, history,
// compress, budget, config} → planning → markdown. A layer may import the
// layers below it and its own siblings; cmd may import engine and the
// front ends beside it (engine/mcp) and nothing else; the leaves (markdown, templates,
// engine/internal/*, internal/*) import no project package.
// internal/sharedtest, engine/internal/enginetest,
// engine/internal/gitstore/gittest and engine/providertest are test
// support: only tests (and each other) may import them.
func importRules() []importRule {
	leaves := []string{"markdown", "templates", "engine/internal/...", "internal/fsutil"}
	planning := []string{"planning", "planning/conversation"}
	core := []string{"engine/prompt", "engine/signals", "engine/history", "engine/compress", "engine/budget", "engine/config", "engine/diagnostics"}
	mid := []string{"engine/claudecode", "engine/scope", "engine/agent", "engine/layers", "engine/conversations", "engine/health", "engine/economics", "engine/secrets", "engine/scaffold"}
	// Front ends beside cmd: they speak a protocol and call the engine.
	front := []string{"engine/mcp"}
	testSupport := []string{"internal/sharedtest", "engine/internal/enginetest", "engine/internal/gitstore/gittest", "engine/providertest"}
	return []importRule{
		{pkgs: testSupport, may: slices.Concat(testSupport, core, planning, leaves), testOnly: true},
		{pkgs: []string{"cmd/..."}, may: slices.Concat([]string{"engine"}, front)},
		{pkgs: front, may: slices.Concat([]string{"engine"}, mid, core, planning, leaves)},
		{pkgs: []string{"engine"}, may: slices.Concat(mid, core, planning, leaves)},
		{pkgs: mid, may: slices.Concat(mid, core, planning, leaves)},
		{pkgs: core, may: slices.Concat(core, planning, leaves)},
		{pkgs: planning, may: slices.Concat(planning, leaves)},
		{pkgs: []string{"markdown", "templates", "engine/internal/...", "internal/..."}},
	}
}

// moduleRules names the one place each adapter's library may be imported
// from (docs/architecture.md#third-party-libraries).
func moduleRules() []moduleRule {
	return []moduleRule{
		{module: "github.com/fsnotify/fsnotify", only: []string{"engine/internal/watch"}},
		{module: "github.com/go-git/go-git/v5", only: []string{"engine/internal/gitstore/..."}},
		{module: "github.com/go-git/go-billy/v5", only: []string{"engine/internal/gitstore"}},
		{module: "github.com/gofrs/flock", only: []string{"internal/fsutil"}},
		{module: "github.com/google/renameio/v2", only: []string{"internal/fsutil"}},
		{module: "github.com/spf13/cobra", only: []string{"cmd/..."}},
		// The terminal picture of `recite status` is the CLI's alone.
		{module: "charm.land/lipgloss/v2", only: []string{"cmd/..."}},
		{module: "github.com/charmbracelet/x/ansi", only: []string{"cmd/..."}},
		{module: "golang.org/x/term", only: []string{"cmd/..."}},
		// The providers' SDKs prove request bodies in engine/providertest's
		// tests (test files are not checked), never in the binary.
		{module: "github.com/anthropics/anthropic-sdk-go/v2", only: []string{"engine/providertest"}},
		{module: "github.com/openai/openai-go/v3", only: []string{"engine/providertest"}},
		{module: "google.golang.org/genai", only: []string{"engine/providertest"}},
		{module: "github.com/ollama/ollama", only: []string{"engine/providertest"}},
		{module: "github.com/modelcontextprotocol/go-sdk", only: []string{"engine/mcp"}},
		{module: "github.com/google/jsonschema-go", only: []string{"engine/mcp"}},
		// recite.yaml's "did you mean" (engine/config/suggest.go).
		{module: "github.com/agnivade/levenshtein", only: []string{"engine/config"}},
		// The JSON Schema of recite.yaml is generated (invopop) and checked
		// (santhosh-tekuri) by engine/config's tests, never in the binary.
		{module: "github.com/invopop/jsonschema"},
		{module: "github.com/santhosh-tekuri/jsonschema/v6"},
	}
}

// pkg is the part of a `go list -json` record the check reads.
type pkg struct {
	ImportPath string
	Standard   bool
	Imports    []string
	Module     *struct{ Path string }
}

// TestImportDirection checks the import graph of every project package, as
// built for linux, darwin and windows (files with build constraints import
// different packages), against importRules and moduleRules. Test files are
// not checked: they may import what their fixtures need.
func TestImportDirection(t *testing.T) {
	seen := map[string]bool{}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		pkgs, err := goList(goos)
		if err != nil {
			t.Fatalf("GOOS=%s: %v", goos, err)
		}
		for _, v := range check(pkgs, importRules(), moduleRules()) {
			if !seen[v] {
				seen[v] = true
				t.Error(v)
			}
		}
	}
}

// goList returns the project's packages and their dependencies as `go list
// -deps -json` gives them for goos (the host's architecture).
func goList(goos string) ([]pkg, error) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("the go command is needed to read the import graph: %w", err)
	}
	cmd := exec.Command(gobin, "list", "-deps", "-json=ImportPath,Standard,Imports,Module", modulePath+"/...")
	cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs, nil
		} else if err != nil {
			return nil, fmt.Errorf("go list output: %w", err)
		}
		pkgs = append(pkgs, p)
	}
}

// check returns every violation of the rules in pkgs, sorted, one line
// each: the importing package, the import, and the rule it breaks. A
// project package no rule covers is a violation too, so that a new package
// gets its place in the table.
func check(pkgs []pkg, rules []importRule, mods []moduleRule) []string {
	moduleOf := map[string]string{}
	for _, p := range pkgs {
		if p.Module != nil {
			moduleOf[p.ImportPath] = p.Module.Path
		}
	}
	var out []string
	for _, p := range pkgs {
		rel, ok := relative(p.ImportPath)
		if !ok || p.Standard {
			continue
		}
		rule := ruleFor(rel, rules)
		if rule == nil {
			out = append(out, fmt.Sprintf("%s: no import rule covers this package", rel))
			continue
		}
		for _, imp := range p.Imports {
			if irel, ok := relative(imp); ok {
				if r := ruleFor(irel, rules); r != nil && r.testOnly && !rule.testOnly {
					out = append(out, fmt.Sprintf("%s imports %s: %s is test support, for tests only", rel, irel, irel))
				} else if !matchAny(irel, rule.may) {
					out = append(out, fmt.Sprintf("%s imports %s: %s", rel, irel, mayImport(rel, rule.may)))
				}
				continue
			}
			for _, m := range mods {
				if moduleOf[imp] == m.module && !matchAny(rel, m.only) {
					who := "only " + strings.Join(m.only, ", ")
					if len(m.only) == 0 {
						who = "only tests"
					}
					out = append(out, fmt.Sprintf("%s imports %s: %s may import %s", rel, imp, who, m.module))
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// relative returns path relative to the module, and whether it is a
// project package.
func relative(path string) (string, bool) {
	if path == modulePath {
		return ".", true
	}
	rel, ok := strings.CutPrefix(path, modulePath+"/")
	return rel, ok
}

// ruleFor returns the first rule whose patterns match rel, or nil.
func ruleFor(rel string, rules []importRule) *importRule {
	for i := range rules {
		if matchAny(rel, rules[i].pkgs) {
			return &rules[i]
		}
	}
	return nil
}

// matchAny reports whether rel matches one of the patterns.
func matchAny(rel string, patterns []string) bool {
	for _, pat := range patterns {
		if base, ok := strings.CutSuffix(pat, "/..."); ok {
			if rel == base || strings.HasPrefix(rel, base+"/") {
				return true
			}
		} else if rel == pat {
			return true
		}
	}
	return false
}

// mayImport says what rel may import, for a message.
func mayImport(rel string, may []string) string {
	if len(may) == 0 {
		return rel + " may import no project package"
	}
	return rel + " may import only " + strings.Join(may, ", ")
}

// TestCheck runs check on small import graphs: one that follows the rules
// (the target layout, with engine split into its concept packages and the
// adapters in their one place) gives no violation, and every kind of
// violation is reported with the importer and the import.
func TestCheck(t *testing.T) {
	mod := func(path string) *struct{ Path string } { return &struct{ Path string }{path} }
	r := func(rel string) string { return modulePath + "/" + rel }
	third := []pkg{
		{ImportPath: "github.com/spf13/cobra", Module: mod("github.com/spf13/cobra")},
		{ImportPath: "github.com/fsnotify/fsnotify", Module: mod("github.com/fsnotify/fsnotify")},
		{ImportPath: "github.com/go-git/go-git/v5/plumbing", Module: mod("github.com/go-git/go-git/v5")},
		{ImportPath: "github.com/gofrs/flock", Module: mod("github.com/gofrs/flock")},
		{ImportPath: "github.com/google/renameio/v2", Module: mod("github.com/google/renameio/v2")},
		{ImportPath: "github.com/yuin/goldmark", Module: mod("github.com/yuin/goldmark")},
		{ImportPath: "github.com/invopop/jsonschema", Module: mod("github.com/invopop/jsonschema")},
		{ImportPath: "fmt", Standard: true},
	}
	good := append(slices.Clone(third),
		pkg{ImportPath: r("cmd/recite"), Module: mod(modulePath), Imports: []string{"fmt", "github.com/spf13/cobra", r("engine")}},
		pkg{ImportPath: r("engine"), Module: mod(modulePath), Imports: []string{r("engine/claudecode"), r("engine/scope"), r("engine/prompt"), r("planning"), r("internal/fsutil"), r("engine/internal/watch"), r("templates")}},
		pkg{ImportPath: r("engine/claudecode"), Module: mod(modulePath), Imports: []string{r("engine/signals"), r("engine/layers"), r("planning/conversation"), r("internal/fsutil")}},
		pkg{ImportPath: r("engine/layers"), Module: mod(modulePath), Imports: []string{r("engine/history"), r("markdown")}},
		pkg{ImportPath: r("engine/scope"), Module: mod(modulePath), Imports: []string{r("engine/internal/ignore"), r("engine/config")}},
		pkg{ImportPath: r("engine/config"), Module: mod(modulePath), Imports: []string{r("engine/signals"), r("engine/budget"), r("engine/prompt")}},
		pkg{ImportPath: r("engine/signals"), Module: mod(modulePath), Imports: []string{r("planning"), r("internal/fsutil")}},
		pkg{ImportPath: r("engine/history"), Module: mod(modulePath), Imports: []string{r("planning/conversation")}},
		pkg{ImportPath: r("planning"), Module: mod(modulePath), Imports: []string{r("markdown")}},
		pkg{ImportPath: r("planning/conversation"), Module: mod(modulePath), Imports: []string{r("markdown"), r("internal/fsutil")}},
		pkg{ImportPath: r("markdown"), Module: mod(modulePath), Imports: []string{"fmt", "github.com/yuin/goldmark"}},
		pkg{ImportPath: r("internal/fsutil"), Module: mod(modulePath), Imports: []string{"github.com/gofrs/flock", "github.com/google/renameio/v2"}},
		pkg{ImportPath: r("engine/internal/watch"), Module: mod(modulePath), Imports: []string{"github.com/fsnotify/fsnotify"}},
		pkg{ImportPath: r("engine/internal/gitstore"), Module: mod(modulePath), Imports: []string{"github.com/go-git/go-git/v5/plumbing"}},
		pkg{ImportPath: r("internal/sharedtest"), Module: mod(modulePath), Imports: []string{"fmt"}},
	)
	if got := check(good, importRules(), moduleRules()); len(got) != 0 {
		t.Errorf("a graph that follows the rules gives violations:\n%s", strings.Join(got, "\n"))
	}

	bad := append(slices.Clone(third),
		pkg{ImportPath: r("cmd/recite"), Module: mod(modulePath), Imports: []string{r("engine"), r("planning")}},
		pkg{ImportPath: r("engine"), Module: mod(modulePath), Imports: []string{"github.com/go-git/go-git/v5/plumbing", "github.com/gofrs/flock", r("engine/mcp")}},
		pkg{ImportPath: r("engine/prompt"), Module: mod(modulePath), Imports: []string{r("engine/layers")}},
		pkg{ImportPath: r("planning"), Module: mod(modulePath), Imports: []string{r("engine/signals"), r("internal/sharedtest")}},
		pkg{ImportPath: r("markdown"), Module: mod(modulePath), Imports: []string{r("planning")}},
		pkg{ImportPath: r("engine/internal/watch"), Module: mod(modulePath), Imports: []string{r("markdown"), "github.com/google/renameio/v2"}},
		pkg{ImportPath: r("engine/orchestra"), Module: mod(modulePath)},
		pkg{ImportPath: r("engine/config"), Module: mod(modulePath), Imports: []string{"github.com/invopop/jsonschema"}},
	)
	want := []string{
		"cmd/recite imports planning: " + mayImport("cmd/recite", []string{"engine", "engine/mcp"}),
		"engine imports engine/mcp: " + mayImport("engine", ruleFor("engine", importRules()).may),
		"engine imports github.com/go-git/go-git/v5/plumbing: only engine/internal/gitstore/... may import github.com/go-git/go-git/v5",
		"engine imports github.com/gofrs/flock: only internal/fsutil may import github.com/gofrs/flock",
		"engine/config imports github.com/invopop/jsonschema: only tests may import github.com/invopop/jsonschema",
		"engine/internal/watch imports github.com/google/renameio/v2: only internal/fsutil may import github.com/google/renameio/v2",
		"engine/internal/watch imports markdown: engine/internal/watch may import no project package",
		"engine/orchestra: no import rule covers this package",
		"engine/prompt imports engine/layers: " + mayImport("engine/prompt", ruleFor("engine/prompt", importRules()).may),
		"markdown imports planning: markdown may import no project package",
		"planning imports engine/signals: " + mayImport("planning", ruleFor("planning", importRules()).may),
		"planning imports internal/sharedtest: internal/sharedtest is test support, for tests only",
	}
	if got := check(bad, importRules(), moduleRules()); !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
