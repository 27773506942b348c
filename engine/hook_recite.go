package engine

import (
	"context"

	"github.com/recite-dev/recite/engine/config"
)

// ReciteEvery is hooks.recite_every of recite.yaml (config.Hooks.Every):
// how often the Claude Code hook repeats an unchanged recitation at a
// prompt, 0 for never; config.DefaultReciteEvery when the configuration
// does not load (the hook's Recitation reports why).
func (h hookEngine) ReciteEvery() int {
	cfg, _, err := config.Load(h.e.dir)
	if err != nil {
		return config.DefaultReciteEvery
	}
	return cfg.Hooks.Every()
}

// RecordStatusSummary rewrites the status summary `recite statusline`
// prints from (Engine.RecordStatusSummary).
func (h hookEngine) RecordStatusSummary(ctx context.Context) error {
	return h.e.RecordStatusSummary(ctx)
}
