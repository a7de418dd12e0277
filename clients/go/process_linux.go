package fcmemu

import (
	"os/exec"
	"runtime"
	"syscall"
)

// lockThreadForChild keeps the calling goroutine on its OS thread for good: the thread that forks
// the emulator must live as long as the emulator, since the parent-death signal is tied to it.
func lockThreadForChild() { runtime.LockOSThread() }

// setParentDeathSignal makes the kernel send SIGTERM to the emulator when the test process dies,
// however it dies (a failed or timed-out test, SIGKILL).
func setParentDeathSignal(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
}
