// Package templates holds recite's embedded text: the role templates that
// open a target's system prompt, the files `recite init` writes, and the
// JSON Schema of recite.yaml.
//
// A project overrides a role template by placing its own copy at
// `.planning/templates/roles/ROLE.md`.
package templates

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed roles/*.md init/* recite.schema.json
var files embed.FS

// Schema returns the JSON Schema (draft-07) of recite.yaml. It is
// generated from engine/config's types and rules, whose tests fail when
// this file is not what they generate (`go generate ./engine/config`
// rewrites it).
func Schema() []byte {
	b, err := files.ReadFile("recite.schema.json")
	if err != nil {
		panic("templates: recite.schema.json is not embedded: " + err.Error())
	}
	return b
}

// Roles lists the built-in role names, sorted.
func Roles() []string {
	entries, _ := fs.ReadDir(files, "roles")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".md"))
	}
	sort.Strings(out)
	return out
}

// Role returns the text of the role template name and where it came from:
// `templates/roles/NAME.md` inside planning (the project's `.planning/`
// folder as an fs.FS; nil to skip) wins over the built-in one. An unknown
// role is an error listing the known ones.
func Role(planning fs.FS, name string) (text, source string, err error) {
	if strings.ContainsAny(name, "/\\") || name == "" || strings.HasPrefix(name, ".") {
		return "", "", fmt.Errorf("invalid role name %q", name)
	}
	rel := "templates/roles/" + name + ".md"
	if planning != nil {
		b, err := fs.ReadFile(planning, rel)
		if err == nil {
			return string(b), ".planning/" + rel, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", "", err
		}
	}
	b, err := files.ReadFile("roles/" + name + ".md")
	if err != nil {
		return "", "", fmt.Errorf("unknown role %q (built in: %s; or add .planning/%s)", name, strings.Join(Roles(), ", "), rel)
	}
	return string(b), "recite:templates/roles/" + name + ".md", nil
}

// Init returns the text of an init scaffold: "recite.yaml" (with flavor
// "gsd" or "fire" selecting comments and defaults), "prompts.gitignore",
// "gitattributes" or "powerignore".
func Init(name, flavor string) (string, error) {
	switch name {
	case "recite.yaml":
		b, err := files.ReadFile("init/recite.yaml")
		if err != nil {
			return "", err
		}
		s := string(b)
		switch flavor {
		case "", "gsd":
			s = strings.ReplaceAll(s, "{{flavor_note}}", "GSD layout: PROJECT.md, ROADMAP.md, STATE.md, phases/NN-slug/NN-MM-PLAN.md")
		case "fire":
			s = strings.ReplaceAll(s, "{{flavor_note}}", "fire-flow layout: VISION.md, CONSCIENCE.md, BLOCKERS.md, phases/N-name/N-NN-BLUEPRINT.md, loops/")
		default:
			return "", fmt.Errorf("unknown flavor %q (want gsd or fire)", flavor)
		}
		return s, nil
	case "prompts.gitignore", "gitattributes", "powerignore":
		b, err := files.ReadFile("init/" + name)
		return string(b), err
	}
	return "", fmt.Errorf("no init template %q", name)
}
