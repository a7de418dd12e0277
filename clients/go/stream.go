package fcmemu

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/url"
	"strconv"
	"strings"
)

// StreamMessage is one Server-Sent Event of an event stream: Event is "message" for log entries
// (Data is an Event's JSON), or "ready", "lagged", "shutdown".
type StreamMessage struct {
	Event string
	ID    string
	Data  json.RawMessage
}

// AsEvent decodes the log entry of a "message" frame; ok is false for other frames.
func (m StreamMessage) AsEvent() (e Event, ok bool) {
	if m.Event != "message" {
		return e, false
	}
	return e, json.Unmarshal(m.Data, &e) == nil
}

// EventStream is a live event stream (events:stream). Read it with Next; Close it when done (or
// cancel the context it was opened with). The server sends a heartbeat every 15 s.
type EventStream struct {
	body    io.ReadCloser
	scanner *bufio.Scanner
	cancel  context.CancelFunc
}

// StreamQuery filters an event stream. LastEventID resumes after that sequence (-1 replays every
// kept event); nil starts now.
type StreamQuery struct {
	Device      string
	Token       string
	Topic       string
	Message     string
	Kinds       []string
	LastEventID *int64
}

func (q StreamQuery) values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"device": q.Device, "token": q.Token, "topic": q.Topic,
		"message": q.Message, "kind": strings.Join(q.Kinds, ",")} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if q.LastEventID != nil {
		v.Set("lastEventId", strconv.FormatInt(*q.LastEventID, 10))
	}
	return v
}

func (c *Client) stream(ctx context.Context, path string, q StreamQuery) (*EventStream, error) {
	ctx, cancel := context.WithCancel(ctx)
	resp, done, err := c.open(ctx, Request{Method: "GET", Path: path, Query: q.values(), Accept: "text/event-stream"})
	if err != nil {
		cancel()
		return nil, err
	}
	done()
	s := &EventStream{body: resp.Body, scanner: bufio.NewScanner(resp.Body), cancel: cancel}
	s.scanner.Buffer(make([]byte, 64*1024), 16<<20)
	return s, nil
}

// StreamEvents calls streamEvents: the whole event log, live.
func (c *Client) StreamEvents(ctx context.Context, q StreamQuery) (*EventStream, error) {
	q.Device = ""
	return c.stream(ctx, "/events:stream", q)
}

// StreamProjectEvents calls streamProjectEvents: one project's events, live.
func (c *Client) StreamProjectEvents(ctx context.Context, project string, q StreamQuery) (*EventStream, error) {
	return c.stream(ctx, "/projects/"+seg(project)+"/events:stream", q)
}

// StreamDeviceEvents calls streamDeviceEvents: one device's events, live.
func (c *Client) StreamDeviceEvents(ctx context.Context, project, device string, q StreamQuery) (*EventStream, error) {
	q.Device = ""
	return c.stream(ctx, devicePath(project, device)+"/events:stream", q)
}

// Next returns the next frame; io.EOF when the stream ended.
func (s *EventStream) Next() (StreamMessage, error) {
	msg := StreamMessage{Event: "message"}
	var data []string
	for s.scanner.Scan() {
		line := strings.TrimRight(s.scanner.Text(), "\r")
		if line == "" {
			if data != nil {
				msg.Data = json.RawMessage(strings.Join(data, "\n"))
				return msg, nil
			}
			msg = StreamMessage{Event: "message"}
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "event":
			msg.Event = value
		case "id":
			msg.ID = value
		case "data":
			data = append(data, value)
		}
	}
	if err := s.scanner.Err(); err != nil {
		return msg, err
	}
	return msg, io.EOF
}

// NextEvent returns the next log entry, skipping control frames; io.EOF at "shutdown" or the end.
func (s *EventStream) NextEvent() (Event, error) {
	for {
		m, err := s.Next()
		if err != nil {
			return Event{}, err
		}
		if m.Event == "shutdown" {
			return Event{}, io.EOF
		}
		if e, ok := m.AsEvent(); ok {
			return e, nil
		}
	}
}

// Close closes the connection.
func (s *EventStream) Close() error {
	s.cancel()
	return s.body.Close()
}
