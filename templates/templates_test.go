package templates

import (
	"strings"
	"testing"
	"testing/fstest"

	"go.yaml.in/yaml/v3"
)

func TestRoles(t *testing.T) {
	got := strings.Join(Roles(), ",")
	if got != "implementer,reviewer,validator" {
		t.Fatalf("roles %s", got)
	}
	text, src, err := Role(nil, "implementer")
	if err != nil || !strings.Contains(text, "implementer") || src != "recite:templates/roles/implementer.md" {
		t.Fatalf("%q %q %v", text, src, err)
	}
	over := fstest.MapFS{"templates/roles/implementer.md": {Data: []byte("custom")}}
	text, src, err = Role(over, "implementer")
	if err != nil || text != "custom" || src != ".planning/templates/roles/implementer.md" {
		t.Fatalf("override: %q %q %v", text, src, err)
	}
	for _, bad := range []string{"", "../x", "a/b", ".hidden", "nosuch"} {
		if _, _, err := Role(nil, bad); err == nil {
			t.Errorf("role %q accepted", bad)
		}
	}
}

func TestInitConfigIsValidYAML(t *testing.T) {
	for _, fl := range []string{"gsd", "fire"} {
		s, err := Init("recite.yaml", fl)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(s, "{{") {
			t.Fatalf("unfilled placeholder in %s", fl)
		}
		var v map[string]any
		if err := yaml.Unmarshal([]byte(s), &v); err != nil {
			t.Fatalf("%s: %v", fl, err)
		}
	}
	if _, err := Init("recite.yaml", "other"); err == nil {
		t.Fatal("unknown flavor accepted")
	}
	for _, n := range []string{"prompts.gitignore", "gitattributes", "powerignore"} {
		if s, err := Init(n, ""); err != nil || s == "" {
			t.Fatalf("%s: %v", n, err)
		}
	}
}
