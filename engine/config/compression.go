package config

// Compression is the `compression` block of recite.yaml.
type Compression struct{}

// fill sets defaults for zero values.
func (x *Compression) fill() {}

// validate reports a bad value with its line.
func (x *Compression) validate(fail failFunc) error { return nil }
