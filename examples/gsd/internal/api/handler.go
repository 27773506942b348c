// Package api serves the shortlink HTTP API.
package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"

	"example.com/shortlink/internal/slug"
	"example.com/shortlink/internal/store"
)

// New returns the API handler backed by s.
func New(s store.Store) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /links", func(w http.ResponseWriter, r *http.Request) { create(w, r, s) })
	mux.HandleFunc("GET /{slug}", func(w http.ResponseWriter, r *http.Request) { redirect(w, r, s) })
	return mux
}

type createRequest struct {
	URL string `json:"url"`
}

type link struct {
	Slug string `json:"slug"`
	URL  string `json:"url"`
}

func create(w http.ResponseWriter, r *http.Request, s store.Store) {
	var req createRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid JSON body")
		return
	}
	u, err := url.Parse(req.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		writeError(w, http.StatusBadRequest, "url must be an absolute http(s) URL")
		return
	}
	for range 3 {
		sl, err := slug.New()
		if err != nil {
			writeError(w, http.StatusInternalServerError, "cannot generate slug")
			return
		}
		err = s.Put(r.Context(), sl, req.URL)
		if errors.Is(err, store.ErrExists) {
			continue
		}
		if err != nil {
			writeError(w, http.StatusInternalServerError, "cannot store link")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(link{Slug: sl, URL: req.URL})
		return
	}
	writeError(w, http.StatusServiceUnavailable, "slug space congested, retry")
}

func redirect(w http.ResponseWriter, r *http.Request, s store.Store) {
	target, err := s.Get(r.Context(), r.PathValue("slug"))
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusNotFound, "no such link")
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "cannot read link")
		return
	}
	http.Redirect(w, r, target, http.StatusFound)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
