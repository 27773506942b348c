package store

import (
	"context"
	"sync"
)

// Memory is an in-memory Store, safe for concurrent use.
type Memory struct {
	mu    sync.RWMutex
	links map[string]string
}

// NewMemory returns an empty Memory store.
func NewMemory() *Memory {
	return &Memory{links: make(map[string]string)}
}

// Put stores url under slug; it returns ErrExists if slug is taken.
func (m *Memory) Put(_ context.Context, slug, url string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.links[slug]; ok {
		return ErrExists
	}
	m.links[slug] = url
	return nil
}

// Get returns the URL stored under slug, or ErrNotFound.
func (m *Memory) Get(_ context.Context, slug string) (string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	url, ok := m.links[slug]
	if !ok {
		return "", ErrNotFound
	}
	return url, nil
}
