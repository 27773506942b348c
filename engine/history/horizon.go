package history

import "github.com/recite-dev/recite/planning/conversation"

// The horizon of a conversation: how much of its log a build, a status, a
// preservation block and compression read, through the log's index, from
// the newest record back (docs/architecture.md#long-conversations). What
// lies beyond it reaches them only through the index: the counts of
// Conversation.Earlier, the ledger of Conversation.Signals (the newest
// records naming a stop word, and the newest failed results), and the
// merged metadata.
const (
	// HorizonMessages is how many of the newest messages are read, with the
	// iteration records among them.
	HorizonMessages = 1000
	// HorizonBytes bounds the log lines read, in bytes.
	HorizonBytes = 8 << 20
	// AnchorStep is the step, in messages of the log, of the point the
	// pruned history starts from when the log is longer than the horizon
	// (Anchor): the horizon's start moves by one message per message, the
	// history's start only every AnchorStep messages, so the eviction
	// marks, which count from it, stay put in between
	// (docs/formats.md#cache-aware-eviction).
	AnchorStep = 256
)

// Horizon returns the window a build reads of a conversation: the newest
// HorizonMessages messages, or keep when the history strategy keeps more
// (recite.yaml history.window or history.keep), and AnchorStep more, within
// HorizonBytes.
func Horizon(keep int) conversation.WindowOptions {
	return conversation.WindowOptions{Messages: max(HorizonMessages, keep) + AnchorStep, MaxBytes: HorizonBytes}
}

// Anchor returns how many of the first messages of a window to leave out
// of the history so that it starts at a multiple of AnchorStep of the
// whole log: earlier is how many messages the log holds before the window
// (Conversation.Earlier.Messages); 0 for a whole conversation.
func Anchor(earlier int) int {
	if earlier <= 0 {
		return 0
	}
	return (earlier+AnchorStep-1)/AnchorStep*AnchorStep - earlier
}
