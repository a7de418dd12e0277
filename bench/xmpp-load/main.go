// Command xmpp-load drives fcm-emu's XMPP connection server (docs/xmpp.md) with downstream
// messages over N TLS connections, each keeping up to 100 unacked messages in flight (the flow
// control window of FCM's XMPP server reference), and prints acked messages per second with the
// p50 and p99 time from writing a stanza to reading its ack. Native, so that the figure is the
// server's rather than the client's (bench/xmpp.py spends most of its time in Python).
//
//	xmpp-load -ready READY.json -messages 50000 -connections 1,10
package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

const stream = "<stream:stream to='gcm.googleapis.com' version='1.0' xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams'>"

type ready struct {
	ControlAPI string `json:"controlApi"`
	XMPP       struct {
		Ports         []int  `json:"ports"`
		CACertificate string `json:"caCertificate"`
	} `json:"xmpp"`
	DemoProject struct {
		SenderID  string `json:"senderId"`
		ServerKey string `json:"serverKey"`
	} `json:"demoProject"`
}

func main() {
	readyPath := flag.String("ready", "", "the emulator's --ready-file")
	messages := flag.Int("messages", 50000, "messages per run, split across the connections")
	connList := flag.String("connections", "1,10", "comma-separated connection counts, one run each")
	window := flag.Int("window", 100, "unacked messages in flight per connection (CCS allows 100)")
	devices := flag.Int("devices", 1, "registered device tokens the messages go to, round robin")
	flag.Parse()
	if err := run(*readyPath, *messages, *connList, *window, *devices); err != nil {
		fmt.Fprintln(os.Stderr, "xmpp-load:", err)
		os.Exit(1)
	}
}

func run(readyPath string, messages int, connList string, window, devices int) error {
	raw, err := os.ReadFile(readyPath)
	if err != nil {
		return err
	}
	var r ready
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	if len(r.XMPP.Ports) == 0 {
		return fmt.Errorf("the ready file lists no XMPP port")
	}
	// Trust the emulator's own CA (from the ready file), as an app server would; no InsecureSkipVerify.
	pem, err := os.ReadFile(r.XMPP.CACertificate)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return fmt.Errorf("no certificate in %s", r.XMPP.CACertificate)
	}
	config := &tls.Config{RootCAs: pool, ServerName: "gcm.googleapis.com"}
	tokens := make([]string, devices)
	for i := range tokens {
		if tokens[i], err = register(r.ControlAPI); err != nil {
			return err
		}
	}
	addr := fmt.Sprintf("127.0.0.1:%d", r.XMPP.Ports[0])
	auth := base64.StdEncoding.EncodeToString([]byte("\x00" + r.DemoProject.SenderID + "@gcm.googleapis.com\x00" + r.DemoProject.ServerKey))
	for _, field := range strings.Split(connList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || n < 1 {
			return fmt.Errorf("bad connection count %q", field)
		}
		if err := runOnce(addr, config, auth, tokens, n, messages/n, window); err != nil {
			return err
		}
	}
	return nil
}

func register(control string) (string, error) {
	resp, err := http.Post(control+"/projects/demo-fcm-emu/devices", "application/json", strings.NewReader(`{"platform":"android"}`))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var device struct {
		Token string `json:"token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&device); err != nil {
		return "", err
	}
	return device.Token, nil
}

type conn struct {
	tls    *tls.Conn
	reader *bufio.Reader
}

// until reads until marker has been seen; the handshake's answers are small.
func (c *conn) until(marker string) error {
	var seen []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(seen, []byte(marker)) {
		n, err := c.reader.Read(buf)
		if err != nil {
			return fmt.Errorf("waiting for %q: %w (got %q)", marker, err, seen)
		}
		seen = append(seen, buf[:n]...)
	}
	return nil
}

func (c *conn) send(s string) error {
	_, err := io.WriteString(c.tls, s)
	return err
}

// session opens the stream, authenticates with SASL PLAIN, restarts the stream and binds
// (RFC 6120 as docs/xmpp.md describes).
func session(addr string, config *tls.Config, auth string) (*conn, error) {
	t, err := tls.Dial("tcp", addr, config)
	if err != nil {
		return nil, err
	}
	c := &conn{tls: t, reader: bufio.NewReaderSize(t, 1<<16)}
	steps := []struct{ send, until string }{
		{stream, "</stream:features>"},
		{"<auth mechanism='PLAIN' xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>" + auth + "</auth>", "success"},
		{stream, "</stream:features>"},
		{"<iq type='set' id='b'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/></iq>", "</iq>"},
	}
	for _, step := range steps {
		if err := c.send(step.send); err != nil {
			return nil, err
		}
		if err := c.until(step.until); err != nil {
			t.Close()
			return nil, err
		}
	}
	return c, nil
}

type result struct {
	latencies []time.Duration
	nacks     int
	err       error
}

// drive keeps up to window messages unacked: a writer fills the window, the reader frees one slot
// per ack or nack it reads.
func drive(c *conn, tokens []string, count, window, connIndex int) result {
	sentAt := make([]time.Time, count)
	slots := make(chan struct{}, window)
	for i := 0; i < window; i++ {
		slots <- struct{}{}
	}
	writeErr := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(c.tls, 1<<16)
		for i := 0; i < count; i++ {
			<-slots
			body := fmt.Sprintf(`{"to":%q,"message_id":"c%d-m%d","data":{"n":"%d"}}`, tokens[i%len(tokens)], connIndex, i, i)
			sentAt[i] = time.Now()
			w.WriteString(`<message id=""><gcm xmlns="google:mobile:data">` + body + `</gcm></message>`)
			// Flush when the window is full or nothing more may go: stanzas leave in batches, as a
			// pipelining client's would.
			if len(slots) == 0 || i == count-1 {
				if err := w.Flush(); err != nil {
					writeErr <- err
					return
				}
			}
		}
		writeErr <- nil
	}()
	res := result{latencies: make([]time.Duration, 0, count)}
	prefix := []byte(fmt.Sprintf(`"message_id":"c%d-m`, connIndex))
	for done := 0; done < count; {
		stanza, err := c.reader.ReadBytes('>')
		if err != nil {
			res.err = err
			return res
		}
		// Acks and nacks carry the message id and message_type in one JSON payload; the closing
		// tags and whitespace keepalives between stanzas are skipped by the search below.
		at := bytes.Index(stanza, prefix)
		if at < 0 {
			continue
		}
		rest := stanza[at+len(prefix):]
		end := bytes.IndexByte(rest, '"')
		if end < 0 {
			continue
		}
		i, err := strconv.Atoi(string(rest[:end]))
		if err != nil || i < 0 || i >= count {
			continue
		}
		if !bytes.Contains(stanza, []byte(`"message_type":"ack"`)) {
			res.nacks++
		}
		res.latencies = append(res.latencies, time.Since(sentAt[i]))
		done++
		slots <- struct{}{}
	}
	res.err = <-writeErr
	return res
}

func runOnce(addr string, config *tls.Config, auth string, tokens []string, n, per, window int) error {
	conns := make([]*conn, n)
	for i := range conns {
		c, err := session(addr, config, auth)
		if err != nil {
			return err
		}
		conns[i] = c
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i, c := range conns {
		wg.Add(1)
		go func(i int, c *conn) {
			defer wg.Done()
			results[i] = drive(c, tokens, per, window, i)
		}(i, c)
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []time.Duration
	nacks := 0
	for _, r := range results {
		if r.err != nil {
			return r.err
		}
		all = append(all, r.latencies...)
		nacks += r.nacks
	}
	for _, c := range conns {
		c.send("</stream:stream>")
		c.tls.Close()
	}
	sort.Slice(all, func(a, b int) bool { return all[a] < all[b] })
	pick := func(q float64) float64 {
		if len(all) == 0 {
			return 0
		}
		return float64(all[int(q*float64(len(all)-1))].Microseconds()) / 1000
	}
	acked := len(all) - nacks
	fmt.Printf("xmpp (go):  %d downstream messages acked over %d connection(s) in %.2f s = %.0f messages/s, "+
		"ack latency p50 %.2f ms p99 %.2f ms, %d nacks\n",
		acked, n, elapsed.Seconds(), float64(acked)/elapsed.Seconds(), pick(0.50), pick(0.99), nacks)
	return nil
}
