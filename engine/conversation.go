package engine

import (
	"context"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/planning"
)

// conversationInput fills the conversation parts of a target's prompt
// input: the pruned history tail and the coordinator's context layers.
func (e *Engine) conversationInput(ctx context.Context, cfg *config.Config, tg *config.Target, proj *planning.Project, in *prompt.Input) []Diagnostic {
	return nil
}
