// Package store keeps the slug → URL mapping.
package store

import (
	"context"
	"errors"
)

// ErrNotFound is returned by Get for an unknown slug.
var ErrNotFound = errors.New("store: slug not found")

// ErrExists is returned by Put when the slug is already taken.
var ErrExists = errors.New("store: slug already exists")

// Store is implemented by every link store.
type Store interface {
	Put(ctx context.Context, slug, url string) error
	Get(ctx context.Context, slug string) (string, error)
}
