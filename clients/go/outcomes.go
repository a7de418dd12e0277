package fcmemu

import "context"

// Outcome is what became of one message meant for a device, or a refused request that named its
// token or FID (docs/control-api.md, "Outcomes").
type Outcome struct {
	// Time is on the emulator's clock (RFC 3339).
	Time string `json:"time"`
	// Kind is accepted, stored, delivered, collapsed, evicted, expired, discarded or refused.
	Kind      string `json:"kind"`
	MessageID string `json:"messageId,omitempty"`
	// Reason is the machine-readable why: ttl-zero, offline, tray, a collapse key, a refusal's message.
	Reason string `json:"reason,omitempty"`
	// Status and Code are a refusal's HTTP status (0 on XMPP) and error code.
	Status  int    `json:"status,omitempty"`
	Code    string `json:"code,omitempty"`
	Summary string `json:"summary"`
}

// OutcomeDevice is the device an Outcomes answer is about, in short.
type OutcomeDevice struct {
	ID    string `json:"id"`
	Name  string `json:"name,omitempty"`
	State State  `json:"state"`
	Token string `json:"token"`
}

// Outcomes is the answer of getOutcomes: the device's last 16 outcomes, newest first.
type Outcomes struct {
	Device OutcomeDevice `json:"device"`
	// Stored is how many messages the device holds now.
	Stored int `json:"stored"`
	// Story is the newest outcome's summary, or "Nothing was sent to it yet.".
	Story    string    `json:"story"`
	Outcomes []Outcome `json:"outcomes"`
}

// Outcomes calls getOutcomes: why a message did or did not arrive. device is an id, name, token or FID.
func (c *Client) Outcomes(ctx context.Context, project, device string) (*Outcomes, error) {
	out := &Outcomes{}
	if _, err := c.getJSON(ctx, Request{Method: "GET", Path: devicePath(project, device) + "/outcomes"}, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Outcomes reads the device's last outcomes, newest first.
func (d *Device) Outcomes(ctx context.Context) (*Outcomes, error) {
	c, err := d.bound()
	if err != nil {
		return nil, err
	}
	return c.Outcomes(ctx, d.ProjectID, d.ID)
}
