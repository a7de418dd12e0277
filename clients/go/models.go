package fcmemu

import (
	"encoding/json"
	"time"
)

// State is an app's state on a simulated device.
type State string

// The states a device can be in.
const (
	Foreground  State = "foreground"
	Background  State = "background"
	Doze        State = "doze" // Android only
	Offline     State = "offline"
	Uninstalled State = "uninstalled"
)

// Platform is a device's platform.
type Platform string

// The platforms of simulated devices.
const (
	Android Platform = "android"
	IOS     Platform = "ios"
	Web     Platform = "web"
)

// Info describes a running emulator: what its ready file holds, and GET /emulator/v1/info.
type Info struct {
	Version       string       `json:"version"`
	PID           int          `json:"pid"`
	HTTP          *Listener    `json:"http,omitempty"`
	HTTPS         *Listener    `json:"https,omitempty"`
	ControlAPI    string       `json:"controlApi"`
	Dashboard     string       `json:"dashboard"`
	DemoProject   *DemoProject `json:"demoProject,omitempty"`
	CACertificate string       `json:"caCertificate"`
	XMPP          *struct {
		Host          string `json:"host"`
		Ports         []int  `json:"ports"`
		CACertificate string `json:"caCertificate"`
	} `json:"xmpp,omitempty"`
	Proxy *struct {
		URL string `json:"url"`
	} `json:"proxy,omitempty"`
	// ControlToken is the token the control API asks for (an emulator beyond loopback).
	ControlToken string `json:"controlToken,omitempty"`
	// Raw is the JSON as read.
	Raw json.RawMessage `json:"-"`
}

// Listener is one bound address of the emulator.
type Listener struct {
	Host string `json:"host"`
	Port int    `json:"port"`
	URL  string `json:"url"`
}

// DemoProject is the project every emulator starts with (demo-fcm-emu).
type DemoProject struct {
	ProjectID     string `json:"projectId"`
	ProjectNumber string `json:"projectNumber"`
	SenderID      string `json:"senderId"`
	ServerKey     string `json:"serverKey"`
}

// ProjectInfo is a project as the emulator keeps it.
type ProjectInfo struct {
	ID         string   `json:"id"`
	Number     string   `json:"number"`
	SenderID   string   `json:"senderId"`
	ServerKeys []string `json:"serverKeys"`
	CreatedAt  string   `json:"createdAt,omitempty"`
	// APIEnabled is false while every v1 call of the project answers 403 SERVICE_DISABLED.
	APIEnabled bool `json:"apiEnabled"`
}

// Device is a simulated device (one app install), as the API last described it. A Device read
// through a Client is bound to it: its methods call the API with its project and id.
type Device struct {
	ID              string   `json:"id"`
	Name            string   `json:"name,omitempty"`
	ProjectID       string   `json:"projectId"`
	Platform        Platform `json:"platform"`
	AppID           string   `json:"appId,omitempty"`
	Token           string   `json:"token"`
	FID             string   `json:"fid,omitempty"`
	State           State    `json:"state"`
	TokenValid      bool     `json:"tokenValid"`
	Senders         []string `json:"senders,omitempty"`
	Topics          []string `json:"topics,omitempty"`
	CreatedAt       string   `json:"createdAt,omitempty"`
	LastConnectedAt string   `json:"lastConnectedAt,omitempty"`
	// LastSeenAt is when the app was last connected or refreshed its token; an Android token
	// unseen for staleTokenDays has expired (TokenValid false).
	LastSeenAt             string `json:"lastSeenAt,omitempty"`
	StoredCount            int    `json:"storedCount"`
	StoredCollapsible      int    `json:"storedCollapsible"`
	StoredNonCollapsible   int    `json:"storedNonCollapsible"`
	LastDeliveryAt         string `json:"lastDeliveryAt,omitempty"`
	DeliveredCount         int    `json:"deliveredCount"`
	DeletedMessagesPending bool   `json:"deletedMessagesPending"`

	client *Client
}

// Client returns the client the device was read through (nil for a Device made by hand).
func (d *Device) Client() *Client { return d.client }

// Delivery is one thing an app received: a message (Payload, as its platform renders it) or a
// deletedMessages notice (Kind "deletedMessages").
type Delivery struct {
	Kind             string         `json:"kind"`
	MessageID        string         `json:"messageId,omitempty"`
	Time             string         `json:"time,omitempty"`
	Handling         string         `json:"handling,omitempty"`
	Callback         string         `json:"callback,omitempty"`
	AppState         State          `json:"appState,omitempty"`
	Priority         string         `json:"priority,omitempty"`
	OriginalPriority string         `json:"originalPriority,omitempty"`
	CollapseKey      string         `json:"collapseKey,omitempty"`
	TTL              string         `json:"ttl,omitempty"`
	API              string         `json:"api,omitempty"`
	Payload          map[string]any `json:"payload,omitempty"`
	// Raw is the delivery's JSON as the inbox API returned it (what WhereFields matches).
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON keeps the raw JSON beside the fields.
func (d *Delivery) UnmarshalJSON(data []byte) error {
	type plain Delivery
	if err := json.Unmarshal(data, (*plain)(d)); err != nil {
		return err
	}
	d.Raw = append(json.RawMessage(nil), data...)
	return nil
}

// Data returns the message's data fields wherever the platform puts them: Android's and web's
// payload.data, iOS's top-level keys (without aps).
func (d Delivery) Data() map[string]string {
	out := map[string]string{}
	source := d.Payload
	if data, ok := d.Payload["data"].(map[string]any); ok {
		source = data
	}
	for k, v := range source {
		if s, ok := v.(string); ok && k != "aps" && k != "fcm_options" && k != "gcm.message_id" {
			out[k] = s
		}
	}
	return out
}

// Inbox is a device's inbox: its deliveries, oldest first.
type Inbox struct {
	Device     *Device    `json:"device,omitempty"`
	Deliveries []Delivery `json:"deliveries"`
	// Satisfied is set after a read with WaitFor: whether the count was reached (false: the
	// wait timed out). It is nil for a plain read.
	Satisfied *bool `json:"-"`
}

// Event is one entry of the event log (Kind such as accepted, stored, delivered, expired).
type Event struct {
	Sequence         int64  `json:"sequence"`
	Time             string `json:"time,omitempty"`
	Kind             string `json:"kind"`
	Project          string `json:"project,omitempty"`
	Device           string `json:"device,omitempty"`
	MessageID        string `json:"messageId,omitempty"`
	RelatedMessageID string `json:"relatedMessageId,omitempty"`
	Target           string `json:"target,omitempty"`
	Detail           string `json:"detail,omitempty"`
}

// EventList is a read of the event log.
type EventList struct {
	Events []Event `json:"events"`
	// Satisfied: as for Inbox.
	Satisfied *bool `json:"-"`
}

// Kinds returns the events' kinds in order, handy in assertions.
func (l EventList) Kinds() []string {
	kinds := make([]string, len(l.Events))
	for i, e := range l.Events {
		kinds[i] = e.Kind
	}
	return kinds
}

// Clock is the emulator's clock: TTL expiry, Doze windows and latencies run on it.
type Clock struct {
	Now           string  `json:"now"`
	NowMillis     int64   `json:"nowMillis"`
	Mode          string  `json:"mode"`
	Paused        bool    `json:"paused"`
	Speed         float64 `json:"speed"`
	NextTimer     string  `json:"nextTimer,omitempty"`
	PendingTimers int     `json:"pendingTimers"`
}

// Time returns the clock's current instant.
func (c Clock) Time() time.Time { return time.UnixMilli(c.NowMillis).UTC() }

// Timer is one of the clock's pending timers (What: expiry, dozeMaintenance or delivery).
type Timer struct {
	At        string `json:"at"`
	What      string `json:"what"`
	Project   string `json:"project,omitempty"`
	Device    string `json:"device,omitempty"`
	MessageID string `json:"messageId,omitempty"` // the stored message an expiry is for
}

// TimerPage is one page of the clock's pending timers, in the order they fire.
type TimerPage struct {
	Timers     []Timer `json:"timers"`
	Total      int     `json:"total"`
	NextOffset *int    `json:"nextOffset,omitempty"` // nil on the last page
}

// StoredMessage is a message a device holds now (store and forward).
type StoredMessage struct {
	MessageID   string `json:"messageId"`
	AcceptedAt  string `json:"acceptedAt,omitempty"`
	AvailableAt string `json:"availableAt,omitempty"` // not deliverable before
	ExpiresAt   string `json:"expiresAt,omitempty"`   // absent for a TTL 0 copy
	Priority    string `json:"priority,omitempty"`
	CollapseKey string `json:"collapseKey,omitempty"`
	API         string `json:"api,omitempty"`
	Target      string `json:"target,omitempty"`
	Title       string `json:"title,omitempty"`
	DataSummary string `json:"dataSummary,omitempty"`
}

// Stored is what a device holds now, in delivery order.
type Stored struct {
	Device *Device         `json:"device,omitempty"`
	Stored []StoredMessage `json:"stored"`
}

// Notification is a notification shown in a device's tray: the delivery and its tag.
type Notification struct {
	Delivery
	Tag string `json:"tag,omitempty"`
}

// UnmarshalJSON reads the delivery (Raw included) and the tag.
func (n *Notification) UnmarshalJSON(data []byte) error {
	if err := n.Delivery.UnmarshalJSON(data); err != nil {
		return err
	}
	var t struct {
		Tag string `json:"tag"`
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return err
	}
	n.Tag = t.Tag
	return nil
}

// Tray is what the user sees: notifications shown in the background, oldest first.
type Tray struct {
	Device        *Device        `json:"device,omitempty"`
	Notifications []Notification `json:"notifications"`
	// UnshownHighPriority counts high-priority Android data messages delivered in the background
	// since a notification was last shown.
	UnshownHighPriority int `json:"unshownHighPriority"`
}

// Topic is a topic and its number of subscribers.
type Topic struct {
	Name        string `json:"name"`
	Subscribers int    `json:"subscribers"`
}

// Group is a legacy device group (notification_key).
type Group struct {
	Name            string   `json:"name"`
	NotificationKey string   `json:"notificationKey"`
	Tokens          []string `json:"tokens"`
	CreatedAt       string   `json:"createdAt,omitempty"`
}

// AccessToken is an OAuth bearer for a project's HTTP v1 API.
type AccessToken struct {
	AccessToken string `json:"accessToken"`
	TokenType   string `json:"tokenType"`
	ExpiresIn   int    `json:"expiresIn"` // seconds
}

// XMPPConnection is a bound XMPP (CCS) connection of a project.
type XMPPConnection struct {
	ID          string `json:"id"`
	Sender      string `json:"sender"`
	State       string `json:"state"`
	InFlight    int    `json:"inFlight"`
	ConnectedAt string `json:"connectedAt"`
}

// FaultRule is a fault-injection rule, as sent and as returned.
type FaultRule struct {
	ID     string      `json:"id,omitempty"`
	Match  FaultMatch  `json:"match"`
	Action FaultAction `json:"action"`
	// Fired is how often the rule fired (in answers only).
	Fired int `json:"fired,omitempty"`
}

// FaultMatch says which calls a fault rule applies to; zero fields match everything.
type FaultMatch struct {
	API         string  `json:"api,omitempty"` // v1, legacy, iid, batch, oauth, xmpp
	Route       string  `json:"route,omitempty"`
	Project     string  `json:"project,omitempty"`
	Target      string  `json:"target,omitempty"`
	Device      string  `json:"device,omitempty"`
	Nth         int     `json:"nth,omitempty"`
	Every       int     `json:"every,omitempty"`
	Probability float64 `json:"probability,omitempty"`
	Count       int     `json:"count,omitempty"`
	From        string  `json:"from,omitempty"`
	Until       string  `json:"until,omitempty"`
}

// FaultAction is what a fault rule does: one of Error (an FCM error code such as UNAVAILABLE),
// Status, Latency, Reset, HTML502, Drain; RetryAfter with an error or status.
type FaultAction struct {
	Error      string `json:"error,omitempty"`
	Status     int    `json:"status,omitempty"`
	RetryAfter any    `json:"retryAfter,omitempty"` // seconds (int) or a duration string
	Latency    string `json:"latency,omitempty"`
	Reset      bool   `json:"reset,omitempty"`
	HTML502    bool   `json:"html502,omitempty"`
	Drain      bool   `json:"drain,omitempty"`
}
