package signals

import (
	"regexp"
	"strings"
)

// wordRules are the agent's own words for a block or a failed approach,
// in lower case, as an assistant writes them in prose (fromText applies
// them outside fenced code, with inline code spans blanked).
type wordRules struct {
	blocked, stuck, failed, givingUp, still, negated, conditional, code *regexp.Regexp
	// byWork matches what follows "blocked" when a piece of work blocks
	// it ("blocked by #7", "blocked by the schema review").
	byWork *regexp.Regexp
}

func newWordRules() *wordRules {
	return &wordRules{
		// "I'm blocked", "we are still blocked", "this is blocked on the
		// API key", "blocked until the DBA replies". Not "unblocked" (no
		// word boundary), not "the request is blocked by CORS" (an error
		// described: the subject is not the agent or its work), not "not
		// blocked" / "isn't blocked" (negated).
		// "My UI tasks (#12, #13, #14) are all blocked by #7": work items
		// as the subject, with a parenthesis of references.
		blocked: regexp.MustCompile(`(?i)\b(?:(?:I|we|they|this|it|that|everything|the (?:task|work|change|fix|plan|migration|deploy(?:ment)?|release)|(?:(?:my|our|the|these|those|all|both|remaining) )+(?:[\w-]+ )?(?:tasks?|issues?|PRs?|tickets?|steps?|items?|stories|subtasks?|phases?|plans?|features?|changes))(?: \([^)]*\))?(?:'m|'re|'s| am| are| is| was| were| remain| remains| stay| stays)(?: all| both| still| now| currently| completely| fully| totally| effectively)* blocked\b|blocked (?:on|until|waiting)\b)`),
		byWork:  regexp.MustCompile(`(?i)^ by (?:#\d+|tasks? #?\d+|issues? #?\d+|PR #?\d+|BLOCKER-\d+|(?:the |that |this )?(?:[\w-]+ )?(?:task|issue|PR|pull request|ticket|step|phase|plan|migration|review|approval|decision|deploy(?:ment)?|release|fix|work)\b)`),
		// "I'm stuck", "we've been stuck on this".
		stuck: regexp.MustCompile(`(?i)\b(?:I|we)(?:'m|'re| am| are|'ve been| have been)(?: still| really| completely| kind of| a bit| now)? stuck\b`),
		// "this doesn't work", "that approach didn't work either", "the fix
		// isn't working".
		failed: regexp.MustCompile(`(?i)\b(?:this|that|it|the (?:fix|approach|change|workaround|patch|idea|attempt))(?: approach| fix| change| workaround| idea| attempt)?(?: still| also)? (?:doesn't|does not|didn't|did not|isn't|is not|wasn't|was not|won't|will not)(?: seem to| actually| really)? (?:work|working|help|helping|fix it)\b`),
		// "giving up on this approach", "I'll abandon that approach".
		givingUp: regexp.MustCompile(`(?i)\b(?:giving up on|give up on|abandon(?:ing)?) (?:this|that|the|my|our) (?:approach|idea|path|route|attempt|fix|strategy)\b|\bgiving up on (?:this|that)\b`),
		// "which is why it's still failing", "the build still fails",
		// "tests are still red": what the agent tried did not fix it.
		still:   regexp.MustCompile(`(?i)\b(?:it|this|that|they|(?:the|our|my) (?:[\w-]+ ){0,2}(?:tests?|build|builds|check|checks|CI|job|jobs|pipeline|deploy(?:ment)?|suite|command|query|request|migration|lint|linter|typecheck|server|service|container|pod|step|script|endpoint|page|app))(?:'s|'re| is| are)? still (?:failing|fails|fail|broken|erroring|errors|crashing|crashes|red|not (?:working|passing|starting|running|compiling|loading))\b`),
		negated: regexp.MustCompile(`(?i)\b(?:not|no longer|never|n't)\s+$`),
		// A conditional or a question is no report: "if this doesn't work,
		// …", "check whether it is blocked".
		conditional: regexp.MustCompile(`(?i)\b(?:if|in case|unless|whether|make sure|ensure|until|once|when)\b`),
		code:        regexp.MustCompile("`+[^`\n]*`+"),
	}
}

// match returns the kind and the sentence of line that states a block or
// a failed approach in the agent's words, or "" when none does.
func (w *wordRules) match(line string) (Kind, string) {
	prose := w.code.ReplaceAllStringFunc(line, func(s string) string { return strings.Repeat(" ", len(s)) })
	for _, r := range []struct {
		re   *regexp.Regexp
		kind Kind
	}{{w.blocked, KindBlocked}, {w.stuck, KindBlocked}, {w.givingUp, KindFailedApproach}, {w.failed, KindFailedApproach}, {w.still, KindFailedApproach}} {
		for _, loc := range r.re.FindAllStringIndex(prose, -1) {
			start, end := sentenceAround(prose, loc[0], loc[1])
			before := prose[start:loc[0]]
			after := prose[loc[1]:end]
			if w.negated.MatchString(before) || w.conditional.MatchString(before) || strings.HasSuffix(strings.TrimSpace(after), "?") {
				continue
			}
			if r.kind == KindBlocked && strings.HasPrefix(after, " by ") && !firstPerson(prose[loc[0]:loc[1]]) && !w.byWork.MatchString(after) {
				// "it's blocked by CORS": a thing blocked, an error
				// described; "we're blocked by the missing key" and
				// "the tasks are blocked by #7" stay.
				continue
			}
			return r.kind, strings.TrimSpace(line[start:end])
		}
	}
	return "", ""
}

// sentenceAround returns the bounds of the sentence of s holding [a, b):
// from after the last ". ", "! " or "? " before a to the end of the first
// after b (its punctuation included).
func sentenceAround(s string, a, b int) (int, int) {
	start := 0
	for i := a - 1; i > 0; i-- {
		if (s[i] == ' ' || s[i] == '\t') && (s[i-1] == '.' || s[i-1] == '!' || s[i-1] == '?') {
			start = i + 1
			break
		}
	}
	end := len(s)
	for i := b; i < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t') {
			end = i + 1
			break
		}
	}
	return start, end
}

// firstPerson reports a phrase whose subject is the agent ("I'm …",
// "we are …").
func firstPerson(phrase string) bool {
	f := strings.ToLower(strings.Fields(phrase + " x")[0])
	return f == "i" || f == "i'm" || f == "we" || f == "we're"
}

// MayHoldStop is a cheap gate for callers that scan many long messages
// for the prose rules' signals (blocked, stop, failed approach): it
// reports whether text, written by the agent (an assistant message) or
// not, may hold one. False guarantees that FromMessages finds no such
// signal in the text: it holds no BLOCKED, STUCK or STOP in capitals and,
// in the agent's text, none of the lower-case words the agent's rules
// start from ("blocked", "stuck", "giving up" / "give up" / "abandon",
// "still ", or a negation before "work", "help" or "fix it"). True says only that
// the rules must be run.
func MayHoldStop(text string, agent bool) bool {
	if strings.Contains(text, "BLOCKED") || strings.Contains(text, "STUCK") || strings.Contains(text, "STOP") {
		return true
	}
	if !agent {
		return false
	}
	low := strings.ToLower(text)
	if strings.Contains(low, "blocked") || strings.Contains(low, "stuck") || strings.Contains(low, "give up") ||
		strings.Contains(low, "giving up") || strings.Contains(low, "abandon") || strings.Contains(low, "still ") {
		return true
	}
	return (strings.Contains(low, "n't ") || strings.Contains(low, " not ")) &&
		(strings.Contains(low, "work") || strings.Contains(low, "help") || strings.Contains(low, "fix it"))
}
