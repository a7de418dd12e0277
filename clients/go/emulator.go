package fcmemu

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// BinaryEnv names the environment variable holding the fcm-emu executable to start.
const BinaryEnv = "FCM_EMU_BIN"

// Emulator is one fcm-emu emulator: started by this package (Start, Launch), or attached to
// (Attach). Its methods give its control API (Client), projects, an *http.Client that reaches it
// under Google's host names (HTTPClient), and the environment for child processes (Project.Env).
type Emulator struct {
	info     *Info
	client   *Client
	caPEM    []byte
	attached bool

	// a started emulator
	cmd      *exec.Cmd
	done     chan struct{} // closed once the process has exited
	waitErr  error
	workdir  string
	logPath  string
	ownsWork bool
	stopWait time.Duration

	closeOnce sync.Once
	closeErr  error
	projects  atomic.Int64

	transportOnce sync.Once
	transport     *routeTransport
}

type config struct {
	binary         string
	settings       map[string]string
	args           []string
	host           string
	logLevel       string
	startupTimeout time.Duration
	stopTimeout    time.Duration
	env            []string
	workdir        string
}

// Option configures an emulator started by Start or Launch.
type Option func(*config)

// WithBinary names the fcm-emu executable (default: $FCM_EMU_BIN, then fcm-emu on PATH).
func WithBinary(path string) Option { return func(c *config) { c.binary = path } }

// WithSetting passes a serve setting (--set key=value), such as WithSetting("clockPaused", "true");
// it overrides the defaults (free ports for HTTP, TLS, XMPP and the proxy; no state on disk).
func WithSetting(key, value string) Option { return func(c *config) { c.settings[key] = value } }

// WithPausedClock starts the emulator with its clock paused: time moves only with AdvanceClock.
func WithPausedClock() Option { return WithSetting("clockPaused", "true") }

// WithStateDir keeps keys and snapshots in dir (default: nothing on disk).
func WithStateDir(dir string) Option { return WithSetting("stateDir", dir) }

// WithArgs appends command-line arguments to serve.
func WithArgs(args ...string) Option { return func(c *config) { c.args = append(c.args, args...) } }

// WithHost sets the address to listen on (default 127.0.0.1).
func WithHost(host string) Option { return func(c *config) { c.host = host } }

// WithLogLevel sets serve --log-level (default info).
func WithLogLevel(level string) Option { return func(c *config) { c.logLevel = level } }

// WithStartupTimeout bounds the wait for the ready file (default 30s).
func WithStartupTimeout(d time.Duration) Option { return func(c *config) { c.startupTimeout = d } }

// WithStopTimeout sets how long Close waits after SIGTERM before it kills (default 10s).
func WithStopTimeout(d time.Duration) Option { return func(c *config) { c.stopTimeout = d } }

// WithEnv adds "KEY=value" entries to the emulator process's environment.
func WithEnv(kv ...string) Option { return func(c *config) { c.env = append(c.env, kv...) } }

// withWorkdir puts the ready file and log in dir (kept after Close).
func withWorkdir(dir string) Option { return func(c *config) { c.workdir = dir } }

func newConfig(opts []Option) *config {
	c := &config{
		settings: map[string]string{
			"port": "0", "tlsPort": "0", "xmppPort": "0", "xmppTestPort": "off", "proxyPort": "0", "stateDir": "none",
		},
		host:           "127.0.0.1",
		logLevel:       "info",
		startupTimeout: 30 * time.Second,
		stopTimeout:    10 * time.Second,
	}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

// FindBinary returns the fcm-emu executable to start: explicit when not empty, else
// $FCM_EMU_BIN, else fcm-emu on PATH.
func FindBinary(explicit string) (string, error) {
	for _, candidate := range []string{explicit, os.Getenv(BinaryEnv)} {
		if candidate == "" {
			continue
		}
		if info, err := os.Stat(candidate); err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
			return "", fmt.Errorf("fcm-emu: %s is not an executable file", candidate)
		}
		return candidate, nil
	}
	path, err := exec.LookPath("fcm-emu")
	if err != nil {
		return "", fmt.Errorf("fcm-emu: no binary found: set %s, pass WithBinary, or put fcm-emu on PATH", BinaryEnv)
	}
	return path, nil
}

// Start starts an emulator on free ports for the test and stops it when the test and its
// subtests end (t.Cleanup). It fails the test at once when the emulator cannot start.
//
// The emulator dies with the test process even when that process is killed (on Linux, through
// the parent-death signal), so no emulator outlives an interrupted test run.
func Start(t testing.TB, opts ...Option) *Emulator {
	t.Helper()
	dir := t.TempDir()
	e, err := Launch(context.Background(), append(opts, withWorkdir(dir))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("fcm-emu: stopping the emulator: %v", err)
		}
	})
	return e
}

// StartOrAttach attaches to the emulator named by $FCM_EMU_CONTROL_API when it is set (under
// `fcm-emu exec -- go test`, or with an emulator in Docker Compose), and otherwise starts one as
// Start does. Options apply only to a started emulator.
func StartOrAttach(t testing.TB, opts ...Option) *Emulator {
	t.Helper()
	if os.Getenv(ControlAPIEnv) == "" {
		return Start(t, opts...)
	}
	e, err := Attach(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// Launch starts an emulator on free ports and waits until it is ready. The caller must Close it.
func Launch(ctx context.Context, opts ...Option) (*Emulator, error) {
	cfg := newConfig(opts)
	binary, err := FindBinary(cfg.binary)
	if err != nil {
		return nil, err
	}
	e := &Emulator{done: make(chan struct{}), stopWait: cfg.stopTimeout, workdir: cfg.workdir}
	if e.workdir == "" {
		if e.workdir, err = os.MkdirTemp("", "fcm-emu-"); err != nil {
			return nil, err
		}
		e.ownsWork = true
	}
	readyFile := filepath.Join(e.workdir, "ready.json")
	e.logPath = filepath.Join(e.workdir, "serve.log")
	_ = os.Remove(readyFile)
	log, err := os.OpenFile(e.logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		e.removeWorkdir()
		return nil, err
	}
	defer log.Close()

	args := []string{"serve", "--host", cfg.host, "--port", cfg.settings["port"], "--ready-file", readyFile, "--log-level", cfg.logLevel}
	keys := make([]string, 0, len(cfg.settings))
	for k := range cfg.settings {
		if k != "port" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "--set", k+"="+cfg.settings[k])
	}
	args = append(args, cfg.args...)
	e.cmd = exec.Command(binary, args...)
	e.cmd.Stdout, e.cmd.Stderr = log, log
	e.cmd.Dir = e.workdir
	e.cmd.Env = append(os.Environ(), cfg.env...)
	if err := e.spawn(); err != nil {
		e.removeWorkdir()
		return nil, fmt.Errorf("fcm-emu: starting %s: %w", binary, err)
	}
	if err := e.waitReady(ctx, readyFile, cfg.startupTimeout); err != nil {
		e.terminate()
		e.removeWorkdir()
		return nil, err
	}
	return e, nil
}

// spawn starts the process from a goroutine locked to its OS thread: on Linux the parent-death
// signal fires when the thread that forked the child ends, so that thread is kept until the child
// has exited (the goroutine waits for it and only then returns, ending the thread).
func (e *Emulator) spawn() error {
	started := make(chan error, 1)
	go func() {
		lockThreadForChild()
		setParentDeathSignal(e.cmd)
		if err := e.cmd.Start(); err != nil {
			started <- err
			close(e.done)
			return
		}
		started <- nil
		e.waitErr = e.cmd.Wait()
		close(e.done)
	}()
	return <-started
}

func (e *Emulator) waitReady(ctx context.Context, readyFile string, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	delay := 5 * time.Millisecond
	for {
		if data, err := os.ReadFile(readyFile); err == nil && len(data) > 0 {
			info := &Info{}
			if json.Unmarshal(data, info) == nil && info.HTTP != nil {
				info.Raw = data
				return e.adopt(ctx, info, NewClient(info.HTTP.URL, WithControlToken(info.ControlToken)))
			}
		}
		select {
		case <-e.done:
			return &NotReadyError{Reason: fmt.Sprintf("the emulator exited (%v) before it was ready", e.waitErr),
				LogPath: e.logPath, LogTail: e.LogTail(40)}
		case <-deadline.C:
			return &NotReadyError{Reason: fmt.Sprintf("the emulator was not ready after %s", timeout),
				LogPath: e.logPath, LogTail: e.LogTail(40)}
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		if delay < 100*time.Millisecond {
			delay *= 2
		}
	}
}

// adopt records the emulator's addresses and loads its CA.
func (e *Emulator) adopt(ctx context.Context, info *Info, client *Client) error {
	if client.token == "" && info.ControlToken != "" {
		client.token = info.ControlToken
	}
	e.info, e.client = info, client
	if info.CACertificate != "" {
		if pem, err := os.ReadFile(info.CACertificate); err == nil {
			e.caPEM = pem
		}
	}
	if e.caPEM == nil && info.HTTPS != nil {
		// An emulator elsewhere (a container): its CA over the control API.
		pem, err := client.CACertificate(ctx)
		if err != nil {
			return err
		}
		e.caPEM = pem
	}
	return nil
}

// Attach returns an Emulator for the running one named by $FCM_EMU_CONTROL_API
// (e.g. http://127.0.0.1:9092/emulator/v1). Close leaves that emulator running.
func Attach(ctx context.Context) (*Emulator, error) {
	u := os.Getenv(ControlAPIEnv)
	if u == "" {
		return nil, fmt.Errorf("fcm-emu: no emulator to attach to: set %s (e.g. http://127.0.0.1:9092/emulator/v1)", ControlAPIEnv)
	}
	return AttachURL(ctx, u)
}

// AttachURL returns an Emulator for the running one whose control API is at controlURL. Its
// addresses are read from its info; Close leaves it running.
func AttachURL(ctx context.Context, controlURL string, opts ...ClientOption) (*Emulator, error) {
	client := NewClient(controlURL, opts...)
	info, err := client.Info(ctx)
	if err != nil {
		return nil, err
	}
	e := &Emulator{attached: true}
	if err := e.adopt(ctx, info, client); err != nil {
		return nil, err
	}
	return e, nil
}

// Close stops a started emulator (SIGTERM, then SIGKILL after the stop timeout) and removes its
// working directory; for an attached one it only releases local files. It is safe to call twice.
func (e *Emulator) Close() error {
	e.closeOnce.Do(func() {
		if e.transport != nil {
			e.transport.CloseIdleConnections()
		}
		if !e.attached {
			e.closeErr = e.terminate()
		}
		e.removeWorkdir()
	})
	return e.closeErr
}

func (e *Emulator) terminate() error {
	if e.cmd == nil || e.cmd.Process == nil {
		return nil
	}
	select {
	case <-e.done:
		return nil
	default:
	}
	_ = e.cmd.Process.Signal(syscall.SIGTERM)
	timer := time.NewTimer(e.stopWait)
	defer timer.Stop()
	select {
	case <-e.done:
		var exit *exec.ExitError
		if e.waitErr != nil && !errors.As(e.waitErr, &exit) {
			return e.waitErr
		}
		return nil
	case <-timer.C:
		_ = e.cmd.Process.Kill()
		<-e.done
		return fmt.Errorf("fcm-emu: the emulator did not stop within %s of SIGTERM and was killed", e.stopWait)
	}
}

func (e *Emulator) removeWorkdir() {
	if e.ownsWork && e.workdir != "" {
		_ = os.RemoveAll(e.workdir)
	}
}

// Exited returns a channel closed once a started emulator's process has exited (nil for an
// attached one).
func (e *Emulator) Exited() <-chan struct{} { return e.done }

// LogTail returns the last n lines of a started emulator's log.
func (e *Emulator) LogTail(n int) string {
	if e.logPath == "" {
		return ""
	}
	f, err := os.Open(e.logPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > 64<<10 {
		_, _ = f.Seek(-64<<10, io.SeekEnd)
	}
	data, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// LogPath returns the path of a started emulator's log ("" when attached).
func (e *Emulator) LogPath() string { return e.logPath }

// ---- what it offers ----

// Client returns the emulator's control API client.
func (e *Emulator) Client() *Client { return e.client }

// Info returns the emulator's ready-file description (addresses, demo project, CA).
func (e *Emulator) Info() *Info { return e.info }

// Attached reports whether this Emulator attached to one it did not start.
func (e *Emulator) Attached() bool { return e.attached }

// PID returns the emulator's process id.
func (e *Emulator) PID() int {
	if e.cmd != nil && e.cmd.Process != nil {
		return e.cmd.Process.Pid
	}
	return e.info.PID
}

// ControlURL returns the control API base, http://127.0.0.1:PORT/emulator/v1 (the value for
// $FCM_EMU_CONTROL_API).
func (e *Emulator) ControlURL() string { return e.client.BaseURL() }

// HTTPURL returns the plain HTTP base URL (FCM's APIs, the token endpoint and the control API).
func (e *Emulator) HTTPURL() string {
	if e.info.HTTP != nil && e.info.HTTP.URL != "" {
		return e.info.HTTP.URL
	}
	return strings.TrimSuffix(e.client.BaseURL(), "/emulator/v1")
}

// HTTPSURL returns the TLS (HTTP/2 and HTTP/1.1) base URL, "" when TLS is off. With a client
// that trusts the CA (HTTPClient does), it is an explicit endpoint: option.WithEndpoint(HTTPSURL()+"/").
func (e *Emulator) HTTPSURL() string {
	if e.info.HTTPS == nil {
		return ""
	}
	return e.info.HTTPS.URL
}

// TLSAddr returns host:port of the TLS listener ("" when TLS is off).
func (e *Emulator) TLSAddr() string {
	if e.info.HTTPS == nil {
		return ""
	}
	if u, err := url.Parse(e.info.HTTPS.URL); err == nil && u.Host != "" {
		return u.Host
	}
	return e.info.HTTPS.Host + ":" + strconv.Itoa(e.info.HTTPS.Port)
}

// ProxyURL returns the HTTPS proxy's URL, "" when the proxy is off.
func (e *Emulator) ProxyURL() string {
	if e.info.Proxy == nil {
		return ""
	}
	return e.info.Proxy.URL
}

// CACertificatePEM returns the PEM of the CA that signed the emulator's TLS certificates.
func (e *Emulator) CACertificatePEM() []byte { return e.caPEM }

// XMPPPorts returns the XMPP (CCS) ports.
func (e *Emulator) XMPPPorts() []int {
	if e.info.XMPP == nil {
		return nil
	}
	return e.info.XMPP.Ports
}

// DemoProjectID returns the demo project's id (demo-fcm-emu).
func (e *Emulator) DemoProjectID() string {
	if e.info.DemoProject != nil && e.info.DemoProject.ProjectID != "" {
		return e.info.DemoProject.ProjectID
	}
	return "demo-fcm-emu"
}

// Project returns a handle on project id; "" is the demo project (no call is made).
func (e *Emulator) Project(id string) *Project {
	if id == "" {
		id = e.DemoProjectID()
	}
	return &Project{client: e.client, id: id, emu: e}
}

// CreateProject creates project p and returns its handle.
func (e *Emulator) CreateProject(ctx context.Context, p NewProject) (*Project, error) {
	info, err := e.client.CreateProject(ctx, p)
	if err != nil {
		return nil, err
	}
	return e.Project(info.ID), nil
}

var notIDChars = regexp.MustCompile(`[^a-z0-9]+`)

// NewProject creates a fresh project for the test, with a unique id made from the test's name
// (a strict project: bearer tokens are checked as FCM does), and deletes it when the test ends.
// Before deleting it, it reports (t.Logf; the test does not fail) each fault rule that the test
// added, or that names the project, and that never fired.
func (e *Emulator) NewProject(t testing.TB) *Project {
	t.Helper()
	name := strings.Trim(notIDChars.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	suffix := fmt.Sprintf("-%d-%d", os.Getpid()%100000, e.projects.Add(1))
	if max := 30 - len(suffix) - 2; len(name) > max {
		name = strings.TrimRight(name[:max], "-")
	}
	id := "t-" + name + suffix
	p, err := e.CreateProject(context.Background(), NewProject{ID: id})
	if err != nil {
		t.Fatalf("fcm-emu: creating project %s: %v", id, err)
	}
	rulesBefore := faultRuleIDs(e.client)
	t.Cleanup(func() {
		logUnusedFaultRules(t, e.client, id, rulesBefore)
		if err := p.Delete(context.Background()); err != nil && !IsNotFound(err) {
			t.Errorf("fcm-emu: deleting project %s: %v", id, err)
		}
	})
	return p
}

// workDir returns a private directory for files handed to SDKs (key files, CA bundles).
func (e *Emulator) workDir() (string, error) {
	if e.workdir == "" {
		dir, err := os.MkdirTemp("", "fcm-emu-")
		if err != nil {
			return "", err
		}
		e.workdir, e.ownsWork = dir, true
	}
	return e.workdir, nil
}
