package prompt

import "fmt"

// validateBody runs Check on a rendered body, offline, and joins its
// problems into one error. Every rendered body in the tests goes through it.
func validateBody(provider string, body []byte) error {
	if probs := Check(provider, body, CheckOptions{}); len(probs) > 0 {
		return fmt.Errorf("%v", probs)
	}
	return nil
}
