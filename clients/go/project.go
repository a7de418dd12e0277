package fcmemu

import (
	"context"
	"time"
)

// Project is one project of a Client: the project-scoped calls with the project filled in.
// Obtain it from Client.Project, Emulator.Project or Emulator.NewProject.
type Project struct {
	client *Client
	id     string
	emu    *Emulator // set when obtained from an Emulator (for HTTPClient, Env)
}

// ID returns the project id.
func (p *Project) ID() string { return p.id }

// Emulator returns the emulator the project was obtained from (nil for Client.Project).
func (p *Project) Emulator() *Emulator { return p.emu }

// Client returns the project's control API client.
func (p *Project) Client() *Client { return p.client }

// Info reads the project: id, number (the sender id), server keys.
func (p *Project) Info(ctx context.Context) (*ProjectInfo, error) {
	return p.client.GetProject(ctx, p.id)
}

// Delete deletes the project and everything in it.
func (p *Project) Delete(ctx context.Context) error { return p.client.DeleteProject(ctx, p.id) }

// Reset removes the project's devices, topics and groups.
func (p *Project) Reset(ctx context.Context) error { return p.client.ResetProject(ctx, p.id) }

// Update changes the project's settings (UpdateProject).
func (p *Project) Update(ctx context.Context, u ProjectUpdate) (*ProjectInfo, error) {
	return p.client.UpdateProject(ctx, p.id, u)
}

// ServiceAccount returns a service-account key file (JSON) whose token_uri points at the emulator.
func (p *Project) ServiceAccount(ctx context.Context) ([]byte, error) {
	return p.client.ServiceAccount(ctx, p.id)
}

// CreateAccessToken returns an OAuth bearer for the project's v1 API.
func (p *Project) CreateAccessToken(ctx context.Context) (*AccessToken, error) {
	return p.client.CreateAccessToken(ctx, p.id)
}

// RevokeAccessTokens makes every bearer issued until now get 401 (RevokeAccessTokens).
func (p *Project) RevokeAccessTokens(ctx context.Context) error {
	return p.client.RevokeAccessTokens(ctx, p.id)
}

// Topics lists topics with subscriber counts.
func (p *Project) Topics(ctx context.Context) ([]Topic, error) { return p.client.Topics(ctx, p.id) }

// Groups lists legacy device groups.
func (p *Project) Groups(ctx context.Context) ([]Group, error) { return p.client.Groups(ctx, p.id) }

// XMPPConnections lists bound XMPP (CCS) connections.
func (p *Project) XMPPConnections(ctx context.Context) ([]XMPPConnection, error) {
	return p.client.XMPPConnections(ctx, p.id)
}

// DrainXMPP sends CONNECTION_DRAINING to every XMPP connection of the project.
func (p *Project) DrainXMPP(ctx context.Context) error { return p.client.DrainXMPP(ctx, p.id) }

// Events reads the project's events.
func (p *Project) Events(ctx context.Context, q EventQuery) (*EventList, error) {
	return p.client.ProjectEvents(ctx, p.id, q)
}

// StreamEvents streams the project's events.
func (p *Project) StreamEvents(ctx context.Context, q StreamQuery) (*EventStream, error) {
	return p.client.StreamProjectEvents(ctx, p.id, q)
}

// Devices reads every device of the project.
func (p *Project) Devices(ctx context.Context) ([]*Device, error) {
	return p.client.AllDevices(ctx, p.id)
}

// CreateDevice creates a device (see Client.CreateDevice).
func (p *Project) CreateDevice(ctx context.Context, d NewDevice) (*Device, error) {
	return p.client.CreateDevice(ctx, p.id, d)
}

// CreateDevices creates n identical devices.
func (p *Project) CreateDevices(ctx context.Context, n int, d NewDevice) ([]*Device, error) {
	return p.client.CreateDevices(ctx, p.id, n, d)
}

// Device reads a device by id, name or token.
func (p *Project) Device(ctx context.Context, device string) (*Device, error) {
	return p.client.GetDevice(ctx, p.id, device)
}

// ---- a bound device ----

func (d *Device) bound() (*Client, error) {
	if d == nil || d.client == nil {
		return nil, errUnbound
	}
	return d.client, nil
}

// Reload reads the device again and updates d in place.
func (d *Device) Reload(ctx context.Context) error {
	c, err := d.bound()
	if err != nil {
		return err
	}
	fresh, err := c.GetDevice(ctx, d.ProjectID, d.ID)
	if err != nil {
		return err
	}
	*d = *fresh
	return nil
}

// Inbox reads what the app received.
func (d *Device) Inbox(ctx context.Context) (*Inbox, error) {
	c, err := d.bound()
	if err != nil {
		return nil, err
	}
	return c.Inbox(ctx, d.ProjectID, d.ID)
}

// WaitInbox reads the inbox once it holds n deliveries, or after timeout with what there is.
func (d *Device) WaitInbox(ctx context.Context, n int, timeout time.Duration) (*Inbox, error) {
	c, err := d.bound()
	if err != nil {
		return nil, err
	}
	return c.WaitInbox(ctx, d.ProjectID, d.ID, n, timeout)
}

// ClearInbox empties the inbox.
func (d *Device) ClearInbox(ctx context.Context) error {
	c, err := d.bound()
	if err != nil {
		return err
	}
	return c.ClearInbox(ctx, d.ProjectID, d.ID)
}

// Stored reads what the device holds now (store and forward).
func (d *Device) Stored(ctx context.Context) (*Stored, error) {
	c, err := d.bound()
	if err != nil {
		return nil, err
	}
	return c.Stored(ctx, d.ProjectID, d.ID)
}

// Tray reads the notifications shown in the background.
func (d *Device) Tray(ctx context.Context) (*Tray, error) {
	c, err := d.bound()
	if err != nil {
		return nil, err
	}
	return c.Tray(ctx, d.ProjectID, d.ID)
}

// ShowNotification shows a notification for messageID, replacing one with the same tag.
func (d *Device) ShowNotification(ctx context.Context, messageID, tag string) (*Tray, error) {
	c, err := d.bound()
	if err != nil {
		return nil, err
	}
	return c.ShowNotification(ctx, d.ProjectID, d.ID, messageID, tag)
}

// ClearTray clears the app's notifications.
func (d *Device) ClearTray(ctx context.Context) error {
	c, err := d.bound()
	if err != nil {
		return err
	}
	return c.ClearTray(ctx, d.ProjectID, d.ID)
}

// Events reads the device's events.
func (d *Device) Events(ctx context.Context, q EventQuery) (*EventList, error) {
	c, err := d.bound()
	if err != nil {
		return nil, err
	}
	return c.DeviceEvents(ctx, d.ProjectID, d.ID, q)
}

// SetState moves the app to state and updates d.
func (d *Device) SetState(ctx context.Context, state State) error {
	return d.update(ctx, func(c *Client) (*Device, error) {
		return c.UpdateDevice(ctx, d.ProjectID, d.ID, DeviceUpdate{State: &state})
	})
}

// SetSenders sets the sender ids (project numbers) allowed to message this install.
func (d *Device) SetSenders(ctx context.Context, senders []string) error {
	if senders == nil {
		senders = []string{}
	}
	return d.update(ctx, func(c *Client) (*Device, error) {
		return c.UpdateDevice(ctx, d.ProjectID, d.ID, DeviceUpdate{Senders: senders})
	})
}

// Uninstall uninstalls the app: the next delivery attempt invalidates its token.
func (d *Device) Uninstall(ctx context.Context) error {
	return d.update(ctx, func(c *Client) (*Device, error) { return c.UninstallDevice(ctx, d.ProjectID, d.ID) })
}

// RefreshToken issues a new token (or token, when not empty) and updates d.
func (d *Device) RefreshToken(ctx context.Context, token string) error {
	return d.update(ctx, func(c *Client) (*Device, error) { return c.RefreshToken(ctx, d.ProjectID, d.ID, token) })
}

// Subscribe subscribes the device to topic.
func (d *Device) Subscribe(ctx context.Context, topic string) error {
	return d.update(ctx, func(c *Client) (*Device, error) { return c.Subscribe(ctx, d.ProjectID, d.ID, topic) })
}

// Unsubscribe unsubscribes the device from topic.
func (d *Device) Unsubscribe(ctx context.Context, topic string) error {
	return d.update(ctx, func(c *Client) (*Device, error) { return c.Unsubscribe(ctx, d.ProjectID, d.ID, topic) })
}

// SendUpstream makes the device send an upstream message to its app server over XMPP.
func (d *Device) SendUpstream(ctx context.Context, u Upstream) (map[string]any, error) {
	c, err := d.bound()
	if err != nil {
		return nil, err
	}
	return c.SendUpstream(ctx, d.ProjectID, d.ID, u)
}

// Delete deletes the device; its token then answers as unregistered.
func (d *Device) Delete(ctx context.Context) error {
	c, err := d.bound()
	if err != nil {
		return err
	}
	return c.DeleteDevice(ctx, d.ProjectID, d.ID)
}

func (d *Device) update(ctx context.Context, call func(*Client) (*Device, error)) error {
	c, err := d.bound()
	if err != nil {
		return err
	}
	fresh, err := call(c)
	if err != nil {
		return err
	}
	*d = *fresh
	return nil
}
