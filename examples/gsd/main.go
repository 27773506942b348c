// Command shortlink serves a small URL shortener.
package main

import (
	"flag"
	"log"
	"net/http"

	"example.com/shortlink/internal/api"
	"example.com/shortlink/internal/store"
)

func main() {
	addr := flag.String("addr", ":8080", "listen address")
	flag.Parse()

	h := api.New(store.NewMemory())
	log.Printf("shortlink listening on %s", *addr)
	log.Fatal(http.ListenAndServe(*addr, h))
}
