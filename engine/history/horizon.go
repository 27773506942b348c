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
)

// Horizon returns the window a build reads of a conversation: the newest
// HorizonMessages messages, or keep when the history strategy keeps more
// (recite.yaml history.window or history.keep), within HorizonBytes.
func Horizon(keep int) conversation.WindowOptions {
	return conversation.WindowOptions{Messages: max(HorizonMessages, keep), MaxBytes: HorizonBytes}
}
