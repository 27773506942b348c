// Package slug generates short, URL-safe identifiers.
package slug

import (
	"crypto/rand"
	"math/big"
)

const alphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// Length is the number of characters in a generated slug.
const Length = 7

// New returns a random slug of Length characters from an alphabet without
// look-alike characters (no 0/O, 1/l/I).
func New() (string, error) {
	b := make([]byte, Length)
	max := big.NewInt(int64(len(alphabet)))
	for i := range b {
		n, err := rand.Int(rand.Reader, max)
		if err != nil {
			return "", err
		}
		b[i] = alphabet[n.Int64()]
	}
	return string(b), nil
}
