//go:build !linux

package fcmemu

import "os/exec"

func lockThreadForChild() {}

// setParentDeathSignal does nothing outside Linux: there the emulator is stopped by Close
// (t.Cleanup), and by the terminal's SIGINT on Ctrl-C, but not when the test process is killed.
func setParentDeathSignal(cmd *exec.Cmd) {}
