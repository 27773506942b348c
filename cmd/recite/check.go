package main

import (
	"context"
	"fmt"
	"io"

	"github.com/recite-dev/recite/engine"
)

// checkRendered validates one rendered body (render --check): each
// problem goes to w, and any problem is a failed check (exit 1).
func checkRendered(e *engine.Engine, w io.Writer, target, provider string, body []byte) error {
	probs, err := e.CheckBody(target, provider, body)
	if err != nil {
		return err
	}
	for _, p := range probs {
		fmt.Fprintf(w, "rejected: target %s: %s\n", target, p)
	}
	if len(probs) > 0 {
		return checkFailed{fmt.Sprintf("the %s body of target %q would be rejected (%d problems)", provider, target, len(probs))}
	}
	return nil
}

// checkBuilt validates every file a build wrote or kept (build --check).
func checkBuilt(ctx context.Context, e *engine.Engine, w io.Writer, rep *engine.Report) error {
	probs, err := e.CheckBuild(ctx, rep)
	if err != nil {
		return err
	}
	for _, p := range probs {
		fmt.Fprintf(w, "rejected: %s\n", p)
	}
	if len(probs) > 0 {
		return checkFailed{fmt.Sprintf("%d problems in the prompt files: a provider would reject them", len(probs))}
	}
	return nil
}
