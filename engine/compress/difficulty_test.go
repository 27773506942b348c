package compress

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRouteKeywordWords checks that routing keywords match whole words and
// their plain inflections, not prefixes, and that words with an everyday
// sense (signature, schema, logging, injection) need their context. Every
// task names one file, so a task no keyword matches is SIMPLE.
func TestRouteKeywordWords(t *testing.T) {
	tests := []struct {
		name string
		text string
		file string
		// why is the keyword reason wanted; "" means none at all.
		why string
	}{
		// Ordinary words the prefix matching routed to COMPLEX.
		{"author is not auth", "Fix the author name in README.md", "README.md", ""},
		{"function signature", "Rename the signature of helper", "src/helper.go", ""},
		{"one log line", "Add logging line to the handler", "src/handler.go", ""},
		{"schema link in docs", "Update the schema link in docs", "docs/index.md", ""},
		{"authoring and authoritative", "Keep the authoring notes authoritative", "docs/notes.md", ""},
		{"secretary", "List the secretary of each club", "src/club.go", ""},
		{"changed signature", "Change the function signature of parse to return an error", "src/parse.go", ""},
		{"dependency injection", "Pass the clock by constructor injection", "src/clock.go", ""},
		{"validation schema", "Reject payloads the zod schema refuses", "src/input.ts", ""},
		{"later part of a compound", "Add non-secret platform settings", "src/settings.ts", ""},
		{"package name", "Typecheck @norish/db-schema consumers", "src/types.ts", ""},
		{"component names", "Fix padding in the user-permissions table", "src/table.tsx", ""},
		{"library name", "Rename the next-auth import", "src/app.ts", ""},
		{"no schema change", "Move recipes between cookbooks. No schema change.", "src/move.ts", ""},

		// Real security, architecture and cross-cutting tasks.
		{"jwt authentication", "Add JWT authentication middleware", "src/mw.go", "security: auth"},
		{"authenticate", "Authenticate requests with the session cookie", "src/mw.go", "security: auth"},
		{"authorized", "Only authorized users may delete invoices", "src/invoice.go", "security: auth"},
		{"authed compound", "Call authedProcedure for the households router", "src/router.ts", "security: auth"},
		{"secret", "Rotate the API secret", "src/config.go", "security: secret"},
		{"passwords", "Store passwords hashed", "src/user.go", "security: password"},
		{"encrypted", "Keep backups encrypted at rest", "src/backup.go", "security: encrypt"},
		{"vulnerabilities", "Fix vulnerabilities in the parser", "src/parse.go", "security: vulnerable"},
		{"sanitizing", "Sanitizing user input before rendering", "src/render.go", "security: sanitize"},
		{"security compound", "Run the security-critical check", "src/check.go", "security: security"},
		{"webhook signature", "Verify the webhook signature before paging", "src/hook.ts", "security: signature"},
		{"sql injection", "Guard the search box against SQL injection", "src/search.go", "security: injection"},
		{"securely", "Store the API tokens securely", "src/tokens.go", "security: secure"},
		{"passwordless", "Add passwordless login", "src/login.go", "security: password"},
		{"insecure", "Replace the insecure cookie flags", "src/cookie.go", "security: secure"},
		{"unauthorized", "Return 403 for unauthorized requests", "src/mw.go", "security: auth"},
		{"hyphenated header", "Set the Content-Security-Policy header", "src/headers.go", "security: security"},
		{"database schema", "Migrate the database schema", "db/schema.sql", "architecture: schema"},
		{"schema by file", "Add the invoices columns", "src/db/schema.ts", "architecture: schema"},
		{"schema and table", "Add the invoices table to the schema", "src/model.go", "architecture: schema"},
		{"migrated", "Move the migrated rows", "src/rows.go", "architecture: migrate"},
		{"architecture", "Refactor the architecture of the plugin loader", "src/plugin.go", "architecture: architecture"},
		{"logging in every handler", "Structured logging in every handler", "src/log.ts", "cross-cutting: logging"},
		{"logging across services", "Add logging across all services", "src/log.ts", "cross-cutting: logging"},
		{"localized", "Show localized labels", "src/labels.ts", "cross-cutting: localize"},
		{"i18n", "Add the i18n keys", "src/messages.ts", "cross-cutting: i18n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Route(Task{Text: tt.text, Files: []string{tt.file}})
			var got []string
			for _, why := range r.Reasons {
				for _, p := range []string{"security: ", "architecture: ", "cross-cutting: "} {
					if strings.HasPrefix(why, p) {
						got = append(got, why)
					}
				}
			}
			switch {
			case tt.why == "" && (r.Level != Simple || len(got) > 0):
				t.Errorf("Route(%q) = %s, want SIMPLE (1 file) with no keyword", tt.text, r)
			case tt.why != "" && (r.Level != Complex || len(got) == 0 || got[0] != tt.why):
				t.Errorf("Route(%q) = %s, want COMPLEX with %q first", tt.text, r, tt.why)
			}
		})
	}
}

// TestInflects checks the inflections a keyword accepts.
func TestInflects(t *testing.T) {
	tests := []struct {
		w, stem string
		want    bool
	}{
		{"auth", "auth", true},
		{"auths", "auth", true},
		{"authed", "auth", true},
		{"author", "auth", false},
		{"authority", "auth", false},
		{"schemas", "schema", true},
		{"migrates", "migrate", true},
		{"migrated", "migrate", true},
		{"migrating", "migrate", true},
		{"migration", "migrate", false},
		{"verifies", "verify", true},
		{"verified", "verify", true},
		{"verifying", "verify", true},
		{"passes", "pass", true},
		{"encryption", "encrypt", false},
		{"secretary", "secret", false},
		{"keys", "key", true},
	}
	for _, tt := range tests {
		if got := inflects(tt.w, tt.stem); got != tt.want {
			t.Errorf("inflects(%q, %q) = %v, want %v", tt.w, tt.stem, got, tt.want)
		}
	}
}

// TestHeadPart checks where compound words split.
func TestHeadPart(t *testing.T) {
	tests := []struct{ in, want string }{
		{"auth", "auth"},
		{"authKit", "auth"},
		{"AuthProvidersCard", "auth"},
		{"security-critical", "security"},
		{"non-secret", "non"},
		{"HTTPServer", "http"},
		{"oauth2", "oauth2"},
		{"i18n", "i18n"},
		{"WORKOS", "workos"},
		{"getRecipePermissionPolicy", "get"},
	}
	for _, tt := range tests {
		if got := headPart(tt.in); got != tt.want {
			t.Errorf("headPart(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestDifficultyJSON checks that a difficulty reads as its name in JSON, as
// relevance, heat and budget level do in `recite status --json`.
func TestDifficultyJSON(t *testing.T) {
	for _, tt := range []struct {
		d    Difficulty
		want string
	}{{Simple, "SIMPLE"}, {Moderate, "MODERATE"}, {Complex, "COMPLEX"}} {
		b, err := json.Marshal(Routing{Level: tt.d, Reasons: []string{"1 file"}})
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"level":"` + tt.want + `","reasons":["1 file"]}`; string(b) != want {
			t.Errorf("json %s, want %s", b, want)
		}
		if tt.d.String() != tt.want {
			t.Errorf("String() = %q, want %q", tt.d.String(), tt.want)
		}
	}
	if b, err := json.Marshal(Difficulty(7)); err == nil {
		t.Errorf("json of Difficulty(7) = %s, want an error", b)
	}
}
