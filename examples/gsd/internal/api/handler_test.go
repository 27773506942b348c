package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"example.com/shortlink/internal/store"
)

func TestCreateAndRedirect(t *testing.T) {
	h := New(store.NewMemory())

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/links", strings.NewReader(`{"url":"https://go.dev/doc/"}`)))
	if rec.Code != http.StatusCreated {
		t.Fatalf("POST /links: got status %d, want 201", rec.Code)
	}
	var got link
	if err := json.NewDecoder(rec.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}

	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/"+got.Slug, nil))
	if rec.Code != http.StatusFound {
		t.Fatalf("GET /%s: got status %d, want 302", got.Slug, rec.Code)
	}
	if loc := rec.Header().Get("Location"); loc != "https://go.dev/doc/" {
		t.Errorf("Location = %q", loc)
	}
}

func TestCreateRejectsRelativeURL(t *testing.T) {
	h := New(store.NewMemory())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/links", strings.NewReader(`{"url":"/etc/passwd"}`)))
	if rec.Code != http.StatusBadRequest {
		t.Fatalf("got status %d, want 400", rec.Code)
	}
}
