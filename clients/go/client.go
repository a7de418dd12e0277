package fcmemu

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// ControlAPIEnv names the environment variable holding a running emulator's control API base
// URL, such as http://127.0.0.1:9092/emulator/v1 (what `fcm-emu exec` sets for its command).
const ControlAPIEnv = "FCM_EMU_CONTROL_API"

// ControlTokenEnv names the environment variable holding the control token of an emulator that
// listens beyond loopback (its banner and ready file print it).
const ControlTokenEnv = "FCM_EMU_CONTROL_TOKEN"

// DefaultTimeout bounds each control API call that does not wait, when its context has no
// deadline of its own.
const DefaultTimeout = 10 * time.Second

// Client is a typed client for one emulator's control API (/emulator/v1). Every method is one
// call of the API, named after its OpenAPI operation; errors are *APIError values carrying the
// API's own message. A Client is safe for concurrent use.
type Client struct {
	baseURL string
	token   string
	timeout time.Duration
	http    *http.Client
}

// ClientOption configures a Client.
type ClientOption func(*Client)

// WithControlToken sets the control token sent as "Authorization: Bearer …" (default
// $FCM_EMU_CONTROL_TOKEN; an emulator on loopback asks for none).
func WithControlToken(token string) ClientOption { return func(c *Client) { c.token = token } }

// WithTimeout sets the time allowed for each call that does not wait (default DefaultTimeout);
// calls that wait get their wait on top. A deadline on the call's context also applies.
func WithTimeout(d time.Duration) ClientOption { return func(c *Client) { c.timeout = d } }

// WithHTTPClient makes the Client send its requests through hc.
func WithHTTPClient(hc *http.Client) ClientOption { return func(c *Client) { c.http = hc } }

// NewClient returns a client for the control API at baseURL, such as
// http://127.0.0.1:9092/emulator/v1; a bare http://host:port gets /emulator/v1 appended.
// Proxies from the environment are never used for the control API.
func NewClient(baseURL string, opts ...ClientOption) *Client {
	base := strings.TrimRight(baseURL, "/")
	if !strings.HasSuffix(base, "/emulator/v1") {
		base += "/emulator/v1"
	}
	c := &Client{
		baseURL: base,
		token:   os.Getenv(ControlTokenEnv),
		timeout: DefaultTimeout,
		http:    &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 16, IdleConnTimeout: 30 * time.Second}},
	}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

// NewClientFromEnv returns a client for $FCM_EMU_CONTROL_API.
func NewClientFromEnv(opts ...ClientOption) (*Client, error) {
	u := os.Getenv(ControlAPIEnv)
	if u == "" {
		return nil, fmt.Errorf("fcm-emu: %s is not set (it names a running emulator's control API, e.g. http://127.0.0.1:9092/emulator/v1)", ControlAPIEnv)
	}
	return NewClient(u, opts...), nil
}

// BaseURL returns the control API base, e.g. http://127.0.0.1:9092/emulator/v1.
func (c *Client) BaseURL() string { return c.baseURL }

// Response is a raw answer of the control API.
type Response struct {
	StatusCode int
	Header     http.Header
	Body       []byte
}

// WaitSatisfied reads the Emulator-Wait header: nil without a wait, else whether the wait was
// satisfied (false: it timed out).
func (r *Response) WaitSatisfied() *bool {
	v := r.Header.Get("Emulator-Wait")
	if v == "" {
		return nil
	}
	ok := v == "satisfied"
	return &ok
}

// Request describes one call for Client.Do.
type Request struct {
	Method string
	Path   string // below the base URL, e.g. "/projects/p/devices"
	Query  url.Values
	// JSON, when non-nil, is sent as the body with Content-Type: application/json.
	JSON any
	// Body and ContentType send a body as is.
	Body        []byte
	ContentType string
	Accept      string // default application/json
	// Wait is added to the client's timeout (calls that wait on the server).
	Wait time.Duration
}

// Do makes one call and returns its answer; non-2xx answers are *APIError.
func (c *Client) Do(ctx context.Context, r Request) (*Response, error) {
	resp, cancel, err := c.open(ctx, r)
	if err != nil {
		return nil, err
	}
	defer cancel()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	u := c.baseURL + r.Path
	if err != nil {
		return nil, &APIError{Method: r.Method, URL: u, StatusCode: resp.StatusCode, Message: "reading the answer: " + err.Error(), Err: err}
	}
	if resp.StatusCode/100 != 2 {
		return nil, errorFromResponse(r.Method, u, resp.StatusCode, body)
	}
	return &Response{StatusCode: resp.StatusCode, Header: resp.Header, Body: body}, nil
}

// open sends the request and returns the open answer (2xx only) and the cancel of its timeout.
func (c *Client) open(ctx context.Context, r Request) (*http.Response, context.CancelFunc, error) {
	u := c.baseURL + r.Path
	if len(r.Query) > 0 {
		u += "?" + r.Query.Encode()
	}
	var body io.Reader
	contentType := r.ContentType
	if r.JSON != nil {
		data, err := json.Marshal(r.JSON)
		if err != nil {
			return nil, nil, err
		}
		body, contentType = bytes.NewReader(data), "application/json"
	} else if r.Body != nil {
		body = bytes.NewReader(r.Body)
		if contentType == "" {
			contentType = "application/octet-stream"
		}
	}
	cancel := context.CancelFunc(func() {})
	if c.timeout > 0 && r.Accept != "text/event-stream" {
		ctx, cancel = context.WithTimeout(ctx, c.timeout+r.Wait)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u, body)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	accept := r.Accept
	if accept == "" {
		accept = "application/json"
	}
	req.Header.Set("Accept", accept)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		cancel()
		return nil, nil, &APIError{Method: r.Method, URL: u, Message: "cannot reach the emulator: " + err.Error(), Err: err}
	}
	if resp.StatusCode/100 != 2 {
		defer cancel()
		defer resp.Body.Close()
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return nil, nil, errorFromResponse(r.Method, u, resp.StatusCode, data)
	}
	return resp, cancel, nil
}

func (c *Client) getJSON(ctx context.Context, r Request, out any) (*Response, error) {
	resp, err := c.Do(ctx, r)
	if err != nil {
		return nil, err
	}
	if out != nil && len(bytes.TrimSpace(resp.Body)) > 0 {
		if err := json.Unmarshal(resp.Body, out); err != nil {
			return resp, fmt.Errorf("fcm-emu: %s %s: decoding the answer: %w", r.Method, c.baseURL+r.Path, err)
		}
	}
	return resp, nil
}

func seg(s string) string { return url.PathEscape(s) }

func waitQuery(q url.Values, waitFor int, timeout time.Duration) (url.Values, time.Duration) {
	if waitFor <= 0 {
		return q, 0
	}
	if q == nil {
		q = url.Values{}
	}
	q.Set("waitFor", strconv.Itoa(waitFor))
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	q.Set("timeout", strconv.FormatInt(timeout.Milliseconds(), 10)+"ms")
	return q, timeout
}

// ---- the emulator ----

// Health calls health: nil once the emulator answers {"status": "ok"}.
func (c *Client) Health(ctx context.Context) error {
	var h struct {
		Status string `json:"status"`
	}
	if _, err := c.getJSON(ctx, Request{Method: "GET", Path: "/health"}, &h); err != nil {
		return err
	}
	if h.Status != "ok" {
		return fmt.Errorf("fcm-emu: health is %q", h.Status)
	}
	return nil
}

// Info calls info: bound addresses, demo project credentials, CA path (as the ready file).
func (c *Client) Info(ctx context.Context) (*Info, error) {
	info := &Info{}
	resp, err := c.getJSON(ctx, Request{Method: "GET", Path: "/info"}, info)
	if err != nil {
		return nil, err
	}
	info.Raw = resp.Body
	return info, nil
}

// OpenAPI calls openapi: this API as an OpenAPI 3 document.
func (c *Client) OpenAPI(ctx context.Context) (map[string]any, error) {
	var doc map[string]any
	_, err := c.getJSON(ctx, Request{Method: "GET", Path: "/openapi.json"}, &doc)
	return doc, err
}

// CACertificate calls caCertificate: the PEM of the local CA that signs the emulator's TLS
// certificates (for a client that cannot read the emulator's files).
func (c *Client) CACertificate(ctx context.Context) ([]byte, error) {
	resp, err := c.Do(ctx, Request{Method: "GET", Path: "/ca.pem", Accept: "application/x-pem-file"})
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// Metrics calls metrics: counters and gauges in Prometheus's text format 0.0.4.
func (c *Client) Metrics(ctx context.Context) (string, error) {
	resp, err := c.Do(ctx, Request{Method: "GET", Path: "/metrics", Accept: "text/plain"})
	if err != nil {
		return "", err
	}
	return string(resp.Body), nil
}

// ClientConnection is a client of the HTTP ports: its address, the User-Agent of its first
// request on a connection, the port, and its connections, requests and HTTP/2 streams.
type ClientConnection struct {
	Address       string `json:"address"`
	UserAgent     string `json:"userAgent"`
	Listener      string `json:"listener"`
	Opened        int    `json:"opened"`
	Open          int    `json:"open"`
	Requests      int    `json:"requests"`
	StreamsOpened int    `json:"streamsOpened"`
	StreamsOpen   int    `json:"streamsOpen"`
}

// Connections calls listConnections: who holds connections to the HTTP ports, most open first,
// to catch a client pool that leaks.
func (c *Client) Connections(ctx context.Context) ([]ClientConnection, error) {
	var out struct {
		Clients []ClientConnection `json:"clients"`
	}
	if _, err := c.getJSON(ctx, Request{Method: "GET", Path: "/connections"}, &out); err != nil {
		return nil, err
	}
	return out.Clients, nil
}

// Reset calls resetAll: deletes every project but the demo project, all devices, events, timers.
func (c *Client) Reset(ctx context.Context) error {
	_, err := c.Do(ctx, Request{Method: "POST", Path: "/reset", JSON: struct{}{}})
	return err
}

// ---- snapshots ----

// Snapshot is the answer of an export or import: the snapshot's name (export) or clock mode
// (import), and its manifest.
type Snapshot struct {
	Name     string         `json:"name,omitempty"`
	Clock    string         `json:"clock,omitempty"`
	Manifest map[string]any `json:"manifest"`
}

const snapshotWait = 2 * time.Minute

// ExportSnapshot calls exportSnapshot: writes the world as snapshot name under the emulator's
// state directory; include may name "events" and "inboxes".
func (c *Client) ExportSnapshot(ctx context.Context, name string, include ...string) (*Snapshot, error) {
	body := map[string]any{"name": name}
	if include != nil {
		body["include"] = include
	}
	s := &Snapshot{}
	_, err := c.getJSON(ctx, Request{Method: "POST", Path: ":export", JSON: body, Wait: snapshotWait}, s)
	return s, err
}

// ExportSnapshotTar calls exportSnapshot with format=tar: the snapshot as a tar archive (no state
// directory needed).
func (c *Client) ExportSnapshotTar(ctx context.Context, include ...string) ([]byte, error) {
	body := map[string]any{}
	if include != nil {
		body["include"] = include
	}
	resp, err := c.Do(ctx, Request{Method: "POST", Path: ":export", Query: url.Values{"format": {"tar"}}, JSON: body,
		Accept: "application/x-tar", Wait: snapshotWait})
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// ImportSnapshot calls importSnapshot: replaces the world with snapshot name; clock is
// "snapshot", "wall" or "" (the emulator's setting).
func (c *Client) ImportSnapshot(ctx context.Context, name, clock string) (*Snapshot, error) {
	body := map[string]any{"name": name}
	if clock != "" {
		body["clock"] = clock
	}
	s := &Snapshot{}
	_, err := c.getJSON(ctx, Request{Method: "POST", Path: ":import", JSON: body, Wait: snapshotWait}, s)
	return s, err
}

// ImportSnapshotTar calls importSnapshot with a tar archive as made by ExportSnapshotTar.
func (c *Client) ImportSnapshotTar(ctx context.Context, archive []byte, clock string) (*Snapshot, error) {
	q := url.Values{"format": {"tar"}}
	if clock != "" {
		q.Set("clock", clock)
	}
	s := &Snapshot{}
	_, err := c.getJSON(ctx, Request{Method: "POST", Path: ":import", Query: q, Body: archive,
		ContentType: "application/x-tar", Wait: snapshotWait}, s)
	return s, err
}

// ---- the clock ----

// Clock calls getClock: the emulator's time, mode, speed and pending timers.
func (c *Client) Clock(ctx context.Context) (*Clock, error) {
	clock := &Clock{}
	_, err := c.getJSON(ctx, Request{Method: "GET", Path: "/clock"}, clock)
	return clock, err
}

// Timers calls listTimers: one page of the clock's pending timers in the order they fire
// (offset 0 and limit 0 for the first page of the default size).
func (c *Client) Timers(ctx context.Context, offset, limit int) (*TimerPage, error) {
	q := url.Values{}
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset))
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	page := &TimerPage{}
	_, err := c.getJSON(ctx, Request{Method: "GET", Path: "/clock/timers", Query: q}, page)
	return page, err
}

// AdvanceClock calls advanceClock: moves the clock forward by d, firing everything due on the
// way (TTL expiry, Doze maintenance windows, latencies). Use it with an emulator started with
// clockPaused=true to test what happens later without waiting.
func (c *Client) AdvanceClock(ctx context.Context, d time.Duration) (*Clock, error) {
	clock := &Clock{}
	_, err := c.getJSON(ctx, Request{Method: "POST", Path: "/clock:advance", JSON: map[string]any{"by": d.Milliseconds()}}, clock)
	return clock, err
}

// AdvanceClockTo calls advanceClock with to: moves the clock forward to t.
func (c *Client) AdvanceClockTo(ctx context.Context, t time.Time) (*Clock, error) {
	clock := &Clock{}
	_, err := c.getJSON(ctx, Request{Method: "POST", Path: "/clock:advance",
		JSON: map[string]any{"to": t.UTC().Format(time.RFC3339Nano)}}, clock)
	return clock, err
}

// PauseClock calls pauseClock: time then moves only with AdvanceClock.
func (c *Client) PauseClock(ctx context.Context) (*Clock, error) {
	clock := &Clock{}
	_, err := c.getJSON(ctx, Request{Method: "POST", Path: "/clock:pause", JSON: struct{}{}}, clock)
	return clock, err
}

// ResumeClock calls resumeClock: a paused clock follows the wall again.
func (c *Client) ResumeClock(ctx context.Context) (*Clock, error) {
	clock := &Clock{}
	_, err := c.getJSON(ctx, Request{Method: "POST", Path: "/clock:resume", JSON: struct{}{}}, clock)
	return clock, err
}

// SetClockSpeed calls setClockSpeed: e.g. 60 runs a minute per second.
func (c *Client) SetClockSpeed(ctx context.Context, speed float64) (*Clock, error) {
	clock := &Clock{}
	_, err := c.getJSON(ctx, Request{Method: "POST", Path: "/clock:setSpeed", JSON: map[string]any{"speed": speed}}, clock)
	return clock, err
}

// ---- events ----

// EventQuery filters a read of the event log. Zero fields do not filter.
type EventQuery struct {
	Device  string   // id, name or token (project reads only)
	Token   string   // a token the device holds or held
	Topic   string   // messages to this topic and (un)subscriptions
	Message string   // message id
	Kinds   []string // event kinds, e.g. "delivered", "expired"
	Since   time.Time
	Until   time.Time
	Limit   int // newest N
	// WaitFor makes the emulator answer once this many events match, or after Timeout (default
	// 30s, at most 5m) with what there is; EventList.Satisfied says which.
	WaitFor int
	Timeout time.Duration
}

func (q EventQuery) values() (url.Values, time.Duration) {
	v := url.Values{}
	set := func(k, s string) {
		if s != "" {
			v.Set(k, s)
		}
	}
	set("device", q.Device)
	set("token", q.Token)
	set("topic", q.Topic)
	set("message", q.Message)
	set("kind", strings.Join(q.Kinds, ","))
	if !q.Since.IsZero() {
		v.Set("since", q.Since.UTC().Format(time.RFC3339Nano))
	}
	if !q.Until.IsZero() {
		v.Set("until", q.Until.UTC().Format(time.RFC3339Nano))
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	return waitQuery(v, q.WaitFor, q.Timeout)
}

func (c *Client) events(ctx context.Context, path string, q EventQuery) (*EventList, error) {
	values, wait := q.values()
	list := &EventList{}
	resp, err := c.getJSON(ctx, Request{Method: "GET", Path: path, Query: values, Wait: wait}, list)
	if err != nil {
		return nil, err
	}
	list.Satisfied = resp.WaitSatisfied()
	return list, nil
}

// Events calls listAllEvents: the event log across projects, oldest first.
func (c *Client) Events(ctx context.Context, q EventQuery) (*EventList, error) {
	q.Device = ""
	return c.events(ctx, "/events", q)
}

// ProjectEvents calls listProjectEvents: one project's events.
func (c *Client) ProjectEvents(ctx context.Context, project string, q EventQuery) (*EventList, error) {
	return c.events(ctx, "/projects/"+seg(project)+"/events", q)
}

// DeviceEvents calls listDeviceEvents: one device's events.
func (c *Client) DeviceEvents(ctx context.Context, project, device string, q EventQuery) (*EventList, error) {
	q.Device = ""
	return c.events(ctx, devicePath(project, device)+"/events", q)
}

// ---- fault rules ----

type faultList struct {
	Faults []FaultRule `json:"faults"`
}

// Faults calls listFaults: the rules in force.
func (c *Client) Faults(ctx context.Context) ([]FaultRule, error) {
	var l faultList
	_, err := c.getJSON(ctx, Request{Method: "GET", Path: "/faults"}, &l)
	return l.Faults, err
}

// AddFault calls addFault: adds a rule (replacing one with the same ID); returns it with its ID.
func (c *Client) AddFault(ctx context.Context, rule FaultRule) (*FaultRule, error) {
	out := &FaultRule{}
	_, err := c.getJSON(ctx, Request{Method: "POST", Path: "/faults", JSON: rule}, out)
	return out, err
}

// Fault calls getFault: one rule as posted, with how often it fired.
func (c *Client) Fault(ctx context.Context, id string) (*FaultRule, error) {
	out := &FaultRule{}
	_, err := c.getJSON(ctx, Request{Method: "GET", Path: "/faults/" + seg(id)}, out)
	return out, err
}

// SetFaults calls setFaults: replaces every rule.
func (c *Client) SetFaults(ctx context.Context, rules []FaultRule) ([]FaultRule, error) {
	if rules == nil {
		rules = []FaultRule{}
	}
	var l faultList
	_, err := c.getJSON(ctx, Request{Method: "PUT", Path: "/faults", JSON: faultList{rules}}, &l)
	return l.Faults, err
}

// ClearFaults calls clearFaults: removes every rule.
func (c *Client) ClearFaults(ctx context.Context) error {
	_, err := c.Do(ctx, Request{Method: "DELETE", Path: "/faults"})
	return err
}

// RemoveFault calls removeFault; returns the rules left.
func (c *Client) RemoveFault(ctx context.Context, id string) ([]FaultRule, error) {
	var l faultList
	_, err := c.getJSON(ctx, Request{Method: "DELETE", Path: "/faults/" + seg(id)}, &l)
	return l.Faults, err
}

// ---- projects ----

// NewProject is the body of CreateProject.
type NewProject struct {
	// ID is 4–30 lower-case letters, digits or hyphens, starting with a letter. Ids starting with
	// "demo-" accept any bearer token, as the Firebase emulators do; others are strict.
	ID string `json:"id"`
	// Number is the sender id; generated when empty.
	Number     string   `json:"number,omitempty"`
	ServerKeys []string `json:"serverKeys,omitempty"`
	// APIEnabled false creates the project with its v1 API off (403 SERVICE_DISABLED); nil is on.
	APIEnabled *bool `json:"apiEnabled,omitempty"`
}

// Project returns a handle on project id (no call is made).
func (c *Client) Project(id string) *Project { return &Project{client: c, id: id} }

// ListProjects calls listProjects.
func (c *Client) ListProjects(ctx context.Context) ([]ProjectInfo, error) {
	return allPages[ProjectInfo](ctx, c, "/projects", "projects")
}

// allPages reads every entry of a paged list: the server ends a page at about 8 MiB and says
// where the next starts (nextOffset); an older server answers with one page and no nextOffset.
func allPages[T any](ctx context.Context, c *Client, path, key string) ([]T, error) {
	var entries []T
	query := url.Values{}
	for {
		var page map[string]json.RawMessage
		if _, err := c.getJSON(ctx, Request{Method: "GET", Path: path, Query: query}, &page); err != nil {
			return entries, err
		}
		var items []T
		if raw, ok := page[key]; ok {
			if err := json.Unmarshal(raw, &items); err != nil {
				return entries, err
			}
		}
		entries = append(entries, items...)
		var next *int
		if raw, ok := page["nextOffset"]; ok {
			if err := json.Unmarshal(raw, &next); err != nil {
				return entries, err
			}
		}
		if next == nil || len(items) == 0 {
			return entries, nil
		}
		query = url.Values{"offset": {strconv.Itoa(*next)}}
	}
}

// CreateProject calls createProject.
func (c *Client) CreateProject(ctx context.Context, p NewProject) (*ProjectInfo, error) {
	info := &ProjectInfo{}
	_, err := c.getJSON(ctx, Request{Method: "POST", Path: "/projects", JSON: p}, info)
	return info, err
}

// GetProject calls getProject (by id or number).
func (c *Client) GetProject(ctx context.Context, project string) (*ProjectInfo, error) {
	info := &ProjectInfo{}
	_, err := c.getJSON(ctx, Request{Method: "GET", Path: "/projects/" + seg(project)}, info)
	return info, err
}

// ProjectUpdate is the body of UpdateProject; nil fields are left as they are.
type ProjectUpdate struct {
	// APIEnabled false makes every v1 call of the project answer 403 SERVICE_DISABLED, as a
	// project whose Firebase Cloud Messaging API was never enabled.
	APIEnabled *bool `json:"apiEnabled,omitempty"`
}

// UpdateProject calls updateProject: changes the project's settings.
func (c *Client) UpdateProject(ctx context.Context, project string, u ProjectUpdate) (*ProjectInfo, error) {
	info := &ProjectInfo{}
	_, err := c.getJSON(ctx, Request{Method: "PATCH", Path: "/projects/" + seg(project), JSON: u}, info)
	return info, err
}

// DeleteProject calls deleteProject: the project and everything in it.
func (c *Client) DeleteProject(ctx context.Context, project string) error {
	_, err := c.Do(ctx, Request{Method: "DELETE", Path: "/projects/" + seg(project)})
	return err
}

// ResetProject calls resetProject: removes the project's devices, topics and groups.
func (c *Client) ResetProject(ctx context.Context, project string) error {
	_, err := c.Do(ctx, Request{Method: "POST", Path: "/projects/" + seg(project) + ":reset", JSON: struct{}{}})
	return err
}

// ServiceAccount calls getServiceAccount: a service-account key file (JSON) whose token_uri
// points at the emulator.
func (c *Client) ServiceAccount(ctx context.Context, project string) ([]byte, error) {
	resp, err := c.Do(ctx, Request{Method: "GET", Path: "/projects/" + seg(project) + "/serviceAccount"})
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// CreateAccessToken calls createAccessToken: an OAuth bearer for the project's v1 API, without
// the JWT exchange.
func (c *Client) CreateAccessToken(ctx context.Context, project string) (*AccessToken, error) {
	t := &AccessToken{}
	_, err := c.getJSON(ctx, Request{Method: "POST", Path: "/projects/" + seg(project) + "/accessTokens", JSON: struct{}{}}, t)
	return t, err
}

// RevokeAccessTokens calls revokeAccessTokens: every bearer the project was issued until now
// gets 401 on its next v1 call, as after a key rotation; tokens issued later work.
func (c *Client) RevokeAccessTokens(ctx context.Context, project string) error {
	_, err := c.Do(ctx, Request{Method: "POST", Path: "/projects/" + seg(project) + "/accessTokens:revoke", JSON: struct{}{}})
	return err
}

// Topics calls listTopics: topics with subscriber counts.
func (c *Client) Topics(ctx context.Context, project string) ([]Topic, error) {
	return allPages[Topic](ctx, c, "/projects/"+seg(project)+"/topics", "topics")
}

// Groups calls listGroups: legacy device groups.
func (c *Client) Groups(ctx context.Context, project string) ([]Group, error) {
	return allPages[Group](ctx, c, "/projects/"+seg(project)+"/groups", "groups")
}

// XMPPConnections calls listXMPPConnections: the project's bound XMPP (CCS) connections.
func (c *Client) XMPPConnections(ctx context.Context, project string) ([]XMPPConnection, error) {
	var l struct {
		Connections []XMPPConnection `json:"connections"`
	}
	_, err := c.getJSON(ctx, Request{Method: "GET", Path: "/projects/" + seg(project) + "/xmpp"}, &l)
	return l.Connections, err
}

// DrainXMPP calls drainXMPP: CONNECTION_DRAINING to every XMPP connection of the project.
func (c *Client) DrainXMPP(ctx context.Context, project string) error {
	_, err := c.Do(ctx, Request{Method: "POST", Path: "/projects/" + seg(project) + "/xmpp:drain", JSON: struct{}{}})
	return err
}

// ---- devices ----

func devicePath(project, device string) string {
	return "/projects/" + seg(project) + "/devices/" + seg(device)
}

func (c *Client) bind(d *Device) *Device {
	if d != nil {
		d.client = c
	}
	return d
}

// NewDevice is the body of CreateDevice; Platform is required (Android when empty).
type NewDevice struct {
	Platform Platform `json:"platform"`
	Name     string   `json:"name,omitempty"`
	Token    string   `json:"token,omitempty"` // generated in FCM's format when empty
	AppID    string   `json:"appId,omitempty"`
	FID      string   `json:"fid,omitempty"`
	State    State    `json:"state,omitempty"` // foreground when empty
	Senders  []string `json:"senders,omitempty"`
	Topics   []string `json:"topics,omitempty"`
	Count    int      `json:"count,omitempty"` // set by CreateDevices
	// ClientSDK is "legacy" for an Android app built before the android_v2 callbacks
	// (every message reaches onMessageReceived); "current" when empty.
	ClientSDK string `json:"clientSdk,omitempty"`
}

// DevicePage is one page of a project's devices, and how many the project has in all.
type DevicePage struct {
	Total   int       `json:"total"`
	Devices []*Device `json:"devices"`
}

// ListDevices calls listDevices: one page, oldest first (limit 0: the server's default, 1000).
func (c *Client) ListDevices(ctx context.Context, project string, offset, limit int) (*DevicePage, error) {
	q := url.Values{}
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset))
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	page := &DevicePage{}
	if _, err := c.getJSON(ctx, Request{Method: "GET", Path: "/projects/" + seg(project) + "/devices", Query: q}, page); err != nil {
		return nil, err
	}
	for _, d := range page.Devices {
		c.bind(d)
	}
	return page, nil
}

// AllDevices reads every device of the project, page by page.
func (c *Client) AllDevices(ctx context.Context, project string) ([]*Device, error) {
	var all []*Device
	for {
		page, err := c.ListDevices(ctx, project, len(all), 1000)
		if err != nil {
			return nil, err
		}
		all = append(all, page.Devices...)
		if len(page.Devices) == 0 || len(all) >= page.Total {
			return all, nil
		}
	}
}

// CreateDevice calls createDevice: a device in its state (foreground by default) with a token in
// FCM's format unless one is given.
func (c *Client) CreateDevice(ctx context.Context, project string, d NewDevice) (*Device, error) {
	if d.Platform == "" {
		d.Platform = Android
	}
	d.Count = 0
	out := &Device{}
	if _, err := c.getJSON(ctx, Request{Method: "POST", Path: "/projects/" + seg(project) + "/devices", JSON: d}, out); err != nil {
		return nil, err
	}
	return c.bind(out), nil
}

// CreateDevices calls createDevice with count: n identical devices (at most 10000 a call).
func (c *Client) CreateDevices(ctx context.Context, project string, n int, d NewDevice) ([]*Device, error) {
	if d.Platform == "" {
		d.Platform = Android
	}
	d.Count, d.Name, d.Token, d.FID = n, "", "", ""
	resp, err := c.Do(ctx, Request{Method: "POST", Path: "/projects/" + seg(project) + "/devices", JSON: d, Wait: time.Minute})
	if err != nil {
		return nil, err
	}
	var many struct {
		Devices []*Device `json:"devices"`
	}
	if err := json.Unmarshal(resp.Body, &many); err != nil || many.Devices == nil {
		one := &Device{}
		if err := json.Unmarshal(resp.Body, one); err != nil {
			return nil, err
		}
		many.Devices = []*Device{one}
	}
	for _, dev := range many.Devices {
		c.bind(dev)
	}
	return many.Devices, nil
}

// GetDevice calls getDevice: by id, name, or any token it holds or held.
func (c *Client) GetDevice(ctx context.Context, project, device string) (*Device, error) {
	out := &Device{}
	if _, err := c.getJSON(ctx, Request{Method: "GET", Path: devicePath(project, device)}, out); err != nil {
		return nil, err
	}
	return c.bind(out), nil
}

// DeviceUpdate is the body of UpdateDevice; nil fields are left as they are.
type DeviceUpdate struct {
	State   *State   `json:"state,omitempty"`
	Senders []string `json:"senders,omitempty"`
}

// UpdateDevice calls updateDevice: changes the state and/or the allowed senders.
func (c *Client) UpdateDevice(ctx context.Context, project, device string, u DeviceUpdate) (*Device, error) {
	out := &Device{}
	if _, err := c.getJSON(ctx, Request{Method: "PATCH", Path: devicePath(project, device), JSON: u}, out); err != nil {
		return nil, err
	}
	return c.bind(out), nil
}

// DeleteDevice calls deleteDevice: its token then answers as unregistered.
func (c *Client) DeleteDevice(ctx context.Context, project, device string) error {
	_, err := c.Do(ctx, Request{Method: "DELETE", Path: devicePath(project, device)})
	return err
}

// UninstallDevice calls uninstallDevice: the next delivery attempt invalidates the token.
func (c *Client) UninstallDevice(ctx context.Context, project, device string) (*Device, error) {
	out := &Device{}
	if _, err := c.getJSON(ctx, Request{Method: "POST", Path: devicePath(project, device) + ":uninstall", JSON: struct{}{}}, out); err != nil {
		return nil, err
	}
	return c.bind(out), nil
}

// RefreshToken calls refreshToken: a new token (or token, when not empty); reinstalls an
// uninstalled app.
func (c *Client) RefreshToken(ctx context.Context, project, device, token string) (*Device, error) {
	body := map[string]any{}
	if token != "" {
		body["token"] = token
	}
	out := &Device{}
	if _, err := c.getJSON(ctx, Request{Method: "POST", Path: devicePath(project, device) + ":refreshToken", JSON: body}, out); err != nil {
		return nil, err
	}
	return c.bind(out), nil
}

// Subscribe calls subscribe: the device joins topic.
func (c *Client) Subscribe(ctx context.Context, project, device, topic string) (*Device, error) {
	out := &Device{}
	if _, err := c.getJSON(ctx, Request{Method: "PUT", Path: devicePath(project, device) + "/topics/" + seg(topic)}, out); err != nil {
		return nil, err
	}
	return c.bind(out), nil
}

// Unsubscribe calls unsubscribe: the device leaves topic.
func (c *Client) Unsubscribe(ctx context.Context, project, device, topic string) (*Device, error) {
	out := &Device{}
	if _, err := c.getJSON(ctx, Request{Method: "DELETE", Path: devicePath(project, device) + "/topics/" + seg(topic)}, out); err != nil {
		return nil, err
	}
	return c.bind(out), nil
}

// Inbox calls getInbox: what the app received, rendered for its platform, oldest first.
func (c *Client) Inbox(ctx context.Context, project, device string) (*Inbox, error) {
	return c.WaitInbox(ctx, project, device, 0, 0)
}

// WaitInbox calls getInbox with waitFor: the emulator answers as soon as the inbox holds n
// deliveries, or after timeout (default 30s, at most 5m) with what there is
// (Inbox.Satisfied says which). n <= 0 reads at once.
func (c *Client) WaitInbox(ctx context.Context, project, device string, n int, timeout time.Duration) (*Inbox, error) {
	q, wait := waitQuery(nil, n, timeout)
	inbox := &Inbox{}
	resp, err := c.getJSON(ctx, Request{Method: "GET", Path: devicePath(project, device) + "/inbox", Query: q, Wait: wait}, inbox)
	if err != nil {
		return nil, err
	}
	c.bind(inbox.Device)
	inbox.Satisfied = resp.WaitSatisfied()
	return inbox, nil
}

// ClearInbox calls clearInbox: empties the inbox.
func (c *Client) ClearInbox(ctx context.Context, project, device string) error {
	_, err := c.Do(ctx, Request{Method: "DELETE", Path: devicePath(project, device) + "/inbox"})
	return err
}

// Stored calls getStored: what the device holds now (store and forward), in delivery order.
func (c *Client) Stored(ctx context.Context, project, device string) (*Stored, error) {
	out := &Stored{}
	if _, err := c.getJSON(ctx, Request{Method: "GET", Path: devicePath(project, device) + "/stored"}, out); err != nil {
		return nil, err
	}
	c.bind(out.Device)
	return out, nil
}

// Tray calls getTray: the notifications shown in the background, oldest first.
func (c *Client) Tray(ctx context.Context, project, device string) (*Tray, error) {
	out := &Tray{}
	if _, err := c.getJSON(ctx, Request{Method: "GET", Path: devicePath(project, device) + "/tray"}, out); err != nil {
		return nil, err
	}
	c.bind(out.Device)
	return out, nil
}

// ShowNotification calls showNotification: the app shows a notification for messageID (a
// message in its inbox), replacing a shown one with the same tag ("" for none); returns the tray.
func (c *Client) ShowNotification(ctx context.Context, project, device, messageID, tag string) (*Tray, error) {
	body := map[string]string{"messageId": messageID}
	if tag != "" {
		body["tag"] = tag
	}
	out := &Tray{}
	if _, err := c.getJSON(ctx, Request{Method: "POST", Path: devicePath(project, device) + "/tray", JSON: body}, out); err != nil {
		return nil, err
	}
	c.bind(out.Device)
	return out, nil
}

// ClearTray calls clearTray: the user clears the app's notifications.
func (c *Client) ClearTray(ctx context.Context, project, device string) error {
	_, err := c.Do(ctx, Request{Method: "DELETE", Path: devicePath(project, device) + "/tray"})
	return err
}

// Upstream is an upstream message a device sends to its app server over XMPP.
type Upstream struct {
	Data      map[string]string `json:"data"`
	MessageID string            `json:"messageId,omitempty"`
	TTL       string            `json:"ttl,omitempty"`
}

// SendUpstream calls sendUpstream; returns the emulator's answer.
func (c *Client) SendUpstream(ctx context.Context, project, device string, u Upstream) (map[string]any, error) {
	var out map[string]any
	_, err := c.getJSON(ctx, Request{Method: "POST", Path: devicePath(project, device) + ":upstream", JSON: u}, &out)
	return out, err
}

var errUnbound = errors.New("fcm-emu: this Device is not bound to a Client; read it through a Client or Project")
