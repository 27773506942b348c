package config

// Conversations is the `conversations` block of recite.yaml: how
// conversation logs are written.
//
//	conversations:
//	  keep_raw: false  # true: keep the raw text in .planning/.recite/raw/
//
// Every record recite writes to a log has its secrets replaced by
// placeholders, because the logs are committed
// (docs/formats.md#secrets-in-committed-files); KeepRaw keeps each changed record as it was beside the log, in
// a mode-0600 store under .planning/.recite/raw/ that git ignores.
type Conversations struct {
	// KeepRaw keeps the unredacted form of every record whose secrets were
	// replaced (default false).
	KeepRaw bool `yaml:"keep_raw"`
}
