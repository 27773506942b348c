package planning

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestPhaseFolderName(t *testing.T) {
	for _, tc := range []struct{ name, code, want string }{
		{"23-pyinstaller", "", "23-pyinstaller"},
		{"CTRX-23-pyinstaller", "CTRX", "23-pyinstaller"},
		{"CTRX-23-pyinstaller", "", "23-pyinstaller"}, // GSD's own prefix rule
		{"XR-02.1-spike", "CTRX", "02.1-spike"},       // another code, as GSD reads it
		{"01-foundation", "CTRX", "01-foundation"},    // folder made before the code
		{"ctrx-23-x", "ctrx", "23-x"},                 // any configured code
		{"ctrx-23-x", "", ""},                         // lower case: not GSD's shape
		{"my-app-3-x", "my-app", "3-x"},               // a configured code with a hyphen
		{"PROJECTX-1-x", "", ""},                      // over six letters
		{"CK-setup", "CK", ""},                        // no number after the code
		{"2024-01-x", "2024", "01-x"},                 // the configured code wins
		{"2024-01-x", "", "2024-01-x"},                //
		{"backlog", "", ""},                           //
		{"CK-1a-gaps", "", "1a-gaps"},                 //
		{"CK-", "CK", ""},                             //
		{"CK-01", "CK", "01"},                         //
		{"-01-x", "", ""},                             //
		{"ABCDEF-9-x", "", "9-x"},                     //
		{"A1-9-x", "", ""},                            //
		{"CK-01-x", "C", "01-x"},                      // C- is no prefix of CK-, GSD's rule reads it
		{"Q-3-x", "Q", "3-x"},                         //
	} {
		if got := phaseFolderName(tc.name, tc.code); got != tc.want {
			t.Errorf("phaseFolderName(%q, %q) = %q, want %q", tc.name, tc.code, got, tc.want)
		}
	}
}

func TestProjectCodeJSON(t *testing.T) {
	for _, tc := range []struct {
		name, src, code string
		line            int
		err             string
	}{
		{"set", `{"mode": "yolo", "project_code": "CTRX"}`, "CTRX", 0, ""},
		{"null", "{\n  \"project_code\": null\n}\n", "", 0, ""},
		{"absent", `{"mode": "yolo", "nested": {"project_code": "NO"}}`, "", 0, ""},
		{"last wins", `{"project_code": "A", "project_code": "B"}`, "B", 0, ""},
		{"number", "{\n  \"mode\": \"yolo\",\n  \"project_code\": 12\n}\n", "", 3, "project_code is a number, not a string"},
		{"array", "{\"project_code\": [\"A\"]}", "", 1, "project_code is an array"},
		{"syntax error", "{\n  \"a\": 1,\n  \"b\" 2\n}\n", "", 3, "invalid JSON (project_code not read)"},
		{"truncated", "{\n  \"project_code\": \"CK\",\n", "", 2, "invalid JSON (project_code not read): unexpected end of file"},
		{"not an object", "[1, 2]", "", 1, "not a JSON object"},
		{"empty", "", "", 1, "invalid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, line, err := projectCode([]byte(tc.src))
			if code != tc.code || line != tc.line || (err == nil) != (tc.err == "") || err != nil && !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("projectCode(%q) = %q, %d, %v; want %q, %d, %q…", tc.src, code, line, err, tc.code, tc.line, tc.err)
			}
		})
	}
}

// TestLoadProjectCode loads real trees written the way GSD writes them with
// project_code set: prefixed phase folders, plain plan names inside.
func TestLoadProjectCode(t *testing.T) {
	roadmap := "# Roadmap\n\n- [x] **Phase 22: Setup** - a\n- [ ] **Phase 23: Pyinstaller** - b\n"
	state := "# Project State\n\n## Current Position\n\nPhase: 23 of 23 (Pyinstaller)\n"
	for _, tc := range []struct {
		name   string
		config string // "" for no config.json
		dirs   [2]string
	}{
		{"configured code", `{"project_code": "CTRX"}`, [2]string{"CTRX-22-setup", "CTRX-23-pyinstaller"}},
		{"GSD-shaped prefix without a config", "", [2]string{"CTRX-22-setup", "CTRX-23-pyinstaller"}},
		{"null code", `{"project_code": null}`, [2]string{"CTRX-22-setup", "CTRX-23-pyinstaller"}},
		{"lower-case configured code", `{"project_code": "ctrx"}`, [2]string{"ctrx-22-setup", "ctrx-23-pyinstaller"}},
		{"mixed: a folder made before the code", `{"project_code": "CTRX"}`, [2]string{"22-setup", "CTRX-23-pyinstaller"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{
				"ROADMAP.md": roadmap, "STATE.md": state,
				"phases/" + tc.dirs[0] + "/22-01-PLAN.md":    "# Plan 22-01\n\n- [x] scaffold\n",
				"phases/" + tc.dirs[0] + "/22-01-SUMMARY.md": "# Summary\n",
				"phases/" + tc.dirs[1] + "/23-01-PLAN.md":    "# Plan 23-01: Spec\n\n- [x] write the spec file\n",
				"phases/" + tc.dirs[1] + "/23-01-SUMMARY.md": "# Summary\n",
				"phases/" + tc.dirs[1] + "/23-02-PLAN.md":    "# Plan 23-02: Build\n\n- [ ] run pyinstaller\n",
			}
			if tc.config != "" {
				files["config.json"] = tc.config
			}
			p := load(t, writeTree(t, files))
			if len(p.Diagnostics) != 0 {
				t.Errorf("diagnostics %v", p.Diagnostics)
			}
			if len(p.Phases) != 2 {
				t.Fatalf("phases %+v", p.Phases)
			}
			for i, want := range []struct {
				dir, name string
				plans     int
			}{{tc.dirs[0], "Setup", 1}, {tc.dirs[1], "Pyinstaller", 2}} {
				ph := p.Phases[i]
				if ph.Dir != "phases/"+want.dir || ph.Name != want.name || len(ph.Plans) != want.plans {
					t.Errorf("phase %s: dir %q name %q plans %d; want %q %q %d", ph.Number, ph.Dir, ph.Name, len(ph.Plans), "phases/"+want.dir, want.name, want.plans)
				}
			}
			if p.CurrentPhase == nil || p.CurrentPhase.Number != "23" || p.CurrentPhase.Status != StatusInProgress {
				t.Fatalf("current phase %+v", p.CurrentPhase)
			}
			if pl := p.CurrentPlan; pl == nil || pl.Path != "phases/"+tc.dirs[1]+"/23-02-PLAN.md" || pl.Title != "Plan 23-02: Build" {
				t.Fatalf("current plan %+v", pl)
			}
			if p.NextTask == nil || p.NextTask.Text != "run pyinstaller" {
				t.Errorf("next task %+v", p.NextTask)
			}
		})
	}
}

// TestLoadUnplacedPhaseFiles: every plan or summary file under phases/
// that recite cannot place in a phase is a diagnostic naming where it is.
func TestLoadUnplacedPhaseFiles(t *testing.T) {
	p := load(t, writeTree(t, map[string]string{
		"config.json":                            `{"project_code": "CTRX"}`,
		"phases/CTRX-01-a/01-01-PLAN.md":         "# a\n",
		"phases/CTRX-01-a/waves/W0-SUMMARY.md":   "# w0\n",
		"phases/CTRX-01-a/waves/W1-SUMMARY.md":   "# w1\n",
		"phases/CTRX-01-a/old/x/01-02-PLAN.md":   "# deep\n",
		"phases/CTRX-01-a/plans/01-03-PLAN.md":   "# nested, read\n",
		"phases/CTRX-01-a/research/NOTES.md":     "# not a plan: silent\n",
		"phases/ctrx-02-b/02-01-PLAN.md":         "# b\n",
		"phases/ctrx-02-b/02-01-SUMMARY.md":      "# b\n",
		"phases/backlog/ideas.md":                "# not a phase folder: silent\n",
		"phases/PLAN.md":                         "# loose\n",
		"phases/03-PLAN.md":                      "# loose, numbered: read\n",
		"phases/CTRX-04-empty/.gitkeep":          "",
		"quick/001-fix/001-PLAN.md":              "# quick tasks are not phases\n",
		"phases/CTRX-01-a/01-01-VERIFICATION.md": "# placed as unknown\n",
	}))
	want := []string{
		"phases/CTRX-01-a/old/x: 1 plan or summary file (01-02-PLAN.md) in a subfolder of a phase folder is not read: plans are read from the phase folder and its plans/ folder only",
		"phases/CTRX-01-a/waves: 2 plan or summary files (W0-SUMMARY.md, …) in a subfolder of a phase folder are not read: plans are read from the phase folder and its plans/ folder only",
		"phases/PLAN.md: plan or summary file directly in phases/ whose name has no phase number; not placed in any phase",
		"phases/ctrx-02-b: folder name has no phase number (want NN-slug or CODE-NN-slug; project_code CTRX from config.json); its 2 plan or summary files (02-01-PLAN.md, …) are not read",
	}
	var got []string
	for _, d := range p.Diagnostics {
		got = append(got, d.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var phases []string
	for _, ph := range p.Phases {
		phases = append(phases, fmt.Sprintf("%s %s %d", ph.Number, ph.Dir, len(ph.Plans)))
	}
	if s := strings.Join(phases, "; "); s != "1 phases/CTRX-01-a 2; 3  1; 4 phases/CTRX-04-empty 0" {
		t.Errorf("phases %s", s)
	}
}

// FuzzProjectCode: no config.json makes projectCode panic; an error's line
// is within the file, and a code comes only without an error.
func FuzzProjectCode(f *testing.F) {
	for _, s := range []string{`{"project_code": "CTRX"}`, `{"project_code": null}`, "{\n\"project_code\": 1\n}", "{\n\"a\" 1}", "[]", "", `{"project_code": "A", "x": {"y": [1, {"z": null}]}}`, "\xef\xbb\xbf{}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		code, line, err := projectCode(src)
		if err == nil {
			if line != 0 {
				t.Fatalf("%q: line %d without an error", src, line)
			}
			return
		}
		if code != "" {
			t.Fatalf("%q: code %q with error %v", src, code, err)
		}
		if lines := bytes.Count(src, []byte{'\n'}) + 1; line < 1 || line > lines {
			t.Fatalf("%q: line %d outside 1..%d (%v)", src, line, lines, err)
		}
	})
}

// FuzzPhaseFolderName: whatever the folder name and code, the result is ""
// or a suffix of the name that starts with a phase number.
func FuzzPhaseFolderName(f *testing.F) {
	for _, s := range [][2]string{{"CTRX-23-pyinstaller", "CTRX"}, {"CK-01-x", ""}, {"01-x", "CK"}, {"my-app-3-x", "my-app"}, {"-", "-"}, {"", ""}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, name, code string) {
		got := phaseFolderName(name, code)
		if got != "" && (!strings.HasSuffix(name, got) || NormalizePhase(got) == "") {
			t.Fatalf("phaseFolderName(%q, %q) = %q", name, code, got)
		}
	})
}
