package fcmemu_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	fcmemu "github.com/fcm-emu/fcm-emu/clients/go"
)

func TestStartOnFreePortsAndClose(t *testing.T) {
	ctx := ctxFor(t)
	emu, err := fcmemu.Launch(ctx, fcmemu.WithSetting("deviceRateLimit", "3/1s"))
	if err != nil {
		t.Fatal(err)
	}
	if err := emu.Client().Health(ctx); err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]string{"http": emu.HTTPURL(), "https": emu.HTTPSURL(), "proxy": emu.ProxyURL()} {
		if !strings.Contains(got, "://127.0.0.1:") {
			t.Errorf("%s url %q", name, got)
		}
	}
	if emu.ControlURL() != emu.HTTPURL()+"/emulator/v1" || len(emu.XMPPPorts()) != 1 || emu.DemoProjectID() != "demo-fcm-emu" {
		t.Errorf("control %s xmpp %v demo %s", emu.ControlURL(), emu.XMPPPorts(), emu.DemoProjectID())
	}
	if !strings.Contains(string(emu.CACertificatePEM()), "BEGIN CERTIFICATE") {
		t.Error("no CA")
	}
	workdir := filepath.Dir(emu.LogPath())
	pid := emu.PID()
	if err := emu.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-emu.Exited():
	default:
		t.Fatal("the process did not exit")
	}
	if alive(pid) {
		t.Error("the emulator process lives on")
	}
	if _, err := os.Stat(workdir); !os.IsNotExist(err) {
		t.Errorf("workdir %s left behind: %v", workdir, err)
	}
	if err := emu.Client().Health(ctx); err == nil {
		t.Error("still answering after Close")
	}
	if err := emu.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

func TestStartStopsWithTheTest(t *testing.T) {
	var pid int
	t.Run("inner", func(t *testing.T) {
		emu := fcmemu.Start(t, fcmemu.WithPausedClock())
		pid = emu.PID()
		clock, err := emu.Client().Clock(ctxFor(t))
		if err != nil || !clock.Paused {
			t.Fatalf("clock %+v, %v", clock, err)
		}
	})
	if pid == 0 || alive(pid) {
		t.Fatalf("emulator %d still running after its test", pid)
	}
}

func TestAttach(t *testing.T) {
	emu := sharedEmulator(t)
	ctx := ctxFor(t)
	t.Setenv(fcmemu.ControlAPIEnv, emu.ControlURL())
	attached, err := fcmemu.Attach(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !attached.Attached() || attached.HTTPSURL() != emu.HTTPSURL() || attached.ProxyURL() != emu.ProxyURL() ||
		string(attached.CACertificatePEM()) != string(emu.CACertificatePEM()) {
		t.Errorf("attached sees %s %s", attached.HTTPSURL(), attached.ProxyURL())
	}
	if attached.PID() != emu.PID() {
		t.Errorf("pid %d, want %d", attached.PID(), emu.PID())
	}
	if err := attached.Close(); err != nil {
		t.Fatal(err)
	}
	if err := emu.Client().Health(ctx); err != nil {
		t.Fatalf("Close of an attached emulator stopped it: %v", err)
	}
	t.Setenv(fcmemu.ControlAPIEnv, "")
	if _, err := fcmemu.Attach(ctx); err == nil || !strings.Contains(err.Error(), fcmemu.ControlAPIEnv) {
		t.Errorf("attach without the variable: %v", err)
	}
	// StartOrAttach attaches when the variable is set.
	t.Setenv(fcmemu.ControlAPIEnv, emu.ControlURL())
	if got := fcmemu.StartOrAttach(t); !got.Attached() || got.PID() != emu.PID() {
		t.Errorf("StartOrAttach did not attach")
	}
}

func TestAFailedStartShowsTheLog(t *testing.T) {
	_, err := fcmemu.Launch(ctxFor(t), fcmemu.WithSetting("noSuchSetting", "1"))
	var notReady *fcmemu.NotReadyError
	if !errors.As(err, &notReady) {
		t.Fatalf("got %v", err)
	}
	if !strings.Contains(notReady.LogTail, "noSuchSetting") || !strings.Contains(err.Error(), "exited") {
		t.Errorf("error does not show the log: %v", err)
	}
}

func TestAStartThatTakesTooLongIsStopped(t *testing.T) {
	dir := t.TempDir()
	slow := filepath.Join(dir, "fcm-emu")
	pidFile := filepath.Join(dir, "pid")
	script := "#!/bin/sh\necho $$ > " + pidFile + "\necho starting but never ready\nexec sleep 60\n"
	if err := os.WriteFile(slow, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := fcmemu.Launch(ctxFor(t), fcmemu.WithBinary(slow), fcmemu.WithStartupTimeout(500*time.Millisecond),
		fcmemu.WithStopTimeout(5*time.Second))
	var notReady *fcmemu.NotReadyError
	if !errors.As(err, &notReady) || !strings.Contains(notReady.LogTail, "never ready") {
		t.Fatalf("got %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("took %s", time.Since(start))
	}
	data, _ := os.ReadFile(pidFile)
	if pid, _ := strconv.Atoi(strings.TrimSpace(string(data))); pid == 0 || alive(pid) {
		t.Errorf("the slow process (%d) was not stopped", pid)
	}
}

func TestFindBinary(t *testing.T) {
	t.Setenv(fcmemu.BinaryEnv, "")
	t.Setenv("PATH", t.TempDir())
	if _, err := fcmemu.FindBinary(""); err == nil || !strings.Contains(err.Error(), fcmemu.BinaryEnv) {
		t.Errorf("no binary anywhere: %v", err)
	}
	if _, err := fcmemu.FindBinary("/nonexistent/fcm-emu"); err == nil {
		t.Error("a missing explicit binary was accepted")
	}
}

// The helper run as a child test process: it starts an emulator, writes its pid, then ends as
// FCMEMU_HELPER says.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv("FCMEMU_HELPER")
	if mode == "" {
		t.Skip("run as a child by TestNoEmulatorOutlivesItsTest")
	}
	emu := fcmemu.Start(t)
	if err := os.WriteFile(os.Getenv("FCMEMU_PID_FILE"), []byte(strconv.Itoa(emu.PID())), 0o600); err != nil {
		t.Fatal(err)
	}
	switch mode {
	case "fail":
		t.Fatal("failing on purpose")
	case "panic":
		panic("panicking on purpose")
	case "exit":
		os.Exit(3) // no cleanup runs
	case "hang", "interrupt":
		select {} // killed or interrupted by the parent
	}
}

func TestNoEmulatorOutlivesItsTest(t *testing.T) {
	for _, mode := range []string{"fail", "panic", "exit", "hang", "interrupt"} {
		mode := mode
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "pid")
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), "FCMEMU_HELPER="+mode, "FCMEMU_PID_FILE="+pidFile)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			pid := 0
			deadline := time.Now().Add(30 * time.Second)
			for delay := 5 * time.Millisecond; pid == 0; delay = min(delay*2, 200*time.Millisecond) {
				data, _ := os.ReadFile(pidFile)
				pid, _ = strconv.Atoi(string(data))
				if pid == 0 && time.Now().After(deadline) {
					_ = cmd.Process.Kill()
					t.Fatal("the child never started its emulator")
				}
				if pid == 0 {
					time.Sleep(delay)
				}
			}
			if mode == "hang" || mode == "interrupt" {
				if !alive(pid) {
					t.Fatal("the emulator is not running while its test is")
				}
				signal := map[string]syscall.Signal{"hang": syscall.SIGKILL, "interrupt": syscall.SIGINT}[mode]
				_ = cmd.Process.Signal(signal) // the test process only, not the emulator
			}
			select {
			case err := <-exited:
				if err == nil {
					t.Errorf("the child test passed")
				}
			case <-time.After(60 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatal("the child did not end")
			}
			if !gone(pid, 15*time.Second) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("emulator %d outlived its test (%s)", pid, mode)
			}
		})
	}
}

func min(a, b time.Duration) time.Duration {
	if a < b {
		return a
	}
	return b
}

var _ = context.Background
