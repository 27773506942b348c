// Package fsutil owns the few filesystem operations recite needs to be
// exact about on every platform: atomic whole-file writes (WriteFile),
// advisory file locks (TryLock) and bounded JSON Lines files that keep only
// their newest records (ReadJSONL, AppendJSONLRing), and writes over a
// file in place for caches that carry their own checksum (Overwrite).
//
// It is the one place that imports github.com/google/renameio and
// github.com/gofrs/flock. It imports no package of this module, so every
// package (engine, engine/signals, planning/conversation) may import it.
package fsutil
