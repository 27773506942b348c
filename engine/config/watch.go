package config

// Watch is the `watch` block of recite.yaml.
type Watch struct{}

// fill sets defaults for zero values.
func (x *Watch) fill() {}

// validate reports a bad value with its line.
func (x *Watch) validate(fail failFunc) error { return nil }
