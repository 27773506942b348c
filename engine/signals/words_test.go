package signals

import "testing"

// TestAgentWords: the agent's own lower-case words for a block or a
// failed approach, both ways: what is one and what merely looks like one.
func TestAgentWords(t *testing.T) {
	tests := []struct {
		text string
		kind Kind
		sig  string // the signal's text; "" when none
	}{
		{"I'm blocked on the Stripe test key.", KindBlocked, "I'm blocked on the Stripe test key."},
		{"We are still blocked until the DBA replies. Meanwhile I'll write docs.", KindBlocked, "We are still blocked until the DBA replies."},
		{"The migration is blocked on the schema review.", KindBlocked, "The migration is blocked on the schema review."},
		{"This is blocked by the missing credentials.", "", ""},
		{"We're blocked by the missing credentials.", KindBlocked, "We're blocked by the missing credentials."},
		{"I'm stuck: the test passes locally and fails in CI.", KindBlocked, "I'm stuck: the test passes locally and fails in CI."},
		{"I've been stuck on this for three attempts.", KindBlocked, "I've been stuck on this for three attempts."},
		{"Hmm, this doesn't work either. Let me try the raw SQL.", KindFailedApproach, "Hmm, this doesn't work either."},
		{"That approach didn't work: the mock hides the bug.", KindFailedApproach, "That approach didn't work: the mock hides the bug."},
		{"The fix isn't working on Windows.", KindFailedApproach, "The fix isn't working on Windows."},
		{"I'm giving up on this approach and reverting to polling.", KindFailedApproach, "I'm giving up on this approach and reverting to polling."},
		{"My UI tasks (#12, #13, #14) are all blocked by #7, so I'll start on the API.", KindBlocked, "My UI tasks (#12, #13, #14) are all blocked by #7, so I'll start on the API."},
		{"The remaining tasks are blocked by the schema review.", KindBlocked, "The remaining tasks are blocked by the schema review."},
		{"The cache key still differs per run, which is why it's still failing.", KindFailedApproach, "The cache key still differs per run, which is why it's still failing."},
		{"I bumped the timeout but the e2e tests are still failing on CI.", KindFailedApproach, "I bumped the timeout but the e2e tests are still failing on CI."},
		{"The build still fails with the same linker error.", KindFailedApproach, "The build still fails with the same linker error."},
		// Not signals.
		{"Task #7 blocks my UI tasks, which are done otherwise.", "", ""},
		{"The tasks were blocked by the browser's popup blocker.", "", ""},
		{"If the build is still failing after the cache clear, I'll pin the version.", "", ""},
		{"The tests are no longer failing.", "", ""},
		{"Is it still failing?", "", ""},
		{"It still works after the refactor.", "", ""},
		{"The request is blocked by CORS: no Access-Control-Allow-Origin header.", "", ""},
		{"It's blocked by the browser's CORS policy.", "", ""},
		{"This unblocks typecheck.", "", ""},
		{"The port was unblocked after the restart.", "", ""},
		{"I'm not blocked anymore.", "", ""},
		{"We are no longer blocked on the key.", "", ""},
		{"If this doesn't work, we can fall back to polling.", "", ""},
		{"Does this work on Windows?", "", ""},
		{"Check whether it is blocked by a firewall.", "", ""},
		{"The `blocked` column marks it; `this doesn't work` is a test name.", "", ""},
		{"The process is stuck at 100% CPU.", "", ""},
		{"The test checks that expired tokens are blocked.", "", ""},
	}
	w := newWordRules()
	for _, tt := range tests {
		kind, text := w.match(tt.text)
		if kind != tt.kind || text != tt.sig {
			t.Errorf("%q: %q %q, want %q %q", tt.text, kind, text, tt.kind, tt.sig)
		}
		// The gate never hides a signal of the rules.
		if kind != "" && !MayHoldStop(tt.text, true) {
			t.Errorf("MayHoldStop(%q) = false for a %s signal", tt.text, kind)
		}
	}
	for _, text := range []string{"STOP: do not touch the migrations", "- BLOCKED waiting on keys", "we are STUCK"} {
		if !MayHoldStop(text, false) {
			t.Errorf("MayHoldStop(%q, user) = false", text)
		}
	}
	for text, agent := range map[string]bool{"Lint passes locally with no issues.": true, "Here is the summary of the PR.": true, "this doesn't work, I'm blocked on it": false} {
		if MayHoldStop(text, agent) {
			t.Errorf("MayHoldStop(%q, %v) = true", text, agent)
		}
	}
	// In an assistant message, outside code; never in a user message,
	// where it is the user's prose (the capitals rules still apply).
	msgs := []Message{
		{ID: "a", Role: "assistant", Content: "Tried mocking.\n```\nthis doesn't work // a code comment\n```\nThis doesn't work either."},
		{ID: "u", Role: "user", Content: "this doesn't work, I'm blocked on it"},
	}
	sigs := FromMessages(msgs)
	if len(sigs) != 1 || sigs[0].Kind != KindFailedApproach || sigs[0].Text != "This doesn't work either." || sigs[0].Source != "a" {
		t.Errorf("FromMessages = %+v", sigs)
	}
}
