//go:build windows

package fsutil

import "errors"

func mkfifo(string) error { return errors.New("no named pipes") }
