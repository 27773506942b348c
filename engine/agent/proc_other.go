//go:build !unix

package agent

import "os/exec"

// setProcessGroup is a no-op where process groups are not available;
// cancellation kills the shell only.
func setProcessGroup(cmd *exec.Cmd) {}
