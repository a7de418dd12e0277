package fcmemu_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	fcmemu "github.com/fcm-emu/fcm-emu/clients/go"
)

var (
	sharedOnce sync.Once
	shared     *fcmemu.Emulator
	sharedErr  error
)

// TestMain stops the emulator the tests share (tests that need their own start one).
func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		_ = shared.Close()
	}
	os.Exit(code)
}

// sharedEmulator is one emulator for the tests that make their own project in it.
func sharedEmulator(t *testing.T) *fcmemu.Emulator {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedErr = fcmemu.Launch(context.Background()) })
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// sendV1 is a v1 messages:send on the emulator's plain HTTP port with a bearer from the control
// API (a sender that is not the code under test).
func sendV1(t *testing.T, emu *fcmemu.Emulator, project *fcmemu.Project, message map[string]any) string {
	t.Helper()
	name, err := send(emu, project, message)
	if err != nil {
		t.Fatal(err)
	}
	return name
}

func send(emu *fcmemu.Emulator, project *fcmemu.Project, message map[string]any) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	token, err := project.CreateAccessToken(ctx)
	if err != nil {
		return "", err
	}
	return sendWith(ctx, emu, project, token.AccessToken, message)
}

// sendWith is send with a given bearer (one that may have been revoked).
func sendWith(ctx context.Context, emu *fcmemu.Emulator, project *fcmemu.Project, bearer string, message map[string]any) (string, error) {
	body, _ := json.Marshal(map[string]any{"message": message})
	req, _ := http.NewRequestWithContext(ctx, "POST", emu.HTTPURL()+"/v1/projects/"+project.ID()+"/messages:send", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+bearer)
	resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return "", fmt.Errorf("send: %d %s", resp.StatusCode, data)
	}
	var answer struct{ Name string }
	_ = json.Unmarshal(data, &answer)
	return answer.Name, nil
}

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

// gone waits (bounded, with backoff) for process pid to end.
func gone(pid int, within time.Duration) bool {
	deadline := time.Now().Add(within)
	delay := 5 * time.Millisecond
	for alive(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(delay)
		if delay < 200*time.Millisecond {
			delay *= 2
		}
	}
	return true
}
