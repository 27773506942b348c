package config

// Files is the `files` block of recite.yaml.
type Files struct{}

// fill sets defaults for zero values.
func (x *Files) fill() {}

// validate reports a bad value with its line.
func (x *Files) validate(fail failFunc) error { return nil }
