package config

// CircuitBreaker is the `circuit_breaker` block of recite.yaml.
type CircuitBreaker struct{}

// fill sets defaults for zero values.
func (x *CircuitBreaker) fill() {}

// validate reports a bad value with its line.
func (x *CircuitBreaker) validate(fail failFunc) error { return nil }
