package planning

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// GSD's project_code option (get-shit-done 1.31, `.planning/config.json`)
// prefixes every phase folder it creates with the code and a hyphen,
// `CTRX-23-pyinstaller/`, while the files inside keep their plain names,
// `23-03-PLAN.md` (cmdPhaseAdd in get-shit-done/bin/lib/phase.cjs; the
// planner's `{padded_phase}-{NN}-PLAN.md` in agents/gsd-planner.md). GSD
// itself strips any prefix of one to six capital letters before a digit,
// whatever the config says (normalizePhaseName in
// get-shit-done/bin/lib/core.cjs), so trees that changed their code, or
// created some folders before the option was honoured everywhere, still
// read (docs/formats.md#phase-folders).

// codePrefixRE is GSD's own project-code prefix: one to six capital letters
// and a hyphen before a digit.
var codePrefixRE = regexp.MustCompile(`^[A-Z]{1,6}-[0-9]`)

// phaseFolderName returns the part of a phase folder's name that starts
// with its phase number: the name without the configured project code and
// its hyphen (`CTRX-23-pyinstaller` with code CTRX), the name itself
// (`23-pyinstaller`), or the name without a GSD-shaped prefix
// (`CK-01-setup`, see codePrefixRE). It returns "" when none of these
// starts with a phase number.
func phaseFolderName(name, code string) string {
	if code != "" && strings.HasPrefix(name, code+"-") {
		if rest := name[len(code)+1:]; NormalizePhase(rest) != "" {
			return rest
		}
	}
	if NormalizePhase(name) != "" {
		return name
	}
	if codePrefixRE.MatchString(name) {
		if rest := name[strings.IndexByte(name, '-')+1:]; NormalizePhase(rest) != "" {
			return rest
		}
	}
	return ""
}

// readProjectCode returns the project_code of GSD's config.json, or "" when
// the tree has no config.json, the key is absent or null. A config.json
// that is not a JSON object, or a project_code that is not a string, is a
// diagnostic with its line, and no code.
func (l *loader) readProjectCode(byPath map[string]*walked) string {
	w, ok := byPath["config.json"]
	if !ok {
		return ""
	}
	data := l.readFile(w)
	if data == nil {
		return ""
	}
	code, line, err := projectCode(data)
	if err != nil {
		l.diag(w.path, line, "%v", err)
	}
	return code
}

// projectCode reads the top-level "project_code" of a JSON object (the last
// one when the key repeats, as JavaScript's JSON.parse does). On error it
// returns the 1-based line the error points to.
func projectCode(data []byte) (code string, line int, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	lineAt := func(off int64) int { return lineOf(data, int(min(max(off, 0), int64(len(data))))) }
	invalid := func(err error) (string, int, error) {
		off := dec.InputOffset()
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = se.Offset
		}
		// A file that stops inside the object is reported at its last
		// written line, in one wording: encoding/json says "unexpected EOF"
		// or "unexpected end of JSON input" depending on the Go release.
		end := len(bytes.TrimRight(data, " \t\r\n"))
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || off >= int64(end) {
			err = errors.New("unexpected end of file")
			off = int64(max(end-1, 0))
		}
		return "", lineAt(off), fmt.Errorf("invalid JSON (project_code not read): %v", err)
	}
	tok, err := dec.Token()
	if err != nil {
		return invalid(err)
	}
	if tok != json.Delim('{') {
		return "", lineAt(dec.InputOffset()), errors.New("not a JSON object (project_code not read)")
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return invalid(err)
		}
		keyLine := lineAt(dec.InputOffset())
		var v any
		if err := dec.Decode(&v); err != nil {
			return invalid(err)
		}
		if key != "project_code" {
			continue
		}
		switch v := v.(type) {
		case string:
			code = v
		case nil:
			code = ""
		default:
			return "", keyLine, fmt.Errorf("project_code is %s, not a string; phase folders are read without it", jsonKind(v))
		}
	}
	if _, err := dec.Token(); err != nil {
		return invalid(err)
	}
	return code, 0, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case []any:
		return "an array"
	}
	return "an object"
}
